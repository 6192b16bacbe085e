#ifndef SPECULA_KERNEL_HISTORY_MANAGER_HPP
#define SPECULA_KERNEL_HISTORY_MANAGER_HPP

#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <xeus/xhistory_manager.hpp>

namespace specula::kernel
{
    namespace nl = nlohmann;

    // In-memory history of this kernel session, answering history_request
    // with replies shaped as the messaging protocol (v5.3) says.
    //
    // xeus 2.4 calls store_inputs() with the execute_request's (absent)
    // "execution_count" field, i.e. always 1, so the line number comes from
    // the interpreter instead: it calls begin_cell() with the real count
    // before running a cell. Outputs are not logged (as in ipykernel, whose
    // IPython history has db_log_output off), so output rows carry null.
    class history_manager final : public xeus::xhistory_manager
    {
    public:
        // Session numbers are 1-based as in IPython; 0 in a request means
        // "the current session" and negative numbers count back from it.
        static constexpr int current_session = 1;

        history_manager() = default;

        void begin_cell(int execution_count);

    private:
        struct entry
        {
            int line;
            std::string input;
        };

        void configure_impl() override;
        void store_inputs_impl(int session, int line_num, const std::string& input,
                               const std::string& output) override;
        nl::json get_tail_impl(int n, bool raw, bool output) const override;
        nl::json get_range_impl(int session, int start, int stop, bool raw,
                                bool output) const override;
        nl::json search_impl(const std::string& pattern, bool raw, bool output, int n,
                             bool unique) const override;

        nl::json row(const entry& e, bool output) const;
        static nl::json reply(nl::json rows);

        mutable std::mutex m_mutex;
        std::vector<entry> m_entries;
        int m_pending_line = 0;
    };

    // Glob match with IPython's history-search syntax: '*' is any run of
    // characters and '?' any one character; the whole input must match.
    bool glob_match(const std::string& pattern, const std::string& text);
} // namespace specula::kernel

#endif
