// A Python int that changes between calls (relaxed: an int64 graph input
// guarded to [-2**31, 2**31), or an exact expression of such inputs) combined
// with arrays, without one specialisation per value.
//
// NumPy 1.24 promotes a Python int with an array by its value: the int counts
// as its smallest dtype (int8/16/32/64 when negative, uint8/16/32/64 from 0),
// so `float32_array * 300` stays float32 but `* 70000` gives float64, and
// `int32_array + 2**31` gives int64. The result dtype is therefore the same
// for every value of one such class, and grows along each chain. When it is
// the same over the int's whole range, the operation converts as it is; when
// not, the range is narrowed to the run of classes around the value seen at
// conversion that give one dtype, under an int_predicate guard on the int's
// expression (a value outside misses, and the next compile picks its own
// class). The int is cast to the result dtype (C's rounding, as NumPy's cast;
// exact wherever the dtype holds it) and the array too when its dtype differs.
//
// `np.full(shape, n)` without a dtype: int64 for every int64 value (float64
// for a relaxed Python float), the value times ones of that dtype (exact;
// -0.0 and NaN kept).
//
// Other mixes keep failing ("a relaxed Python int in array arithmetic"), and
// the region pins the int (a static specialisation per value).
#include "engine/converter/converter.hpp"

namespace specula::engine::converter
{
    namespace
    {
        bool relaxed_op(ir::op code)
        {
            switch (code)
            {
            case ir::op::ADD:
            case ir::op::SUB:
            case ir::op::MUL:
            case ir::op::DIV:
            case ir::op::MAXIMUM:
            case ir::op::MINIMUM:
            case ir::op::EQ:
            case ir::op::NE:
            case ir::op::LT:
            case ir::op::LE:
            case ir::op::GT:
            case ir::op::GE:
                return true;
            default:
                return false;
            }
        }

        struct int_class
        {
            std::int64_t lo;
            std::int64_t hi;
        };

        // NumPy's smallest dtype of a Python int, as value intervals in
        // ascending order: int64, int32, int16, int8, uint8, uint16, uint32,
        // uint64 (cut at int64's top: relaxed ranges stay within 2**62).
        constexpr int_class int_classes[] = {
            {INT64_MIN, -(std::int64_t{1} << 31) - 1},
            {-(std::int64_t{1} << 31), -32769},
            {-32768, -129},
            {-128, -1},
            {0, 255},
            {256, 65535},
            {65536, (std::int64_t{1} << 32) - 1},
            {std::int64_t{1} << 32, INT64_MAX},
        };
        constexpr int num_int_classes = sizeof(int_classes) / sizeof(int_classes[0]);

        std::optional<ir::dtype> result_with(ir::dtype elem, std::int64_t v)
        {
            return ir::result_type(
                {ir::promotion_operand::array_of(elem), ir::promotion_operand::py_int(v)});
        }

        // Classes [first, last] overlapping [lo, hi].
        std::pair<int, int> classes_of(std::int64_t lo, std::int64_t hi)
        {
            int first = 0;
            while (int_classes[first].hi < lo)
            {
                ++first;
            }
            int last = first;
            while (last + 1 < num_int_classes && int_classes[last + 1].lo <= hi)
            {
                ++last;
            }
            return {first, last};
        }
    } // namespace

    std::optional<ir::dtype> converter::relaxed_int_result(ir::dtype elem, const cval& num)
    {
        array_entry& e = m_arrays[static_cast<size_t>(num.arr)];
        const auto [first, last] = classes_of(e.int_lo, e.int_hi);
        std::vector<std::optional<ir::dtype>> per_class(num_int_classes);
        bool uniform = true;
        for (int c = first; c <= last; ++c)
        {
            per_class[c] = result_with(elem, std::max(e.int_lo, int_classes[c].lo));
            uniform = uniform && per_class[c] && per_class[c] == per_class[first];
        }
        if (uniform)
        {
            return per_class[first];
        }
        // Narrow to the classes around the value seen now that agree with it.
        int_expr_ptr expr = int_expr_of(num);
        std::int64_t seen = 0;
        if (!expr || !evaluate(*expr, nullptr, seen))
        {
            return std::nullopt;
        }
        int mine = first;
        while (int_classes[mine].hi < seen)
        {
            ++mine;
        }
        const std::optional<ir::dtype> r = per_class[mine];
        if (!r)
        {
            return std::nullopt;
        }
        int lo_class = mine;
        int hi_class = mine;
        while (lo_class > first && per_class[lo_class - 1] == r)
        {
            --lo_class;
        }
        while (hi_class < last && per_class[hi_class + 1] == r)
        {
            ++hi_class;
        }
        const std::int64_t lo = std::max(e.int_lo, int_classes[lo_class].lo);
        const std::int64_t hi = std::min(e.int_hi, int_classes[hi_class].hi);
        int_expr_ptr inside = int_binary("and", int_binary(">=", expr, int_constant(lo)),
                                         int_binary("<=", expr, int_constant(hi)));
        std::int64_t holds = 0;
        if (!evaluate(*inside, nullptr, holds) || holds == 0)
        {
            return std::nullopt;
        }
        m_spec->guards.add(make_int_predicate_guard(inside, true));
        e.int_lo = lo;
        e.int_hi = hi;
        return r;
    }

    bool converter::relaxed_int_with_array(ir::op code, const cval& a, const cval& b,
                                           py::handle node, cval& out)
    {
        if (!relaxed_op(code) || a.k != cval::kind::array || b.k != cval::kind::array)
        {
            return false;
        }
        const bool int_first = m_arrays[static_cast<size_t>(a.arr)].surf == surface::py_int;
        const cval& num = int_first ? a : b;
        const cval& arr = int_first ? b : a;
        const array_entry& en = m_arrays[static_cast<size_t>(num.arr)];
        const array_entry& ea = m_arrays[static_cast<size_t>(arr.arr)];
        if (en.surf != surface::py_int || ea.surf != surface::ndarray)
        {
            return false;
        }
        const ir::value_type t = type_of(ea.value);
        // A 0-d array is promoted by value itself: its value is not known.
        if (t.dims.rank() == 0)
        {
            return false;
        }
        const std::optional<ir::dtype> r = relaxed_int_result(t.elem, num);
        // Integer true division is float64 of both operands: left to the
        // pinned path, as are dtypes outside the IR's set.
        if (!r || (code == ir::op::DIV && !ir::is_float(*r)))
        {
            return false;
        }
        ir::value_id n = m_builder->cast(value_of(num, node), *r);
        ir::value_id x = value_of(arr, node);
        if (t.elem != *r)
        {
            x = m_builder->cast(x, *r);
        }
        ir::value_id v = m_builder->binary(code, int_first ? n : x, int_first ? x : n);
        if (v == ir::no_id)
        {
            fail(std::string("operator on a relaxed Python int and an array (") +
                     m_builder->state().message() + ")",
                 node);
        }
        out = new_array(v, surface::ndarray);
        return true;
    }

    cval converter::full_of_relaxed(const std::vector<std::int64_t>& dims, const cval& fill,
                                    py::handle node)
    {
        if (fill.k != cval::kind::array)
        {
            fail("np.full with this fill value", node);
        }
        const array_entry& e = m_arrays[static_cast<size_t>(fill.arr)];
        if (e.surf != surface::py_int && e.surf != surface::py_float)
        {
            fail("np.full with a computed fill value", node);
        }
        // np.full takes np.array(fill).dtype: int64 for every int the graph
        // holds (within 2**62), float64 for a float.
        const ir::dtype elem = e.surf == surface::py_int ? ir::dtype::int64 : ir::dtype::float64;
        if (type_of(e.value).elem != elem || type_of(e.value).dims.rank() != 0)
        {
            fail("np.full with a fill value of another type", node);
        }
        ir::value_id ones = m_builder->ones(ir::shape::of(dims), elem);
        return new_array(m_builder->binary(ir::op::MUL, ones, e.value), surface::ndarray);
    }
} // namespace specula::engine::converter
