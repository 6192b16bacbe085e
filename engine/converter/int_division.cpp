// `a % b` and `a // b` on Python ints the graph holds as int64 (relaxed
// inputs, literals, exact arithmetic on them). NumPy's int64 remainder and
// floor_divide follow Python's sign rules (the remainder takes the divisor's
// sign, the quotient is floored); what differs is a zero divisor, where Python
// raises ZeroDivisionError and NumPy gives 0: that becomes an assert, so the
// call runs in CPython, which raises. The result range is derived from the
// operands', so later arithmetic can still prove itself exact.
#include <algorithm>
#include <cstdlib>

#include "engine/converter/converter.hpp"

namespace specula::engine::converter
{
    namespace
    {
        // Largest magnitude in [lo, hi]; the ranges are far inside int64.
        std::int64_t magnitude(std::int64_t lo, std::int64_t hi)
        {
            return std::max(std::llabs(lo), std::llabs(hi));
        }
    } // namespace

    cval converter::python_int_division(ir::op code, const ir::value_id* v, const std::int64_t* lo,
                                        const std::int64_t* hi, py::handle node)
    {
        if (lo[1] == 0 && hi[1] == 0)
        {
            fail("integer division or modulo by zero", node);
        }
        if (lo[1] <= 0 && hi[1] >= 0)
        {
            ir::value_id zero = m_builder->constant(ir::scalar::of_int(ir::dtype::int64, 0));
            add_assert(m_builder->binary(ir::op::NE, v[1], zero),
                       "integer division or modulo by zero at " + where(node));
        }
        std::int64_t r_lo = 0;
        std::int64_t r_hi = 0;
        if (code == ir::op::MOD)
        {
            // The remainder has the divisor's sign and a smaller magnitude.
            std::int64_t m = magnitude(lo[1], hi[1]) - 1;
            r_lo = lo[1] > 0 ? 0 : -m;
            r_hi = hi[1] < 0 ? 0 : m;
        }
        else
        {
            // |floor(a / b)| <= |a| for every b != 0.
            std::int64_t m = magnitude(lo[0], hi[0]);
            r_lo = -m;
            r_hi = m;
        }
        cval out = new_array(m_builder->binary(code, v[0], v[1]), surface::py_int);
        m_arrays[static_cast<size_t>(out.arr)].int_lo = r_lo;
        m_arrays[static_cast<size_t>(out.arr)].int_hi = r_hi;
        return out;
    }
} // namespace specula::engine::converter
