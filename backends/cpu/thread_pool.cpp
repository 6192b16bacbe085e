#include "backends/cpu/thread_pool.hpp"

#include "backends/cpu/threading.hpp"
#include "backends/thread_signals.hpp"

#include <algorithm>
#include <cfenv>
#include <pthread.h>
#include <string>

namespace specula::backends::cpu
{
    thread_pool::thread_pool(int lanes) : m_lanes(lanes < 1 ? 1 : lanes)
    {
        // Lanes inherit this mask: no process signal may land on a lane
        // (thread_signals.hpp).
        async_signals_blocked quiet;
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

    void thread_pool::work(const job_ref& job, int lane)
    {
        for (;;)
        {
            const std::int64_t c = m_next.fetch_add(1, std::memory_order_relaxed);
            if (c >= m_chunks)
            {
                return;
            }
            job(lane, m_items * c / m_chunks, m_items * (c + 1) / m_chunks);
        }
    }

    void thread_pool::run_ref(job_ref job, std::int64_t items, std::int64_t item_cost)
    {
        if (items <= 0)
        {
            return;
        }
        const std::int64_t by_cost = std::max<std::int64_t>(
            1, items * std::max<std::int64_t>(item_cost, 1) / min_chunk_cost);
        const std::int64_t chunks = std::min({items, by_cost, m_lanes * chunks_per_lane});
        std::unique_lock<std::mutex> lock(m_mutex);
        if (m_lanes == 1 || m_busy || chunks == 1)
        {
            // One lane, nested or concurrent use, or too little work: inline.
            lock.unlock();
            job(0, 0, items);
            return;
        }
        m_busy = true;
        m_job = job;
        m_items = items;
        m_chunks = chunks;
        m_next.store(0, std::memory_order_relaxed);
        m_fp_flags = 0;
        m_open = ++m_generation;
        lock.unlock();
        m_wake.notify_all();
        work(job, 0);
        lock.lock();
        // Every chunk is claimed: close the job to workers that have not
        // joined yet and wait only for chunks workers are running.
        m_open = 0;
        m_done.wait(lock, [this] { return m_active == 0; });
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
        // Named so /proc/<pid>/task/*/comm tells our lanes from OpenBLAS's and
        // OpenMP's workers (the thread census and the budget's tests).
        const std::string name = "specula-lane" + std::to_string(lane);
        pthread_setname_np(pthread_self(), name.c_str());
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
            if (m_open != seen)
            {
                continue; // woke too late: the caller ran every chunk
            }
            ++m_active;
            const job_ref job = m_job;
            lock.unlock();
            std::feclearexcept(FE_ALL_EXCEPT);
            work(job, lane);
            const int flags = std::fetestexcept(FE_ALL_EXCEPT);
            lock.lock();
            m_fp_flags |= flags;
            if (--m_active == 0)
            {
                m_done.notify_one();
            }
        }
    }
} // namespace specula::backends::cpu
