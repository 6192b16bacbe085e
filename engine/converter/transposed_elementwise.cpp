// An elementwise operator between a scalar and the transpose of a C-ordered
// matrix (`lr * h.T`, then `@ d` in a backward pass). NumPy lays the result
// out in its operand's memory order (order='K'): an F-ordered array, which a
// later matrix product hands to BLAS with a transpose flag. The graph's
// buffers are C-ordered, so the converter would refuse that product
// (layout.cpp). Computing the operator on the matrix itself and transposing
// the result gives NumPy's very array: the same element values (+ - * / are
// exact per element, whatever the order of the loop), the same memory order,
// and the same BLAS call after it.
#include "engine/converter/converter.hpp"

namespace specula::engine::converter
{
    namespace
    {
        bool exact_per_element(ir::op code)
        {
            return code == ir::op::ADD || code == ir::op::SUB || code == ir::op::MUL ||
                   code == ir::op::DIV;
        }
    } // namespace

    ir::value_id converter::elementwise_binary(ir::op code, ir::value_id a, ir::value_id b)
    {
        if (exact_per_element(code))
        {
            const bool a_scalar = type_of(a).dims.rank() == 0;
            const bool b_scalar = type_of(b).dims.rank() == 0;
            ir::value_id matrix = a_scalar ? b : a;
            if (a_scalar != b_scalar)
            {
                if (ir::value_id base = transposed_source(matrix); base != ir::no_id)
                {
                    ir::value_id out = a_scalar ? m_builder->binary(code, a, base)
                                                : m_builder->binary(code, base, b);
                    if (out != ir::no_id)
                    {
                        return m_builder->transpose(out, {1, 0});
                    }
                }
            }
        }
        return m_builder->binary(code, a, b);
    }
} // namespace specula::engine::converter
