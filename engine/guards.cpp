#include "engine/guards.hpp"

#include <cstring>
#include <sstream>

#include "engine/numpy_api.hpp"

namespace specula::engine
{
    namespace
    {
        bool check_array(const guard& g, PyObject* x, std::int64_t* symbols)
        {
            if (!PyArray_CheckExact(x))
            {
                return false;
            }
            auto* a = reinterpret_cast<PyArrayObject*>(x);
            if (PyArray_DESCR(a)->type_num != g.type_num ||
                PyArray_NDIM(a) != static_cast<int>(g.dims.size()) || !PyArray_ISNOTSWAPPED(a) ||
                !PyArray_ISALIGNED(a) || (g.writeable && !PyArray_ISWRITEABLE(a)) ||
                PyArray_IS_C_CONTIGUOUS(a) != g.c_contiguous)
            {
                return false;
            }
            const npy_intp* shape = PyArray_DIMS(a);
            const npy_intp* strides = PyArray_STRIDES(a);
            for (size_t i = 0; i < g.dims.size(); ++i)
            {
                std::int64_t want = g.dims[i];
                if (strides[i] < 0)
                {
                    return false;
                }
                if (want >= 0)
                {
                    if (shape[i] != want)
                    {
                        return false;
                    }
                    continue;
                }
                // A symbolic dim: never 1 (the graph may have assumed no
                // broadcast), and equal wherever the same symbol appears.
                std::int64_t& bound = symbols[-1 - want];
                if (shape[i] == 1 || (bound >= 0 && bound != shape[i]))
                {
                    return false;
                }
                bound = shape[i];
            }
            return true;
        }

        // [lo, hi) of the bytes an array may touch.
        void byte_bounds(PyArrayObject* a, std::intptr_t& lo, std::intptr_t& hi)
        {
            lo = reinterpret_cast<std::intptr_t>(PyArray_DATA(a));
            hi = lo + static_cast<std::intptr_t>(PyArray_ITEMSIZE(a));
            for (int i = 0; i < PyArray_NDIM(a); ++i)
            {
                npy_intp n = PyArray_DIMS(a)[i];
                npy_intp s = PyArray_STRIDES(a)[i];
                if (n == 0)
                {
                    hi = lo;
                    return;
                }
                if (s >= 0)
                {
                    hi += s * (n - 1);
                }
                else
                {
                    lo += s * (n - 1);
                }
            }
        }

        bool bounds_overlap(PyObject* x, PyObject* y)
        {
            if (!PyArray_Check(x) || !PyArray_Check(y))
            {
                return x == y;
            }
            std::intptr_t xl, xh, yl, yh;
            byte_bounds(reinterpret_cast<PyArrayObject*>(x), xl, xh);
            byte_bounds(reinterpret_cast<PyArrayObject*>(y), yl, yh);
            return xl < yh && yl < xh;
        }

        bool check_int(const guard& g, PyObject* x)
        {
            if (!PyLong_CheckExact(x))
            {
                return false;
            }
            int overflow = 0;
            long long v = PyLong_AsLongLongAndOverflow(x, &overflow);
            return overflow == 0 && v == g.int_value;
        }

        bool check_int_range(const guard& g, PyObject* x)
        {
            if (!PyLong_CheckExact(x))
            {
                return false; // bool is a subclass: not exact
            }
            int overflow = 0;
            long long v = PyLong_AsLongLongAndOverflow(x, &overflow);
            return overflow == 0 && v >= g.int_value && v <= g.int_hi;
        }

        bool check_float(const guard& g, PyObject* x)
        {
            if (!PyFloat_CheckExact(x))
            {
                return false;
            }
            double v = PyFloat_AS_DOUBLE(x);
            std::uint64_t bits;
            std::memcpy(&bits, &v, sizeof bits);
            return bits == g.float_bits;
        }

        std::string describe(PyObject* x)
        {
            if (x == nullptr)
            {
                return "<missing>";
            }
            std::string type = Py_TYPE(x)->tp_name;
            if (PyArray_Check(x))
            {
                auto* a = reinterpret_cast<PyArrayObject*>(x);
                std::ostringstream out;
                out << type << " " << PyArray_DESCR(a)->typeobj->tp_name << "(";
                for (int i = 0; i < PyArray_NDIM(a); ++i)
                {
                    out << (i ? "," : "") << PyArray_DIMS(a)[i];
                }
                out << ")";
                return out.str();
            }
            return type;
        }
    } // namespace

    namespace
    {
        // Borrowed `x` and `keys` (a tuple of exact str/int): no user code runs.
        bool check_dict_keys(PyObject* x, PyObject* keys)
        {
            if (!PyDict_CheckExact(x) || PyDict_GET_SIZE(x) != PyTuple_GET_SIZE(keys))
            {
                return false;
            }
            Py_ssize_t pos = 0;
            PyObject* key = nullptr;
            for (Py_ssize_t i = 0; PyDict_Next(x, &pos, &key, nullptr); ++i)
            {
                PyObject* want = PyTuple_GET_ITEM(keys, i);
                if (key == want)
                {
                    continue;
                }
                if (Py_TYPE(key) != Py_TYPE(want))
                {
                    return false;
                }
                const bool equal =
                    PyUnicode_CheckExact(key)
                        ? PyUnicode_Compare(key, want) == 0
                        : PyLong_CheckExact(key) && PyObject_RichCompareBool(key, want, Py_EQ) == 1;
                if (!equal)
                {
                    return false;
                }
            }
            return true;
        }
    } // namespace

    bool guard::check(PyObject* const* values, std::int64_t* symbols) const
    {
        PyObject* x = values[src];
        if (x == nullptr)
        {
            return false;
        }
        switch (kind)
        {
        case guard_kind::type_is:
            return Py_TYPE(x) == reinterpret_cast<PyTypeObject*>(p_expected);
        case guard_kind::identity:
            return x == p_expected;
        case guard_kind::array_meta:
            return check_array(*this, x, symbols);
        case guard_kind::int_value:
            return check_int(*this, x);
        case guard_kind::int_range:
            return check_int_range(*this, x);
        case guard_kind::float_value:
            return check_float(*this, x);
        case guard_kind::str_value:
            return PyUnicode_CheckExact(x) && PyUnicode_Compare(x, p_expected) == 0;
        case guard_kind::no_overlap:
            return values[other] != nullptr && !bounds_overlap(x, values[other]);
        case guard_kind::overlap:
            return values[other] != nullptr && bounds_overlap(x, values[other]);
        case guard_kind::distinct:
            return x != values[other];
        case guard_kind::same:
            return x != nullptr && x == values[other];
        case guard_kind::length:
            return (PyList_CheckExact(x) || PyTuple_CheckExact(x)) && Py_SIZE(x) == int_value;
        case guard_kind::int_predicate:
        {
            std::int64_t r = 0;
            return evaluate(*expr, values, r) && (r != 0) == (int_value != 0);
        }
        case guard_kind::dict_keys:
            return check_dict_keys(x, p_expected);
        }
        return false;
    }

    std::string guard::explain(PyObject* const* values) const
    {
        PyObject* x = values != nullptr ? values[src] : nullptr;
        std::string seen = values != nullptr ? describe(x) : "";
        switch (kind)
        {
        case guard_kind::type_is:
            return "type of " + what + " changed (now " + seen + ")";
        case guard_kind::identity:
            return what + " was rebound";
        case guard_kind::array_meta:
            return "array " + what + " changed dtype/shape/layout (now " + seen + ")";
        case guard_kind::int_value:
            return "value of " + what + " changed (was " + std::to_string(int_value) + ")";
        case guard_kind::int_range:
            return "int " + what + " outside [" + std::to_string(int_value) + ", " +
                   std::to_string(int_hi) + "] (now " + seen + ")";
        case guard_kind::float_value:
        case guard_kind::str_value:
            return "value of " + what + " changed";
        case guard_kind::no_overlap:
            return "arrays alias: " + what;
        case guard_kind::overlap:
            return "arrays no longer alias: " + what;
        case guard_kind::distinct:
            return "objects alias: " + what;
        case guard_kind::same:
            return "no longer one object: " + what;
        case guard_kind::int_predicate:
            return "branch " + what + " is no longer " + (int_value != 0 ? "true" : "false");
        case guard_kind::length:
            return "length of " + what + " changed (was " + std::to_string(int_value) +
                   (x != nullptr && (PyList_Check(x) || PyTuple_Check(x))
                        ? ", now " + std::to_string(Py_SIZE(x))
                        : std::string()) +
                   ")";
        case guard_kind::dict_keys:
        {
            std::string now;
            if (x != nullptr && PyDict_CheckExact(x))
            {
                now = ", now " + std::string(py::str(py::tuple(
                                     py::reinterpret_borrow<py::dict>(x).attr("keys")())));
            }
            return "keys of " + what + " changed (was " + std::string(py::str(expected)) + now +
                   ")";
        }
        }
        return what;
    }

    guard make_dict_keys_guard(int src, PyObject* dict, std::string what)
    {
        guard g;
        g.kind = guard_kind::dict_keys;
        g.src = src;
        g.expected = py::tuple(py::reinterpret_borrow<py::dict>(dict).attr("keys")());
        g.p_expected = g.expected.ptr();
        g.what = std::move(what);
        return g;
    }

    guard make_type_guard(int src, PyTypeObject* type, std::string what)
    {
        guard g;
        g.kind = guard_kind::type_is;
        g.src = src;
        g.expected = py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(type));
        g.p_expected = g.expected.ptr();
        g.what = std::move(what);
        return g;
    }

    guard make_identity_guard(int src, PyObject* object, std::string what)
    {
        guard g;
        g.kind = guard_kind::identity;
        g.src = src;
        g.expected = py::reinterpret_borrow<py::object>(object);
        g.p_expected = g.expected.ptr();
        g.what = std::move(what);
        return g;
    }

    guard make_array_guard(int src, PyObject* array, const std::vector<int>& symbolic,
                           bool writeable, std::string what)
    {
        auto* a = reinterpret_cast<PyArrayObject*>(array);
        guard g;
        g.kind = guard_kind::array_meta;
        g.src = src;
        g.type_num = PyArray_DESCR(a)->type_num;
        for (int i = 0; i < PyArray_NDIM(a); ++i)
        {
            bool sym =
                i < static_cast<int>(symbolic.size()) && symbolic[static_cast<size_t>(i)] >= 0;
            g.dims.push_back(sym ? -1 - symbolic[static_cast<size_t>(i)] : PyArray_DIMS(a)[i]);
        }
        g.writeable = writeable;
        g.c_contiguous = PyArray_IS_C_CONTIGUOUS(a);
        g.what = std::move(what);
        return g;
    }

    guard make_int_range_guard(int src, long long lo, long long hi, std::string what)
    {
        guard g;
        g.kind = guard_kind::int_range;
        g.src = src;
        g.int_value = lo;
        g.int_hi = hi;
        g.what = std::move(what);
        return g;
    }

    guard make_int_predicate_guard(int_expr_ptr expr, bool taken)
    {
        guard g;
        g.kind = guard_kind::int_predicate;
        const int_expr* leaf = expr.get();
        auto has_src = [](const int_expr* e)
        { return e->k == int_expr::kind::leaf || e->k == int_expr::kind::length; };
        while (!has_src(leaf) && leaf->k != int_expr::kind::constant)
        {
            // `not` has no `b`.
            leaf =
                leaf->a->k == int_expr::kind::constant && leaf->b ? leaf->b.get() : leaf->a.get();
        }
        // check() reads values[src] first: any resolved source will do.
        g.src = has_src(leaf) ? leaf->src : 0;
        g.int_value = taken ? 1 : 0;
        g.what = expr->text;
        g.expr = std::move(expr);
        return g;
    }

    guard make_length_guard(int src, long long length, std::string what)
    {
        guard g;
        g.kind = guard_kind::length;
        g.src = src;
        g.int_value = length;
        g.what = std::move(what);
        return g;
    }

    guard make_value_guard(int src, PyObject* value, std::string what)
    {
        guard g;
        g.src = src;
        g.what = std::move(what);
        g.expected = py::reinterpret_borrow<py::object>(value);
        g.p_expected = g.expected.ptr();
        if (PyLong_CheckExact(value))
        {
            g.kind = guard_kind::int_value;
            g.int_value = PyLong_AsLongLong(value);
        }
        else if (PyFloat_CheckExact(value))
        {
            g.kind = guard_kind::float_value;
            double v = PyFloat_AS_DOUBLE(value);
            std::memcpy(&g.float_bits, &v, sizeof v);
        }
        else if (PyUnicode_CheckExact(value))
        {
            g.kind = guard_kind::str_value;
        }
        else
        {
            g.kind = guard_kind::identity;
        }
        return g;
    }

    guard make_no_overlap_guard(int a, int b, std::string what)
    {
        guard g;
        g.kind = guard_kind::no_overlap;
        g.src = a;
        g.other = b;
        g.what = std::move(what);
        return g;
    }

    guard make_distinct_guard(int a, int b, std::string what)
    {
        guard g = make_no_overlap_guard(a, b, std::move(what));
        g.kind = guard_kind::distinct;
        return g;
    }

    guard make_overlap_guard(int a, int b, std::string what)
    {
        guard g = make_no_overlap_guard(a, b, std::move(what));
        g.kind = guard_kind::overlap;
        return g;
    }

    guard make_same_guard(int a, int b, std::string what)
    {
        guard g = make_no_overlap_guard(a, b, std::move(what));
        g.kind = guard_kind::same;
        return g;
    }

    bool arrays_overlap(PyObject* x, PyObject* y)
    {
        return bounds_overlap(x, y);
    }

    void guard_set::add(guard g)
    {
        bool cross_source = g.kind == guard_kind::no_overlap || g.kind == guard_kind::distinct ||
                            g.kind == guard_kind::int_predicate || g.kind == guard_kind::overlap ||
                            g.kind == guard_kind::same;
        if (!cross_source && static_cast<int>(per_source.size()) <= g.src)
        {
            per_source.resize(static_cast<size_t>(g.src) + 1);
        }
        auto& list = cross_source ? cross : per_source[static_cast<size_t>(g.src)];
        for (const guard& kept : list)
        {
            if (same_guard(kept, g))
            {
                return;
            }
        }
        list.push_back(std::move(g));
    }

    std::size_t guard_set::promote(int source, std::size_t index)
    {
        auto& list = source >= 0 ? per_source[static_cast<size_t>(source)] : cross;
        if (index > 0 && index < list.size() && list[index].failures > list[0].failures)
        {
            std::swap(list[0], list[index]);
            return 0;
        }
        return index;
    }

    std::size_t guard_set::count() const
    {
        std::size_t n = cross.size();
        for (const auto& l : per_source)
        {
            n += l.size();
        }
        return n;
    }

    std::string guard_set::dump() const
    {
        std::ostringstream out;
        auto line = [&](const guard& g)
        {
            static const char* names[] = {"type_is",     "identity",  "array_meta",    "int_value",
                                          "float_value", "str_value", "no_overlap",    "distinct",
                                          "int_range",   "length",    "int_predicate", "dict_keys",
                                          "overlap",     "same"};
            out << "  guard " << names[static_cast<int>(g.kind)] << " " << g.what;
            if (g.kind == guard_kind::length)
            {
                out << " == " << g.int_value;
            }
            if (g.kind == guard_kind::array_meta)
            {
                out << " dims=(";
                for (size_t i = 0; i < g.dims.size(); ++i)
                {
                    out << (i ? "," : "")
                        << (g.dims[i] >= 0 ? std::to_string(g.dims[i])
                                           : "?" + std::to_string(-1 - g.dims[i]));
                }
                out << ")" << (g.writeable ? " writeable" : "");
            }
            out << "\n";
        };
        for (const auto& l : per_source)
        {
            for (const auto& g : l)
            {
                line(g);
            }
        }
        for (const auto& g : cross)
        {
            line(g);
        }
        return out.str();
    }
} // namespace specula::engine
