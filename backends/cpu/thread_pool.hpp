#pragma once

// The process's one pool for Specula's own parallel loops: the calling thread
// plus (lanes - 1) workers. 2 cores here, so 2 lanes. Workers spin only
// briefly after a job and then block, so an idle pool never competes with
// OpenMP (oneDNN) or OpenBLAS for the cores; the executor runs one op at a
// time, so the three never run parallel regions at once.

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace specula::backends::cpu
{
    class thread_pool
    {
    public:
        explicit thread_pool(int lanes);
        ~thread_pool();
        thread_pool(const thread_pool&) = delete;
        thread_pool& operator=(const thread_pool&) = delete;

        int lanes() const { return m_lanes; }

        // Runs job(lane) for lane in [0, lanes): lane 0 on the caller. Not
        // reentrant: a job must not call run() again (it runs inline then).
        // The job is referenced, not copied: a std::function of a lambda
        // with a few captures would allocate on every call.
        template <class F>
        void run(const F& job)
        {
            run_ref(
                job_ref{&job, [](const void* f, int lane) { (*static_cast<const F*>(f))(lane); }});
        }

        // The process-wide pool, sized by the thread budget (threading.hpp).
        static thread_pool& shared();

    private:
        struct job_ref
        {
            const void* p_obj = nullptr;
            void (*p_call)(const void*, int) = nullptr;
            void operator()(int lane) const { p_call(p_obj, lane); }
        };

        void run_ref(job_ref job);
        void worker(int lane);

        int m_lanes = 1;
        int m_fp_flags = 0; // IEEE flags the workers raised during run()
        std::vector<std::thread> m_threads;
        std::mutex m_mutex;
        std::condition_variable m_wake;
        std::condition_variable m_done;
        job_ref m_job; // valid while run_ref() waits for the lanes
        std::uint64_t m_generation = 0;
        int m_pending = 0;
        bool m_stop = false;
        bool m_busy = false;
    };
} // namespace specula::backends::cpu
