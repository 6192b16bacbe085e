#ifndef SPECULA_KERNEL_REPORT_TABLE_HPP
#define SPECULA_KERNEL_REPORT_TABLE_HPP

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace specula::kernel
{
    // One row of specula.report(), as the magic shows it.
    struct report_row
    {
        std::string name;
        std::string file;
        std::int64_t line = 0;
        std::string kind;
        std::string state;
        std::int64_t graph_runs = 0;
        std::int64_t fallbacks = 0;
        std::int64_t guard_misses = 0;
        std::int64_t assert_failures = 0;
        std::optional<std::string> reason;
        // Estimated seconds the graphs saved against CPython (engine/README.md,
        // "Time saved"); unknown until a situation has both medians.
        std::optional<double> time_saved_s;
        // Calls the cost check sent to CPython (not fallbacks: a choice).
        std::int64_t cost_cpython_calls = 0;
        // Wall-clock totals of the timed graph and CPython calls.
        double time_graph_s = 0.0;
        double time_cpython_s = 0.0;
        double time_compile_s = 0.0;
    };

    // "12.3 ms", "-0.41 ms", "2.05 s", "-" when unknown.
    std::string format_time_saved(std::optional<double> seconds);
    // "7 ms / 30.2 ms / 12 ms": time in graphs, in CPython, and compiling.
    std::string format_time_split(double graph_s, double cpython_s, double compile_s);

    // Names notebook cells by execution count: IPython compiles each cell
    // under a temporary file name, which means nothing to the user.
    class cell_names
    {
    public:
        void record(const std::string& file, int execution_count);
        // "In [3], line 7" for a cell, "file.py:7" otherwise.
        std::string location(const std::string& file, std::int64_t line) const;
        // `text` with every "<cell file>:<line>" written as a location.
        std::string rewrite(const std::string& text) const;
        // The file cell `execution_count` was compiled under, if known.
        std::optional<std::string> file_of(int execution_count) const;

    private:
        std::map<std::string, int> m_count_of_file;
    };

    // A cell location as the report writes it, "In [3], line 7" (quotes,
    // spaces and a missing ", line k" tolerated; INT_MAX then, meaning the
    // end of the cell): {3, 7}.
    std::optional<std::pair<int, int>> parse_cell_location(const std::string& text);

    // The plain-text table `%specula report` prints.
    std::string format_report_table(const std::vector<report_row>& rows, const cell_names& cells);
} // namespace specula::kernel

#endif
