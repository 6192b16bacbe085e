#include "engine/int_expr.hpp"

#include <cstring>

namespace specula::engine
{
    namespace
    {
        struct op_entry
        {
            const char* python;
            int_expr::kind k;
        };

        constexpr op_entry g_ops[] = {
            {"+", int_expr::kind::add},         {"-", int_expr::kind::sub},
            {"*", int_expr::kind::mul},         {"%", int_expr::kind::mod},
            {"//", int_expr::kind::floordiv},   {"==", int_expr::kind::eq},
            {"!=", int_expr::kind::ne},         {"<", int_expr::kind::lt},
            {"<=", int_expr::kind::le},         {">", int_expr::kind::gt},
            {">=", int_expr::kind::ge},         {"and", int_expr::kind::logical_and},
            {"or", int_expr::kind::logical_or},
        };

        // Python's floored quotient and remainder (the remainder takes the
        // divisor's sign); `d` is non-zero.
        void floored(__int128 n, __int128 d, __int128& q, __int128& r)
        {
            q = n / d;
            r = n % d;
            if (r != 0 && ((r < 0) != (d < 0)))
            {
                q -= 1;
                r += d;
            }
        }

        bool apply(int_expr::kind k, __int128 x, __int128 y, __int128& out)
        {
            __int128 q = 0;
            __int128 r = 0;
            switch (k)
            {
            case int_expr::kind::add:
                out = x + y;
                return true;
            case int_expr::kind::sub:
                out = x - y;
                return true;
            case int_expr::kind::mul:
                out = x * y;
                return true;
            case int_expr::kind::mod:
            case int_expr::kind::floordiv:
                if (y == 0)
                {
                    return false; // CPython raises ZeroDivisionError
                }
                floored(x, y, q, r);
                out = k == int_expr::kind::mod ? r : q;
                return true;
            case int_expr::kind::eq:
                out = x == y;
                return true;
            case int_expr::kind::ne:
                out = x != y;
                return true;
            case int_expr::kind::lt:
                out = x < y;
                return true;
            case int_expr::kind::le:
                out = x <= y;
                return true;
            case int_expr::kind::gt:
                out = x > y;
                return true;
            case int_expr::kind::ge:
                out = x >= y;
                return true;
            default:
                return false;
            }
        }
    } // namespace

    int_expr_ptr int_leaf(int src, PyObject* seen, const std::string& path)
    {
        auto e = std::make_shared<int_expr>();
        e->k = int_expr::kind::leaf;
        e->src = src;
        e->seen = pybind11::reinterpret_borrow<pybind11::object>(seen);
        e->text = path;
        return e;
    }

    int_expr_ptr int_length(int src, PyObject* seen, const std::string& path)
    {
        auto e = std::make_shared<int_expr>();
        e->k = int_expr::kind::length;
        e->src = src;
        e->seen = pybind11::reinterpret_borrow<pybind11::object>(seen);
        e->text = "len(" + path + ")";
        return e;
    }

    int_expr_ptr int_constant(std::int64_t value)
    {
        auto e = std::make_shared<int_expr>();
        e->value = value;
        e->text = std::to_string(value);
        return e;
    }

    int_expr_ptr int_binary(const char* op, int_expr_ptr a, int_expr_ptr b)
    {
        if (op == nullptr || !a || !b)
        {
            return nullptr;
        }
        for (const op_entry& o : g_ops)
        {
            if (std::strcmp(o.python, op) == 0)
            {
                auto e = std::make_shared<int_expr>();
                e->k = o.k;
                e->text = "(" + a->text + " " + op + " " + b->text + ")";
                e->a = std::move(a);
                e->b = std::move(b);
                return e;
            }
        }
        return nullptr;
    }

    int_expr_ptr int_not(int_expr_ptr a)
    {
        if (!a)
        {
            return nullptr;
        }
        auto e = std::make_shared<int_expr>();
        e->k = int_expr::kind::logical_not;
        e->text = "(not " + a->text + ")";
        e->a = std::move(a);
        return e;
    }

    bool evaluate(const int_expr& e, PyObject* const* values, std::int64_t& out)
    {
        if (e.k == int_expr::kind::constant)
        {
            out = e.value;
            return true;
        }
        if (e.k == int_expr::kind::leaf)
        {
            PyObject* x = values != nullptr ? values[e.src] : e.seen.ptr(); // borrowed
            if (x == nullptr || !PyLong_CheckExact(x))
            {
                return false; // bools and int subclasses included
            }
            int overflow = 0;
            long long v = PyLong_AsLongLongAndOverflow(x, &overflow);
            out = v;
            return overflow == 0 && !(v == -1 && PyErr_Occurred());
        }
        if (e.k == int_expr::kind::length)
        {
            PyObject* c = values != nullptr ? values[e.src] : e.seen.ptr(); // borrowed
            if (c == nullptr)
            {
                return false;
            }
            if (PyList_CheckExact(c) || PyTuple_CheckExact(c))
            {
                out = Py_SIZE(c);
                return true;
            }
            if (PyDict_CheckExact(c))
            {
                out = PyDict_GET_SIZE(c);
                return true;
            }
            return false;
        }
        std::int64_t x = 0;
        std::int64_t y = 0;
        __int128 r = 0;
        if (e.k == int_expr::kind::logical_not)
        {
            if (!evaluate(*e.a, values, x))
            {
                return false;
            }
            out = x == 0;
            return true;
        }
        if (e.k == int_expr::kind::logical_and || e.k == int_expr::kind::logical_or)
        {
            // Python's short circuit: `b` is not evaluated (and cannot fail)
            // when `a` decides.
            if (!evaluate(*e.a, values, x))
            {
                return false;
            }
            const bool decided = (x != 0) == (e.k == int_expr::kind::logical_or);
            if (decided)
            {
                out = x != 0;
                return true;
            }
            if (!evaluate(*e.b, values, y))
            {
                return false;
            }
            out = y != 0;
            return true;
        }
        if (!evaluate(*e.a, values, x) || !evaluate(*e.b, values, y) || !apply(e.k, x, y, r))
        {
            return false;
        }
        constexpr __int128 limit = static_cast<__int128>(1) << 62;
        if (r < -limit || r > limit)
        {
            return false;
        }
        out = static_cast<std::int64_t>(r);
        return true;
    }
} // namespace specula::engine
