#include "kernel/history_manager.hpp"

#include <algorithm>
#include <set>

namespace specula::kernel
{
    bool glob_match(const std::string& pattern, const std::string& text)
    {
        // Iterative matcher with one backtrack point: linear in practice and
        // no recursion on long cells.
        std::size_t p = 0;
        std::size_t t = 0;
        std::size_t star = std::string::npos;
        std::size_t resume = 0;
        while (t < text.size())
        {
            if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t]))
            {
                ++p;
                ++t;
            }
            else if (p < pattern.size() && pattern[p] == '*')
            {
                star = p++;
                resume = t;
            }
            else if (star != std::string::npos)
            {
                p = star + 1;
                t = ++resume;
            }
            else
            {
                return false;
            }
        }
        while (p < pattern.size() && pattern[p] == '*')
        {
            ++p;
        }
        return p == pattern.size();
    }

    void history_manager::begin_cell(int execution_count)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_pending_line = execution_count;
    }

    void history_manager::configure_impl() {}

    void history_manager::store_inputs_impl(int /*session*/, int line_num, const std::string& input,
                                            const std::string& /*output*/)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        int line = m_pending_line > 0 ? m_pending_line : line_num;
        m_entries.push_back({line, input});
        m_pending_line = 0;
    }

    nl::json history_manager::row(const entry& e, bool output) const
    {
        if (output)
        {
            nl::json pair = nl::json::array({e.input, nullptr});
            return nl::json::array({current_session, e.line, pair});
        }
        return nl::json::array({current_session, e.line, e.input});
    }

    nl::json history_manager::reply(nl::json rows)
    {
        return nl::json{{"status", "ok"}, {"history", std::move(rows)}};
    }

    nl::json history_manager::get_tail_impl(int n, bool /*raw*/, bool output) const
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        nl::json rows = nl::json::array();
        std::size_t count = n < 0 ? 0 : static_cast<std::size_t>(n);
        std::size_t first = m_entries.size() > count ? m_entries.size() - count : 0;
        for (std::size_t i = first; i < m_entries.size(); ++i)
        {
            rows.push_back(row(m_entries[i], output));
        }
        return reply(std::move(rows));
    }

    nl::json history_manager::get_range_impl(int session, int start, int stop, bool /*raw*/,
                                             bool output) const
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        nl::json rows = nl::json::array();
        // Only the current session lives in memory; earlier ones have nothing.
        if (session != 0 && session != current_session)
        {
            return reply(std::move(rows));
        }
        for (const entry& e : m_entries)
        {
            // IPython's convention: stop is exclusive; stop <= 0 means no bound.
            if (e.line >= start && (stop <= 0 || e.line < stop))
            {
                rows.push_back(row(e, output));
            }
        }
        return reply(std::move(rows));
    }

    nl::json history_manager::search_impl(const std::string& pattern, bool /*raw*/, bool output,
                                          int n, bool unique) const
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        std::string glob = pattern.empty() ? "*" : pattern;
        std::vector<const entry*> hits;
        std::set<std::string> seen;
        // Newest first so that `unique` keeps each input's latest line and
        // `n` keeps the latest n, as IPython's search does.
        for (auto it = m_entries.rbegin(); it != m_entries.rend(); ++it)
        {
            if (!glob_match(glob, it->input))
            {
                continue;
            }
            if (unique && !seen.insert(it->input).second)
            {
                continue;
            }
            hits.push_back(&*it);
            if (n > 0 && static_cast<int>(hits.size()) == n)
            {
                break;
            }
        }
        std::reverse(hits.begin(), hits.end());
        nl::json rows = nl::json::array();
        for (const entry* e : hits)
        {
            rows.push_back(row(*e, output));
        }
        return reply(std::move(rows));
    }
} // namespace specula::kernel
