// Control flow on array data decided by what the profiling calls did
// (branch_tracer.hpp): an `if` that always took one side becomes that side
// under an ASSERT of its condition, a `while` whose trip count was always the
// same is unrolled that many times under ASSERTs of its test. An assert that
// fails sends the call to CPython (nothing committed) and marks the
// observation flipped, so the next compile does not assume it.
#include "engine/converter/converter.hpp"

namespace specula::engine::converter
{
    // Python's truth of a 0-d array or NumPy scalar, as a bool value
    // (numbers: non-zero, NaN true).
    ir::value_id converter::truth_value(const cval& test, py::handle node)
    {
        ir::value_id cond = value_of(test, node);
        const ir::value_type& ct = type_of(cond);
        if (ct.dims.rank() != 0)
        {
            fail("truth value of an array with more than one element", node);
        }
        if (ct.elem == ir::dtype::bool_)
        {
            return cond;
        }
        ir::value_id zero =
            m_builder->constant(ir::is_float(ct.elem) ? ir::scalar::of_float(ct.elem, 0.0)
                                                      : ir::scalar::of_int(ct.elem, 0));
        return m_builder->binary(ir::op::NE, cond, zero);
    }

    const branch_observation* converter::profiled_branch(py::handle node) const
    {
        // A recursion's body runs once per node: its profile mixes the nodes.
        return m_tree ? nullptr : m_profile.branch(where(node));
    }

    bool converter::visit_profiled_if(py::handle node, const cval& test)
    {
        const branch_observation* seen = profiled_branch(node);
        if (seen == nullptr || !seen->one_sided())
        {
            return false;
        }
        const bool taken = seen->taken > 0;
        ir::value_id cond = truth_value(test, node);
        if (!taken)
        {
            cond = m_builder->unary(ir::op::LOGICAL_NOT, cond);
        }
        const std::string key = where(node);
        const int exit = add_assert(
            cond, std::string("if at ") + key + " took its " + (taken ? "else" : "then") +
                      " side (profiled: only the " + (taken ? "then" : "else") + " side)");
        m_spec->exit_branches[static_cast<std::uint32_t>(exit)] = key;
        visit_body(taken ? node.attr("body") : node.attr("orelse"));
        return true;
    }

    bool converter::profiled_while_test(py::handle node, const cval& test, int trips)
    {
        const branch_observation* seen = profiled_branch(node);
        if (seen == nullptr)
        {
            fail("while on array data (no trip count profiled)", node);
        }
        if (seen->flipped)
        {
            fail("while on array data whose trip count changed after compilation", node);
        }
        if (!seen->constant_trips())
        {
            fail("while on array data with a varying trip count (profiled " +
                     std::to_string(seen->trips_min) + " to " + std::to_string(seen->trips_max) +
                     " trips)",
                 node);
        }
        const bool more = trips < seen->trips_max;
        ir::value_id cond = truth_value(test, node);
        if (!more)
        {
            cond = m_builder->unary(ir::op::LOGICAL_NOT, cond);
        }
        const std::string key = where(node);
        const int exit = add_assert(cond, "while at " + key + " ran other than the " +
                                              std::to_string(seen->trips_max) + " trips profiled");
        m_spec->exit_branches[static_cast<std::uint32_t>(exit)] = key;
        return more;
    }
} // namespace specula::engine::converter
