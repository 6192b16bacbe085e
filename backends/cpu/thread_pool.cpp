#include "backends/cpu/thread_pool.hpp"

#include "backends/cpu/threading.hpp"

#include <cfenv>

namespace specula::backends::cpu
{
    thread_pool::thread_pool(int lanes) : m_lanes(lanes < 1 ? 1 : lanes)
    {
        for (int lane = 1; lane < m_lanes; ++lane)
        {
            m_threads.emplace_back([this, lane] { worker(lane); });
        }
    }

    thread_pool::~thread_pool()
    {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_stop = true;
        }
        m_wake.notify_all();
        for (auto& t : m_threads)
        {
            t.join();
        }
    }

    thread_pool& thread_pool::shared()
    {
        static thread_pool pool(thread_budget());
        return pool;
    }

    void thread_pool::run_ref(job_ref job)
    {
        std::unique_lock<std::mutex> lock(m_mutex);
        if (m_lanes == 1 || m_busy)
        {
            // Nested or concurrent use: run every lane inline, same result.
            lock.unlock();
            for (int lane = 0; lane < m_lanes; ++lane)
            {
                job(lane);
            }
            return;
        }
        m_busy = true;
        m_job = job;
        m_pending = m_lanes - 1;
        m_fp_flags = 0;
        ++m_generation;
        lock.unlock();
        m_wake.notify_all();
        job(0);
        lock.lock();
        m_done.wait(lock, [this] { return m_pending == 0; });
        m_job = job_ref{};
        m_busy = false;
        // The workers' IEEE flags become the caller's: the engine reads the
        // calling thread's flags to decide whether NumPy would have warned.
        if (m_fp_flags != 0)
        {
            std::feraiseexcept(m_fp_flags);
        }
    }

    void thread_pool::worker(int lane)
    {
        std::uint64_t seen = 0;
        std::unique_lock<std::mutex> lock(m_mutex);
        for (;;)
        {
            // Blocking wait (no spinning): an idle worker costs nothing.
            m_wake.wait(lock, [&] { return m_stop || m_generation != seen; });
            if (m_stop)
            {
                return;
            }
            seen = m_generation;
            const job_ref job = m_job;
            lock.unlock();
            std::feclearexcept(FE_ALL_EXCEPT);
            job(lane);
            const int flags = std::fetestexcept(FE_ALL_EXCEPT);
            lock.lock();
            m_fp_flags |= flags;
            if (--m_pending == 0)
            {
                m_done.notify_one();
            }
        }
    }
} // namespace specula::backends::cpu
