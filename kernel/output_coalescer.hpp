#ifndef SPECULA_KERNEL_OUTPUT_COALESCER_HPP
#define SPECULA_KERNEL_OUTPUT_COALESCER_HPP

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace specula::kernel
{
    // Gathers the many small writes a `print` makes (one per argument,
    // separator and end) into one stream message, and publishes pending text
    // on a timer so that a long cell still shows its progress.
    //
    // Stream messages carry the parent header of the current request, which
    // is only stable while a cell runs; so the timer publishes only between
    // begin_cell() and end_cell(), and text written between cells waits for
    // the next cell.
    class output_coalescer
    {
    public:
        // Called with the stream name ("stdout"/"stderr") and the text; never
        // with empty text. Must be safe to call from the timer thread.
        using sink_type = std::function<void(const std::string&, const std::string&)>;
        using clock = std::chrono::steady_clock;

        struct timing
        {
            // Pending text older than this is published by the timer.
            std::chrono::milliseconds max_delay{100};
            // A line still being written (no newline yet, last write this
            // recent) is left alone so a print is not split in two.
            std::chrono::milliseconds quiet{10};
            // Past this size text is published at once by the writer.
            std::size_t max_pending = std::size_t{64} * 1024;
        };

        output_coalescer(sink_type sink, timing t);
        explicit output_coalescer(sink_type sink);
        ~output_coalescer();

        output_coalescer(const output_coalescer&) = delete;
        output_coalescer& operator=(const output_coalescer&) = delete;
        output_coalescer(output_coalescer&&) = delete;
        output_coalescer& operator=(output_coalescer&&) = delete;

        void write(const std::string& stream, std::string_view text);
        void flush();

        void begin_cell();
        // Publishes everything pending, then stops the timer from publishing.
        void end_cell();

        // Starts the timer thread; without it text goes out only on flush(),
        // end_cell() or when max_pending is reached.
        void start_timer();
        void stop_timer();

    private:
        void flush_locked();
        bool timer_should_flush(clock::time_point now) const;
        void timer_loop();

        sink_type m_sink;
        timing m_timing;

        std::mutex m_mutex;
        std::condition_variable m_wake;
        std::string m_stream;
        std::string m_pending;
        clock::time_point m_first_write{};
        clock::time_point m_last_write{};
        bool m_in_cell = false;
        bool m_stop = false;
        std::thread m_timer;
    };
} // namespace specula::kernel

#endif
