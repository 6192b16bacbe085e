#include "kernel/report_table.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdio>
#include <regex>
#include <sstream>

namespace specula::kernel
{
    void cell_names::record(const std::string& file, int execution_count)
    {
        m_count_of_file[file] = execution_count;
    }

    std::string cell_names::location(const std::string& file, std::int64_t line) const
    {
        auto it = m_count_of_file.find(file);
        if (it != m_count_of_file.end())
        {
            return "In [" + std::to_string(it->second) + "], line " + std::to_string(line);
        }
        auto slash = file.rfind('/');
        std::string base = slash == std::string::npos ? file : file.substr(slash + 1);
        return base + ":" + std::to_string(line);
    }

    std::string cell_names::rewrite(const std::string& text) const
    {
        std::string out = text;
        for (const auto& [file, count] : m_count_of_file)
        {
            std::size_t at = 0;
            while ((at = out.find(file + ":", at)) != std::string::npos)
            {
                std::size_t digits = at + file.size() + 1;
                std::size_t end = digits;
                while (end < out.size() && out[end] >= '0' && out[end] <= '9')
                {
                    ++end;
                }
                if (end == digits)
                {
                    at = digits;
                    continue;
                }
                std::string where = location(file, std::stoll(out.substr(digits, end - digits)));
                out.replace(at, end - at, where);
                at += where.size();
            }
        }
        return out;
    }

    std::optional<std::string> cell_names::file_of(int execution_count) const
    {
        for (const auto& [file, count] : m_count_of_file)
        {
            if (count == execution_count)
            {
                return file;
            }
        }
        return std::nullopt;
    }

    std::optional<std::pair<int, int>> parse_cell_location(const std::string& text)
    {
        static const std::regex pattern(
            R"(^\s*["']?\s*In\s*\[\s*(\d+)\s*\]\s*(?:,\s*line\s+(\d+))?\s*["']?\s*$)");
        std::smatch m;
        if (!std::regex_match(text, m, pattern))
        {
            return std::nullopt;
        }
        int line = m[2].matched ? std::stoi(m[2].str()) : INT_MAX;
        return std::make_pair(std::stoi(m[1].str()), line);
    }

    std::string format_time_saved(std::optional<double> seconds)
    {
        if (!seconds)
        {
            return "-";
        }
        double s = *seconds;
        bool whole_seconds = s >= 1.0 || s <= -1.0;
        char text[32];
        std::snprintf(text, sizeof text, "%.3g %s", whole_seconds ? s : s * 1e3,
                      whole_seconds ? "s" : "ms");
        return text;
    }

    std::string format_time_split(double graph_s, double cpython_s, double compile_s)
    {
        auto one = [](double s) { return s == 0.0 ? std::string("0") : format_time_saved(s); };
        return one(graph_s) + " / " + one(cpython_s) + " / " + one(compile_s);
    }

    namespace
    {
        constexpr std::size_t column_count = 10;

        // "3", or "3 (+25 by cost)" when the cost check chose CPython too.
        std::string fallbacks_cell(const report_row& row)
        {
            std::string cell = std::to_string(row.fallbacks);
            if (row.cost_cpython_calls > 0)
            {
                cell += " (+" + std::to_string(row.cost_cpython_calls) + " by cost)";
            }
            return cell;
        }
        using table_line = std::array<std::string, column_count>;

        table_line cells_of(const report_row& row, const cell_names& cells)
        {
            return {row.name,
                    cells.location(row.file, row.line),
                    row.kind,
                    row.state,
                    std::to_string(row.graph_runs),
                    fallbacks_cell(row),
                    std::to_string(row.guard_misses) + "/" + std::to_string(row.assert_failures),
                    format_time_split(row.time_graph_s, row.time_cpython_s, row.time_compile_s),
                    format_time_saved(row.time_saved_s),
                    cells.rewrite(row.reason.value_or(""))};
        }

        void append_line(std::ostringstream& out, const table_line& line,
                         const std::array<std::size_t, column_count>& widths)
        {
            for (std::size_t c = 0; c < column_count; ++c)
            {
                out << line[c];
                if (c + 1 < column_count)
                {
                    out << std::string(widths[c] - line[c].size() + 2, ' ');
                }
            }
            out << '\n';
        }
    } // namespace

    std::string format_report_table(const std::vector<report_row>& rows, const cell_names& cells)
    {
        if (rows.empty())
        {
            return "No region has become hot yet: every call so far ran in CPython.\n";
        }
        std::vector<table_line> lines = {
            {"region", "where", "kind", "state", "graph runs", "fallbacks", "misses/asserts",
             "time graph / CPython / compiling", "time saved", "reason"}};
        for (const report_row& row : rows)
        {
            lines.push_back(cells_of(row, cells));
        }
        std::array<std::size_t, column_count> widths{};
        for (const table_line& line : lines)
        {
            for (std::size_t c = 0; c < column_count; ++c)
            {
                widths[c] = std::max(widths[c], line[c].size());
            }
        }
        std::ostringstream out;
        for (const table_line& line : lines)
        {
            append_line(out, line, widths);
        }
        return out.str();
    }
} // namespace specula::kernel
