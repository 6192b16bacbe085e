// `and`, `or` and `not` on Python bools the converted code computes from
// relaxed ints (`if step % 50 == 0 and step > 0:`). The result is a Python
// bool (LOGICAL_AND / LOGICAL_OR / LOGICAL_NOT in the graph) that carries
// the int_expr of its truth, so a loop region decides a branch on it under
// one int_predicate guard (counter_values.cpp): one specialisation per
// outcome of the whole condition, not per value of the counter.
//
// Python evaluates the later operands only when the earlier ones do not
// decide; the graph computes them all. That is exact as long as computing
// them changes nothing: operands with effects are refused, and an operand
// that cannot be computed (a zero divisor) fails an assert, so CPython runs
// that iteration.
#include "engine/converter/converter.hpp"

namespace specula::engine::converter
{
    namespace
    {
        bool is_bool_constant(const cval& v)
        {
            return v.k == cval::kind::constant && PyBool_Check(v.obj.ptr());
        }
    } // namespace

    // A Python bool with an int_expr, or a bool constant: what the
    // combination below accepts as an operand.
    bool converter::counter_truth(const cval& v, ir::value_id& value, int_expr_ptr& expr,
                                  py::handle node)
    {
        if (is_bool_constant(v))
        {
            value = scalar_constant(v, ir::dtype::bool_, node);
            expr = int_constant(v.obj.ptr() == Py_True ? 1 : 0);
            return true;
        }
        if (v.k != cval::kind::array)
        {
            return false;
        }
        const array_entry& e = m_arrays[static_cast<size_t>(v.arr)];
        if (e.surf != surface::py_bool || !e.expr)
        {
            return false;
        }
        value = e.value;
        expr = e.expr;
        return true;
    }

    cval converter::counter_boolop(bool is_and, const cval& first, py::handle operands, size_t next,
                                   py::handle node)
    {
        ir::value_id value = ir::no_id;
        int_expr_ptr expr;
        if (!counter_truth(first, value, expr, node))
        {
            fail("and/or on array data", node);
        }
        const size_t effects = m_spec->effects.size();
        const size_t heap_writes = m_heap_writes.size();
        py::list values = py::reinterpret_borrow<py::list>(operands);
        for (size_t i = next; i < py::len(values); ++i)
        {
            cval operand = visit_expr(values[i]);
            ir::value_id v = ir::no_id;
            int_expr_ptr x;
            if (!counter_truth(operand, v, x, node))
            {
                // `t > 0 and hs` would give hs itself, not a bool.
                fail("and/or mixing a counter condition with a value that is not a bool", node);
            }
            value = m_builder->binary(is_and ? ir::op::LOGICAL_AND : ir::op::LOGICAL_OR, value, v);
            expr = int_binary(is_and ? "and" : "or", expr, x);
        }
        if (m_spec->effects.size() != effects || m_heap_writes.size() != heap_writes)
        {
            fail("and/or whose later operands have effects (Python may not evaluate them)", node);
        }
        cval out = new_array(value, surface::py_bool);
        m_arrays[static_cast<size_t>(out.arr)].expr = expr;
        return out;
    }

    cval converter::counter_not(const cval& x, py::handle node)
    {
        // Copied out: new_array() grows m_arrays.
        const array_entry e = m_arrays[static_cast<size_t>(x.arr)];
        if (e.surf == surface::py_int)
        {
            // `not n` is `n == 0`.
            cval zero;
            zero.obj = py::int_(0);
            cval out = new_array(m_builder->binary(ir::op::EQ, e.value,
                                                   scalar_constant(zero, ir::dtype::int64, node)),
                                 surface::py_bool);
            m_arrays[static_cast<size_t>(out.arr)].expr = int_binary("==", e.expr, int_constant(0));
            return out;
        }
        cval out = new_array(m_builder->unary(ir::op::LOGICAL_NOT, e.value), surface::py_bool);
        m_arrays[static_cast<size_t>(out.arr)].expr = int_not(e.expr);
        return out;
    }
} // namespace specula::engine::converter
