// Errors as values: the IR never throws or aborts on user-facing errors.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace specula::ir
{
    // A failure with a human-readable message. An empty message means success.
    class status
    {
    public:
        status() = default;
        static status success() { return status(); }
        static status error(std::string message) { return status(std::move(message), true); }

        bool ok() const { return !m_failed; }
        explicit operator bool() const { return ok(); }
        const std::string& message() const { return m_message; }

    private:
        status(std::string message, bool failed) : m_message(std::move(message)), m_failed(failed)
        {
        }

        std::string m_message;
        bool m_failed = false;
    };

    // Tag to build a failed result<T>: `return error("rank mismatch");`
    struct error
    {
        std::string message;
    };

    // Either a T or an error message.
    template <class T>
    class result
    {
    public:
        result(T value) : m_data(std::move(value)) {}
        result(error err) : m_data(std::move(err)) {}
        result(const status& st) : m_data(error{st.message()}) {}

        bool ok() const { return m_data.index() == 0; }
        explicit operator bool() const { return ok(); }
        T& value() { return std::get<0>(m_data); }
        const T& value() const { return std::get<0>(m_data); }
        T& operator*() { return value(); }
        const T& operator*() const { return value(); }
        T* operator->() { return &value(); }
        const T* operator->() const { return &value(); }
        const std::string& message() const { return std::get<1>(m_data).message; }
        status to_status() const { return ok() ? status::success() : status::error(message()); }

    private:
        std::variant<T, error> m_data;
    };
} // namespace specula::ir
