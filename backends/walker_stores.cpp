// Sunk stores in the walk (walker.hpp, deferred_store.hpp): which outputs
// have effect targets, and holding back the kernels that would write them.

#include "backends/run_shapes.hpp"
#include "backends/walker.hpp"

namespace specula::backends::walk
{
    // Outputs with effect targets (executable::run with targets): per
    // value id of the main graph, the output index, or -1.
    void walker::set_targets(const compiled_graph& g, const std::vector<buffer>& targets)
    {
        p_targets = &targets;
        p_candidates = &store_candidates(g);
        m_store_of.assign(p_candidates->size(), -1);
        const ir::graph& ig = *g.p_graph;
        for (ir::node_id id : g.m_outputs)
        {
            const ir::node& n = ig.get_node(id);
            const auto i = static_cast<std::size_t>(n.attr_as<ir::boundary_attr>().index);
            const ir::value_id v = n.inputs[0];
            if (i < targets.size() && !targets[i].is_null() && (*p_candidates)[v] != nullptr)
            {
                m_store_of[v] = static_cast<int>(i);
            }
        }
    }

    // A sunk store (deferred_store.hpp): the kernel of a value whose
    // only reader is an output with a target does not run now; the
    // caller runs it into the target after its last checks. The
    // output reads the target meanwhile (nothing else reads it).
    bool walker::hold_back(frame& f, const compiled_node& cn)
    {
        const ir::value_id v = cn.m_outputs[0];
        if (v >= m_store_of.size() || m_store_of[v] < 0 || (*p_candidates)[v] != &cn)
        {
            return false;
        }
        const std::vector<const buffer*>& ins = f.p_arena->scratch_inputs;
        for (const buffer* b : ins)
        {
            // A staging block is reused by the next node: not kept.
            if (!f.p_arena->staged.empty() && b >= f.p_arena->staged.data() &&
                b < f.p_arena->staged.data() + f.p_arena->staged.size())
            {
                return false;
            }
        }
        const ir::graph& g = *f.p_graph->p_graph;
        std::vector<std::int64_t> shape;
        if (cn.m_static_outputs)
        {
            shape = cn.m_output_shapes[0];
        }
        else
        {
            auto sizes = resolve_output_shape(g, *cn.p_node, ins);
            if (!sizes)
            {
                return false;
            }
            shape = std::move(sizes.value());
        }
        const auto i = static_cast<std::size_t>(m_store_of[v]);
        const buffer& target = (*p_targets)[i];
        if (!may_store_into(g.type_of(v).elem, shape, target, ins.data(), ins.size(), m_held))
        {
            return false;
        }
        std::vector<buffer> operands;
        operands.reserve(ins.size());
        for (const buffer* b : ins)
        {
            operands.push_back(*b); // a real reference: the arena keeps off
        }
        m_held.add(cn.m_kernel.get(), std::move(operands), target, i);
        f.values()[v] = target;
        return true;
    }
} // namespace specula::backends::walk
