#include "backends/deferred_store.hpp"

#include "backends/executable.hpp"

#include <algorithm>

namespace specula::backends
{
    bool deferred_stores::holds(std::size_t output) const
    {
        return std::any_of(m_stores.begin(), m_stores.end(),
                           [output](const store& s) { return s.output == output; });
    }

    void deferred_stores::add(const kernel* k, std::vector<buffer> inputs, buffer target,
                              std::size_t output)
    {
        m_stores.push_back({k, std::move(inputs), std::move(target), output});
    }

    status deferred_stores::run()
    {
        std::vector<const buffer*> ins;
        for (store& s : m_stores)
        {
            ins.clear();
            for (const buffer& b : s.inputs)
            {
                ins.push_back(&b);
            }
            buffer* outs[1] = {&s.target};
            kernel_io io{ins.data(), static_cast<int>(ins.size()), outs, 1};
            if (status st = s.p_kernel->run(io); !st)
            {
                m_stores.clear();
                return st;
            }
        }
        m_stores.clear();
        return status::ok();
    }

    bool deferred_stores::overlaps_a_target(const buffer& b) const
    {
        return std::any_of(m_stores.begin(), m_stores.end(),
                           [&b](const store& s) { return overlap(b, s.target); });
    }

    byte_extent extent_of(const buffer& b)
    {
        const std::byte* lo = b.data();
        const std::byte* hi = b.data();
        if (b.size() == 0)
        {
            return {lo, hi};
        }
        for (int d = 0; d < b.rank(); ++d)
        {
            const std::int64_t step = b.strides()[static_cast<std::size_t>(d)] *
                                      (b.shape()[static_cast<std::size_t>(d)] - 1);
            (step < 0 ? lo : hi) += step;
        }
        return {lo, hi + b.itemsize()};
    }

    bool overlap(const buffer& a, const buffer& b)
    {
        const byte_extent x = extent_of(a);
        const byte_extent y = extent_of(b);
        return x.first < y.last && y.first < x.last;
    }

    namespace
    {
        // The plan may let the kernel run in place over a dead operand
        // (m_in_place): held back, it writes the target instead, and the
        // handle it keeps on that operand keeps the arena off its block.
        bool storable(const compiled_node& cn)
        {
            const ir::node& n = *cn.p_node;
            return cn.m_kernel != nullptr && ir::has(n.code, ir::prop::ELEMENTWISE) &&
                   n.outputs.size() == 1 && cn.m_outputs.size() == 1 &&
                   cn.m_outputs[0] == n.outputs[0] && !cn.m_kernel->allocates_outputs() &&
                   !cn.m_kernel->aliases_input();
        }
    } // namespace

    const std::vector<const compiled_node*>& store_candidates(const compiled_graph& g)
    {
        if (g.m_store_candidates)
        {
            return *g.m_store_candidates;
        }
        const ir::graph& ig = *g.p_graph;
        auto table = std::make_unique<std::vector<const compiled_node*>>(ig.num_values(), nullptr);
        const std::vector<int> uses = ig.count_uses();
        std::vector<bool> output_read(ig.num_values(), false);
        for (ir::node_id id : g.m_outputs)
        {
            output_read[ig.get_node(id).inputs[0]] = true;
        }
        for (const compiled_node& cn : g.m_regions[ig.body()])
        {
            if (!storable(cn))
            {
                continue;
            }
            const ir::value_id v = cn.m_outputs[0];
            if (uses[v] == 1 && output_read[v])
            {
                (*table)[v] = &cn;
            }
        }
        g.m_store_candidates = std::move(table);
        return *g.m_store_candidates;
    }

    namespace
    {
        bool same_layout(const buffer& a, const buffer& b)
        {
            return a.data() == b.data() && a.dtype() == b.dtype() && a.shape() == b.shape() &&
                   a.strides() == b.strides();
        }
    } // namespace

    bool may_store_into(ir::dtype elem, const std::vector<std::int64_t>& shape,
                        const buffer& target, const buffer* const* inputs, std::size_t num_inputs,
                        const deferred_stores& held)
    {
        if (target.dtype() != elem || target.shape() != shape || !target.is_contiguous() ||
            held.overlaps_a_target(target))
        {
            return false;
        }
        for (std::size_t i = 0; i < num_inputs; ++i)
        {
            const buffer& in = *inputs[i];
            if (held.overlaps_a_target(in))
            {
                return false;
            }
            if (overlap(in, target) && !same_layout(in, target))
            {
                return false;
            }
        }
        return true;
    }
} // namespace specula::backends
