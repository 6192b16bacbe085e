// When two guards assume the same thing: a specialisation is built by a
// converter that reads the same source again and again (every inlined call
// of `sigmoid` reads G[sigmoid] and G[np].exp once more, every unrolled
// iteration the same globals), and each read adds its guard. guard_set::add
// keeps the first of equal guards only, so check() runs once per assumption.
// Cold code: runs while converting, never on the call path.
#include "engine/guards.hpp"

namespace specula::engine
{
    namespace
    {
        bool same_expr(const int_expr& a, const int_expr& b)
        {
            if (&a == &b)
            {
                return true;
            }
            if (a.k != b.k || a.src != b.src || a.value != b.value || !a.a != !b.a || !a.b != !b.b)
            {
                return false;
            }
            return (!a.a || same_expr(*a.a, *b.a)) && (!a.b || same_expr(*a.b, *b.b));
        }

        // Both tuples hold exact str/int keys (make_dict_keys_guard): comparing
        // them runs no user code.
        bool same_keys(PyObject* a, PyObject* b)
        {
            if (a == b)
            {
                return true;
            }
            const Py_ssize_t n = PyTuple_GET_SIZE(a);
            if (n != PyTuple_GET_SIZE(b))
            {
                return false;
            }
            for (Py_ssize_t i = 0; i < n; ++i)
            {
                PyObject* x = PyTuple_GET_ITEM(a, i);
                PyObject* y = PyTuple_GET_ITEM(b, i);
                if (x != y &&
                    (Py_TYPE(x) != Py_TYPE(y) || PyObject_RichCompareBool(x, y, Py_EQ) != 1))
                {
                    PyErr_Clear(); // exact str/int: nothing but a failed allocation
                    return false;
                }
            }
            return true;
        }

        // (No) overlap and identity are symmetric: `a / b` and `b / a` are one guard.
        bool same_pair(const guard& a, const guard& b)
        {
            return (a.src == b.src && a.other == b.other) || (a.src == b.other && a.other == b.src);
        }
    } // namespace

    bool same_guard(const guard& a, const guard& b)
    {
        if (a.kind != b.kind)
        {
            return false;
        }
        switch (a.kind)
        {
        case guard_kind::no_overlap:
        case guard_kind::overlap:
        case guard_kind::distinct:
        case guard_kind::same:
            return same_pair(a, b);
        case guard_kind::int_predicate:
            return a.int_value == b.int_value && a.expr && b.expr && same_expr(*a.expr, *b.expr);
        default:
            break;
        }
        if (a.src != b.src)
        {
            return false;
        }
        switch (a.kind)
        {
        case guard_kind::type_is:
        case guard_kind::identity:
            return a.p_expected == b.p_expected;
        case guard_kind::array_meta:
            return a.type_num == b.type_num && a.dims == b.dims && a.writeable == b.writeable &&
                   a.c_contiguous == b.c_contiguous;
        case guard_kind::int_value:
        case guard_kind::length:
            return a.int_value == b.int_value;
        case guard_kind::int_range:
            return a.int_value == b.int_value && a.int_hi == b.int_hi;
        case guard_kind::float_value:
            return a.float_bits == b.float_bits;
        case guard_kind::str_value:
            return a.p_expected == b.p_expected ||
                   PyUnicode_Compare(a.p_expected, b.p_expected) == 0;
        case guard_kind::dict_keys:
            return same_keys(a.p_expected, b.p_expected);
        default:
            return false;
        }
    }
} // namespace specula::engine
