// Tables a LOOP carries and updates one row per iteration (the recursion
// over a tree: `results[i] = row`) are written in place. Without this, each
// GATHER_UPDATE copies the whole table into a new buffer (the plan never runs
// in place over a region argument), which makes a loop over n nodes O(n^2).
// The loop copies the initial table once into memory of its own; the update
// then writes its row into the carried buffer, which is legal when nothing
// reads the old table after the update (checked here, at compile time).
//
// Row moves: such a loop body reads and writes single rows (`table[node]`,
// `results[i] = row`, a node's int from its table) several times per node.
// The indexing kernels are general (index arrays, broadcasting, casts,
// strided operands) and cost more than the row itself; a GATHER or
// GATHER_UPDATE of one row at a 0-d int64 index, same dtype and C-contiguous
// operands is a plain copy of bytes, which the executor makes itself
// (move_row()), with the kernel's bounds error. Anything else runs the kernel.
#include "backends/executor.hpp"

#include <algorithm>
#include <cstring>
#include <map>

namespace specula::backends
{
    namespace
    {
        using node_map = std::map<ir::node_id, compiled_node*>;

        // Whether `v` is read by `n` or by anything inside its regions
        // (their results included).
        bool reads(const ir::graph& g, const ir::node& n, ir::value_id v)
        {
            if (std::find(n.inputs.begin(), n.inputs.end(), v) != n.inputs.end())
            {
                return true;
            }
            for (ir::region_id r : n.regions)
            {
                const ir::region& reg = g.get_region(r);
                if (std::find(reg.results.begin(), reg.results.end(), v) != reg.results.end())
                {
                    return true;
                }
                for (ir::node_id m : reg.nodes)
                {
                    if (reads(g, g.get_node(m), v))
                    {
                        return true;
                    }
                }
            }
            return false;
        }

        // Reads of `v` before the update that may keep seeing its memory:
        // a view (a kernel that aliases its input) or a control-flow op
        // handing it on.
        bool aliased(const ir::graph& g, const ir::node& n, ir::value_id v, const node_map& nodes)
        {
            if (std::find(n.inputs.begin(), n.inputs.end(), v) != n.inputs.end())
            {
                if (!n.regions.empty())
                {
                    return true;
                }
                auto cn = nodes.find(n.id);
                if (cn == nodes.end() || cn->second->m_kernel == nullptr ||
                    cn->second->m_kernel->aliases_input())
                {
                    return true;
                }
            }
            for (ir::region_id r : n.regions)
            {
                const ir::region& reg = g.get_region(r);
                if (std::find(reg.results.begin(), reg.results.end(), v) != reg.results.end())
                {
                    return true;
                }
                for (ir::node_id m : reg.nodes)
                {
                    if (aliased(g, g.get_node(m), v, nodes))
                    {
                        return true;
                    }
                }
            }
            return false;
        }

        // The update of carried value `i` of `loop`, when it may run in place.
        compiled_node* in_place_update(const ir::graph& g, const ir::node& loop, std::size_t i,
                                       const node_map& nodes)
        {
            const ir::region& body = g.get_region(loop.regions[0]);
            const std::size_t skip = loop.attr_as<ir::loop_attr>().has_condition ? 1 : 0;
            const ir::value_id arg = body.args[i + 1];
            const ir::value_id result = body.results[i + skip];
            const ir::value& rv = g.get(result);
            if (rv.def == ir::no_id ||
                std::count(body.results.begin(), body.results.end(), result) != 1 ||
                std::count(body.results.begin(), body.results.end(), arg) != 0)
            {
                return nullptr;
            }
            const ir::node& update = g.get_node(rv.def);
            auto cn = nodes.find(update.id);
            if (update.code != ir::op::GATHER_UPDATE || update.parent != body.id ||
                update.inputs[0] != arg || update.inputs[1] == arg || update.inputs[2] == arg ||
                cn == nodes.end() || cn->second->m_kernel == nullptr ||
                cn->second->m_in_place != ir::no_id || cn->second->m_outputs.size() != 1 ||
                cn->second->m_outputs[0] != result)
            {
                return nullptr;
            }
            bool after = false;
            for (ir::node_id m : body.nodes)
            {
                const ir::node& n = g.get_node(m);
                if (m == update.id)
                {
                    after = true;
                    continue;
                }
                if (after ? reads(g, n, arg) : aliased(g, n, arg, nodes))
                {
                    return nullptr;
                }
            }
            return cn->second;
        }
    } // namespace

    namespace
    {
        // A GATHER / GATHER_UPDATE along axis 0 at one 0-d int64 index, of
        // values of the table's own dtype: what move_row() may serve.
        bool is_row_move(const ir::graph& g, const compiled_node& cn)
        {
            const ir::node& n = *cn.p_node;
            if ((n.code != ir::op::GATHER && n.code != ir::op::GATHER_UPDATE) ||
                cn.m_kernel == nullptr || cn.m_kernel->allocates_outputs() ||
                cn.m_inputs != n.inputs || n.outputs.size() != 1)
            {
                return false;
            }
            const ir::value_type& x = g.type_of(n.inputs[0]);
            const ir::value_type& index = g.type_of(n.inputs[1]);
            const int axis = n.attr_as<ir::axis_attr>().axis;
            if (x.dims.rank() < 1 || (axis != 0 && axis != -x.dims.rank()) ||
                index.elem != ir::dtype::int64 || index.dims.rank() != 0 ||
                g.type_of(n.outputs[0]).elem != x.elem)
            {
                return false;
            }
            return n.code == ir::op::GATHER || g.type_of(n.inputs[2]).elem == x.elem;
        }

        // Bytes of one row of `x` (C order), or 0 when x has no rows.
        std::size_t row_bytes(const buffer& x)
        {
            const std::int64_t rows = x.shape()[0];
            return rows <= 0 ? 0 : static_cast<std::size_t>(x.size() / rows) * x.itemsize();
        }

        // The row index in [0, rows), or false (NumPy's IndexError).
        bool row_index(const buffer& index, const buffer& x, std::int64_t& i)
        {
            const std::int64_t rows = x.shape()[0];
            i = index.element_as_int(0);
            i += i < 0 ? rows : 0;
            return i >= 0 && i < rows;
        }

        bool overlap(const std::byte* a, std::size_t na, const std::byte* b, std::size_t nb)
        {
            return a < b + nb && b < a + na;
        }

        bool gather_row(const kernel_io& io, status& st)
        {
            const buffer& x = io.in(0);
            buffer& out = io.out(0);
            const std::size_t bytes = row_bytes(x);
            if (!x.is_contiguous() || !out.is_contiguous() || x.dtype() != out.dtype() ||
                bytes == 0 || static_cast<std::size_t>(out.size()) * out.itemsize() != bytes)
            {
                return false;
            }
            std::int64_t i = 0;
            if (!row_index(io.in(1), x, i))
            {
                st = status::runtime("index out of bounds");
                return true;
            }
            std::memmove(out.data(), x.data() + static_cast<std::size_t>(i) * bytes, bytes);
            return true;
        }

        bool update_row(const kernel_io& io, status& st)
        {
            const buffer& x = io.in(0);
            const buffer& v = io.in(2);
            buffer& out = io.out(0);
            const std::size_t bytes = row_bytes(x);
            const auto& shape = x.shape();
            if (!x.is_contiguous() || !v.is_contiguous() || !out.is_contiguous() ||
                x.dtype() != v.dtype() || x.dtype() != out.dtype() || out.shape() != shape ||
                bytes == 0 ||
                !std::equal(shape.begin() + 1, shape.end(), v.shape().begin(), v.shape().end()))
            {
                return false; // broadcast values, casts, strides: the kernel
            }
            const std::size_t total = bytes * static_cast<std::size_t>(shape[0]);
            if (out.data() != x.data() && overlap(v.data(), bytes, out.data(), total))
            {
                return false; // the kernel reads the values first
            }
            std::int64_t i = 0;
            if (!row_index(io.in(1), x, i))
            {
                st = status::runtime("index out of bounds");
                return true;
            }
            if (out.data() != x.data())
            {
                std::memcpy(out.data(), x.data(), total);
            }
            std::memmove(out.data() + static_cast<std::size_t>(i) * bytes, v.data(), bytes);
            return true;
        }
    } // namespace

    bool move_row(const compiled_node& cn, const kernel_io& io, status& st)
    {
        return cn.p_node->code == ir::op::GATHER ? gather_row(io, st) : update_row(io, st);
    }

    void mark_carried_updates(compiled_graph& cg)
    {
        const ir::graph& g = *cg.p_graph;
        node_map nodes;
        for (auto& region : cg.m_regions)
        {
            for (compiled_node& cn : region)
            {
                if (cn.p_node != nullptr)
                {
                    nodes[cn.p_node->id] = &cn;
                    cn.m_row_move = is_row_move(g, cn);
                }
            }
        }
        for (auto& [id, cn] : nodes)
        {
            const ir::node& loop = *cn->p_node;
            if (loop.code != ir::op::LOOP)
            {
                continue;
            }
            const auto& attr = loop.attr_as<ir::loop_attr>();
            const std::size_t heads = (attr.has_trip_count ? 1 : 0) + (attr.has_condition ? 1 : 0);
            for (std::size_t i = 0; i + heads < loop.inputs.size(); ++i)
            {
                if (compiled_node* update = in_place_update(g, loop, i, nodes))
                {
                    update->m_carried_arg = g.get_region(loop.regions[0]).args[i + 1];
                    cn->m_owned_carried.push_back(i);
                }
            }
        }
    }
} // namespace specula::backends
