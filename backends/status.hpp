#pragma once

// Errors are values in the backends layer. `unimplemented` is an ordinary
// answer meaning "fall back" (to another backend or to CPython), never a crash.

#include <string>
#include <utility>
#include <variant>

namespace specula::backends
{
    enum class status_code
    {
        ok,
        unimplemented,    // this backend cannot do it: fall back
        invalid_argument, // the graph or the inputs do not fit the contract
        runtime_error,    // data-dependent failure NumPy would raise on (e.g. int ** -1)
        assert_failed,    // an in-graph assumption did not hold
        out_of_memory,
        interrupted, // the embedding's interrupt check asked the run to stop
        internal,    // a bug in Specula: log it, fall back, mark the region
    };

    const char* status_code_name(status_code c);

    class status
    {
    public:
        status() = default;
        status(status_code code, std::string message) : m_code(code), m_message(std::move(message))
        {
        }

        static status ok() { return {}; }
        static status unimplemented(std::string what)
        {
            return {status_code::unimplemented, std::move(what)};
        }
        static status invalid(std::string what)
        {
            return {status_code::invalid_argument, std::move(what)};
        }
        static status runtime(std::string what)
        {
            return {status_code::runtime_error, std::move(what)};
        }
        static status internal(std::string what)
        {
            return {status_code::internal, std::move(what)};
        }

        bool is_ok() const { return m_code == status_code::ok; }
        explicit operator bool() const { return is_ok(); }
        status_code code() const { return m_code; }
        const std::string& message() const { return m_message; }
        std::string to_string() const;

    private:
        status_code m_code = status_code::ok;
        std::string m_message;
    };

    // A value or the status saying why there is none.
    template <class T>
    class result
    {
    public:
        result(T value) : m_state(std::move(value)) {}
        result(status error) : m_state(std::move(error)) {}

        bool has_value() const { return m_state.index() == 0; }
        explicit operator bool() const { return has_value(); }
        T& value() { return std::get<0>(m_state); }
        const T& value() const { return std::get<0>(m_state); }
        T& operator*() { return value(); }
        T* operator->() { return &value(); }
        const status& error() const { return std::get<1>(m_state); }

    private:
        std::variant<T, status> m_state;
    };
} // namespace specula::backends
