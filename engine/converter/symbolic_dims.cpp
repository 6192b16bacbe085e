// The size of a relaxed (symbolic) dim read as a Python int (`x.shape[0]`,
// `len(x)`): an int64 scalar from SHAPE_DIM, so a batch size that changes
// between calls keeps one specialisation where the code only needs the size
// as a value (arithmetic, `range`, comparisons). Uses that need it at
// conversion (a reshape's shape, a slice bound) still fail, and the region
// pins the dims (one static specialisation per size instead).
#include "engine/converter/converter.hpp"

namespace specula::engine::converter
{
    cval converter::dim_value(ir::value_id x, int axis, py::handle node)
    {
        const ir::dim& d = type_of(x).dims[axis];
        if (d.is_static())
        {
            cval c;
            c.obj = py::int_(d.size());
            return c;
        }
        ir::value_id size = m_builder->shape_dim(x, axis);
        if (size == ir::no_id || type_of(size).elem != ir::dtype::int64)
        {
            fail("size of a symbolic dim (IR: " + m_builder->state().message() + ")", node);
        }
        // Int arithmetic is proven exact from the ranges of its operands: a
        // size beyond the range relaxed ints have exits to CPython.
        add_assert(m_builder->binary(
                       ir::op::LE, size,
                       m_builder->constant(ir::scalar::of_int(ir::dtype::int64, relaxed_int_hi))),
                   "a symbolic dim of 2**31 or more at " + where(node));
        cval out = new_array(size, surface::py_int);
        m_arrays[static_cast<size_t>(out.arr)].int_lo = 0;
        m_arrays[static_cast<size_t>(out.arr)].int_hi = relaxed_int_hi;
        return out;
    }
} // namespace specula::engine::converter
