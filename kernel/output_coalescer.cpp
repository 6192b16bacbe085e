#include "kernel/output_coalescer.hpp"

#include <utility>

namespace specula::kernel
{
    output_coalescer::output_coalescer(sink_type sink, timing t)
        : m_sink(std::move(sink)), m_timing(t)
    {
    }

    output_coalescer::output_coalescer(sink_type sink) : output_coalescer(std::move(sink), timing{})
    {
    }

    output_coalescer::~output_coalescer()
    {
        stop_timer();
    }

    void output_coalescer::write(const std::string& stream, std::string_view text)
    {
        if (text.empty())
        {
            return;
        }
        std::lock_guard<std::mutex> lock(m_mutex);
        // Switching between stdout and stderr publishes what came first, so
        // the two streams interleave in the order they were written.
        if (!m_pending.empty() && stream != m_stream)
        {
            flush_locked();
        }
        auto now = clock::now();
        bool was_empty = m_pending.empty();
        if (was_empty)
        {
            m_first_write = now;
        }
        m_last_write = now;
        m_stream = stream;
        m_pending.append(text);
        if (m_pending.size() >= m_timing.max_pending && m_in_cell)
        {
            flush_locked();
        }
        else if (was_empty)
        {
            m_wake.notify_all();
        }
    }

    void output_coalescer::flush()
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        flush_locked();
    }

    void output_coalescer::flush_locked()
    {
        if (m_pending.empty())
        {
            return;
        }
        std::string text;
        text.swap(m_pending);
        m_sink(m_stream, text);
    }

    void output_coalescer::begin_cell()
    {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_in_cell = true;
        }
        m_wake.notify_all();
    }

    void output_coalescer::end_cell()
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        flush_locked();
        m_in_cell = false;
    }

    bool output_coalescer::timer_should_flush(clock::time_point now) const
    {
        if (!m_in_cell || m_pending.empty() || now - m_first_write < m_timing.max_delay)
        {
            return false;
        }
        bool mid_line = m_pending.back() != '\n';
        return !(mid_line && now - m_last_write < m_timing.quiet);
    }

    void output_coalescer::timer_loop()
    {
        std::unique_lock<std::mutex> lock(m_mutex);
        while (!m_stop)
        {
            // Sleep until there is something to publish; poll only while
            // text is pending, so an idle kernel costs no wake-ups.
            if (m_pending.empty() || !m_in_cell)
            {
                m_wake.wait(lock);
                continue;
            }
            m_wake.wait_for(lock, m_timing.quiet);
            if (timer_should_flush(clock::now()))
            {
                flush_locked();
            }
        }
    }

    void output_coalescer::start_timer()
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (m_timer.joinable())
        {
            return;
        }
        m_stop = false;
        m_timer = std::thread([this] { timer_loop(); });
    }

    void output_coalescer::stop_timer()
    {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_stop = true;
        }
        m_wake.notify_all();
        if (m_timer.joinable())
        {
            m_timer.join();
        }
    }
} // namespace specula::kernel
