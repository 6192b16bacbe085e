#pragma once

// The process's one pool for Specula's own parallel loops: the calling thread
// plus (lanes - 1) workers, 2 cores here. Idle workers block (no spinning), so
// an idle pool never competes with OpenMP (oneDNN) or OpenBLAS for the cores.
//
// Work is cut into chunks that whoever runs claims one at a time: the caller
// starts at once and a worker joins when the scheduler gives it a core. The
// caller never waits for a worker to wake up, only for a chunk a worker is
// running, so a core taken by other load (another process, OpenBLAS threads
// spinning after their call) costs its share of the work, not a rendezvous.
// Which lane runs a chunk never changes a result: callers cut work where the
// split cannot change a bit (elementwise blocks, independent outputs, fixed
// pairwise chunks).

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace specula::backends::cpu
{
    // A chunk holds at least this many elements of work (a few microseconds:
    // its claim and the lanes' cache traffic stay small), and a lane gets up
    // to chunks_per_lane chunks, so a lane that starts late or loses its core
    // leaves the others something to take over.
    inline constexpr std::int64_t min_chunk_cost = 8192;
    inline constexpr std::int64_t chunks_per_lane = 4;

    class thread_pool
    {
    public:
        explicit thread_pool(int lanes);
        ~thread_pool();
        thread_pool(const thread_pool&) = delete;
        thread_pool& operator=(const thread_pool&) = delete;

        int lanes() const { return m_lanes; }

        // Runs body(lane, begin, end) over ranges that together cover
        // [0, items) once each, lane 0 being the caller; `item_cost` (elements
        // of work per item) keeps chunks large enough to pay for their claim.
        // Lanes identify per-lane scratch. Not reentrant: a body that calls
        // run_split() again runs it inline. The body is referenced, not
        // copied: a std::function of a capturing lambda would allocate per call.
        template <class F>
        void run_split(std::int64_t items, std::int64_t item_cost, const F& body)
        {
            run_ref(job_ref{&body, [](const void* f, int lane, std::int64_t b, std::int64_t e)
                            { (*static_cast<const F*>(f))(lane, b, e); }},
                    items, item_cost);
        }

        // Runs job(i) once for each share i in [0, lanes()), each on whichever
        // lane is free (i names a share of the work, not the thread running it).
        template <class F>
        void run(const F& job)
        {
            run_split(m_lanes, min_chunk_cost,
                      [&](int, std::int64_t b, std::int64_t e)
                      {
                          for (std::int64_t i = b; i < e; ++i)
                          {
                              job(static_cast<int>(i));
                          }
                      });
        }

        // The process-wide pool, sized by the thread budget (threading.hpp).
        static thread_pool& shared();

    private:
        struct job_ref
        {
            const void* p_obj = nullptr;
            void (*p_call)(const void*, int, std::int64_t, std::int64_t) = nullptr;
            void operator()(int lane, std::int64_t b, std::int64_t e) const
            {
                p_call(p_obj, lane, b, e);
            }
        };

        void run_ref(job_ref job, std::int64_t items, std::int64_t item_cost);
        // Claims and runs chunks of the current job until none is left.
        void work(const job_ref& job, int lane);
        void worker(int lane);

        int m_lanes = 1;
        std::vector<std::thread> m_threads;
        std::mutex m_mutex;
        std::condition_variable m_wake;
        std::condition_variable m_done;
        // The current job, written under m_mutex before workers may join it.
        job_ref m_job;
        std::int64_t m_items = 0;
        std::int64_t m_chunks = 0;
        std::atomic<std::int64_t> m_next{0}; // next chunk to claim
        std::uint64_t m_generation = 0;      // jobs started
        std::uint64_t m_open = 0;            // the generation workers may join; 0 once closed
        int m_active = 0;                    // workers inside the open job
        int m_fp_flags = 0;                  // IEEE flags the workers raised
        bool m_stop = false;
        bool m_busy = false;
    };
} // namespace specula::backends::cpu
