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

        // Whether n's output may share memory with its inputs: a view kernel,
        // an op the executor runs itself (control flow), a member of a group
        // other than an elementwise fusion group (those compute into memory
        // of their own).
        bool may_view(const ir::node& n, const node_map& nodes)
        {
            auto cn = nodes.find(n.id);
            if (cn == nodes.end())
            {
                return n.group < 0 || !ir::has(n.code, ir::prop::ELEMENTWISE);
            }
            return cn->second->m_kernel == nullptr || cn->second->m_kernel->aliases_input();
        }

        // Where the memory of carried value i comes from at a trip's end:
        // fresh (a value the trip computed), passed (carried argument `from`
        // handed on as is: `u, u_new = u_new, u`) or updated (carried
        // argument `from` written in place by `update`).
        struct carried_source
        {
            enum class kind
            {
                fresh,
                passed,
                updated
            } what = kind::fresh;
            std::size_t from = 0;
            compiled_node* update = nullptr;
        };

        bool is_update_op(ir::op code)
        {
            return code == ir::op::GATHER_UPDATE || code == ir::op::SLICE_UPDATE ||
                   code == ir::op::MASK_UPDATE;
        }

        // The carried argument (by position) that `update` may overwrite in
        // place, with its compiled node; npos when none. *_UPDATE: input 0,
        // not read again by the op (the values may not be the table). An
        // elementwise op of one node (not a fused group: its kernels were not
        // asked to write over an operand): an input of the result's own
        // type (CLIP: x only), as the memory plan allows for in place.
        std::size_t update_target(const ir::graph& g, const ir::region& body,
                                  const ir::node& update, compiled_node& cn)
        {
            constexpr std::size_t none = static_cast<std::size_t>(-1);
            if (update.parent != body.id || update.outputs.size() != 1 || cn.m_kernel == nullptr ||
                cn.m_kernel->allocates_outputs() || cn.m_outputs.size() != 1 ||
                cn.m_outputs[0] != update.outputs[0])
            {
                return none;
            }
            auto position = [&](ir::value_id v)
            {
                auto at = std::find(body.args.begin() + 1, body.args.end(), v);
                return at == body.args.end() ? none
                                             : static_cast<std::size_t>(at - body.args.begin() - 1);
            };
            if (is_update_op(update.code))
            {
                const ir::value_id x = update.inputs[0];
                const bool alone = std::count(update.inputs.begin(), update.inputs.end(), x) == 1;
                return alone && cn.m_in_place == ir::no_id && cn.m_inputs == update.inputs
                           ? position(x)
                           : none;
            }
            if (!ir::has(update.code, ir::prop::ELEMENTWISE) || cn.m_inputs != update.inputs)
            {
                return none;
            }
            const ir::value_type& out = g.type_of(update.outputs[0]);
            const std::size_t candidates = update.code == ir::op::CLIP ? 1 : update.inputs.size();
            for (std::size_t i = 0; i < candidates; ++i)
            {
                const std::size_t at = position(update.inputs[i]);
                if (at != none && g.type_of(update.inputs[i]) == out)
                {
                    return at;
                }
            }
            return none;
        }

        // Carried value i's source (see carried_source).
        carried_source source_of(const ir::graph& g, const ir::region& body, std::size_t i,
                                 std::size_t skip, const node_map& nodes)
        {
            carried_source src;
            const ir::value_id result = body.results[i + skip];
            auto arg = std::find(body.args.begin() + 1, body.args.end(), result);
            if (arg != body.args.end())
            {
                src.what = carried_source::kind::passed;
                src.from = static_cast<std::size_t>(arg - body.args.begin() - 1);
                return src;
            }
            const ir::value& rv = g.get(result);
            auto cn = rv.def == ir::no_id ? nodes.end() : nodes.find(rv.def);
            if (cn == nodes.end() ||
                std::count(body.results.begin(), body.results.end(), result) != 1)
            {
                return src;
            }
            const std::size_t from = update_target(g, body, g.get_node(rv.def), *cn->second);
            if (from != static_cast<std::size_t>(-1))
            {
                src.what = carried_source::kind::updated;
                src.from = from;
                src.update = cn->second;
            }
            return src;
        }

        // Whether value v may hold memory in `owned` (carried arguments the
        // loop owns and the values written over them) at the trip's end: one
        // of them, a view of one (kernels that alias their input), or what a
        // control-flow op reading one hands on.
        bool holds_owned(const ir::graph& g, const ir::region& body, ir::value_id v,
                         const std::vector<ir::value_id>& owned, const node_map& nodes)
        {
            if (std::find(owned.begin(), owned.end(), v) != owned.end())
            {
                return true;
            }
            const ir::value& val = g.get(v);
            if (val.def == ir::no_id || val.region != body.id)
            {
                return false;
            }
            const ir::node& n = g.get_node(val.def);
            if (!may_view(n, nodes))
            {
                return false;
            }
            for (ir::value_id a : owned)
            {
                if (reads(g, n, a))
                {
                    return true;
                }
            }
            for (ir::value_id in : n.inputs)
            {
                if (holds_owned(g, body, in, owned, nodes))
                {
                    return true;
                }
            }
            return false;
        }

        // Whether compiled node cn (a fused group: its external inputs) reads v.
        bool node_reads(const ir::graph& g, const compiled_node& cn, ir::value_id v)
        {
            return std::find(cn.m_inputs.begin(), cn.m_inputs.end(), v) != cn.m_inputs.end() ||
                   (!cn.p_node->regions.empty() && reads(g, *cn.p_node, v));
        }

        // The update (`order`: its region's nodes as they run) may write
        // carried argument `arg` in place: nothing after it reads the old
        // contents, directly or through a view made before it; its other
        // operands are no such view; no such view leaves the trip; no
        // control flow before it is handed the array.
        bool writable(const ir::graph& g, const ir::region& body,
                      const std::vector<compiled_node>& order, const compiled_node& update,
                      ir::value_id arg)
        {
            std::vector<ir::value_id> old{arg}; // the old contents: arg and views of it
            bool after = false;
            for (const compiled_node& cn : order)
            {
                if (&cn == &update)
                {
                    for (ir::value_id in : cn.m_inputs)
                    {
                        if (in != arg && std::find(old.begin(), old.end(), in) != old.end())
                        {
                            return false;
                        }
                    }
                    after = true;
                    continue;
                }
                const bool reads_old = std::any_of(
                    old.begin(), old.end(), [&](ir::value_id v) { return node_reads(g, cn, v); });
                if (!reads_old)
                {
                    continue;
                }
                if (after || cn.m_kernel == nullptr)
                {
                    return false;
                }
                if (cn.m_kernel->aliases_input())
                {
                    old.insert(old.end(), cn.m_outputs.begin(), cn.m_outputs.end());
                }
            }
            return std::none_of(body.results.begin(), body.results.end(),
                                [&](ir::value_id r) {
                                    return r != arg &&
                                           std::find(old.begin(), old.end(), r) != old.end();
                                });
        }

        // Reads of `v` before a lone row update that may keep seeing its
        // memory: a view (a kernel that aliases its input) or a control-flow
        // op handing it on.
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

        // When the loop's carried values cannot all be owned together
        // (owned_positions): the GATHER_UPDATE of carried value `i` alone,
        // when it may run in place (a tree walk's tables, row by row).
        compiled_node* lone_row_update(const ir::graph& g, const ir::node& loop, std::size_t i,
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

        // The carried values `loop` may keep in memory of its own and update
        // in place (positions, ascending), or none. The updated arguments,
        // closed under "its next value is passed or updated from": each of
        // them must take its next memory from another one, one to one (a
        // swap of two grids is a cycle), so at every trip's start each holds
        // the loop's own memory and no two share it. Nothing else may leave
        // a trip holding that memory (a view of a grid carried on).
        std::vector<std::size_t> owned_positions(const compiled_graph& cg, const ir::node& loop,
                                                 const node_map& nodes)
        {
            const ir::graph& g = *cg.p_graph;
            const ir::region& body = g.get_region(loop.regions[0]);
            const std::size_t skip = loop.attr_as<ir::loop_attr>().has_condition ? 1 : 0;
            const std::size_t carried = body.args.size() - 1;
            std::vector<carried_source> src;
            std::vector<char> owned(carried, 0);
            for (std::size_t i = 0; i < carried; ++i)
            {
                src.push_back(source_of(g, body, i, skip, nodes));
                if (src.back().what == carried_source::kind::updated)
                {
                    owned[src.back().from] = 1;
                }
            }
            for (bool grew = true; grew;)
            {
                grew = false;
                for (std::size_t i = 0; i < carried; ++i)
                {
                    if (!owned[i])
                    {
                        continue;
                    }
                    if (src[i].what == carried_source::kind::fresh)
                    {
                        return {};
                    }
                    grew = grew || !owned[src[i].from];
                    owned[src[i].from] = 1;
                }
            }
            std::vector<std::size_t> positions;
            std::vector<ir::value_id> memory; // the owned arguments and their next values
            std::vector<int> takers(carried, 0);
            for (std::size_t i = 0; i < carried; ++i)
            {
                if (src[i].what != carried_source::kind::fresh)
                {
                    ++takers[src[i].from];
                }
                if (owned[i])
                {
                    positions.push_back(i);
                    memory.push_back(body.args[i + 1]);
                    memory.push_back(body.results[i + skip]);
                }
            }
            for (std::size_t i = 0; i < carried; ++i)
            {
                if (owned[i] && takers[i] != 1)
                {
                    return {}; // one memory handed to two values, or dropped
                }
                if (!owned[i] && holds_owned(g, body, body.results[i + skip], memory, nodes))
                {
                    return {};
                }
                const carried_source& s = src[i];
                if (s.what == carried_source::kind::updated &&
                    !writable(g, body, cg.m_regions[body.id], *s.update, body.args[s.from + 1]))
                {
                    return {};
                }
            }
            for (std::size_t i = 0; i < carried; ++i)
            {
                const carried_source& s = src[i];
                if (s.what == carried_source::kind::updated)
                {
                    // Its output is the carried memory, not the plan's block.
                    s.update->m_carried_arg = body.args[s.from + 1];
                    s.update->m_in_place = ir::no_id;
                }
            }
            return positions;
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

    namespace
    {
        void own_lone_row_updates(compiled_graph& cg, compiled_node& loop_node,
                                  const node_map& nodes)
        {
            const ir::graph& g = *cg.p_graph;
            const ir::node& loop = *loop_node.p_node;
            const auto& attr = loop.attr_as<ir::loop_attr>();
            const std::size_t heads = (attr.has_trip_count ? 1 : 0) + (attr.has_condition ? 1 : 0);
            for (std::size_t i = 0; i + heads < loop.inputs.size(); ++i)
            {
                if (compiled_node* update = lone_row_update(g, loop, i, nodes))
                {
                    update->m_carried_arg = g.get_region(loop.regions[0]).args[i + 1];
                    loop_node.m_owned_carried.push_back(i);
                }
            }
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
            if (cn->p_node->code == ir::op::LOOP)
            {
                cn->m_owned_carried = owned_positions(cg, *cn->p_node, nodes);
                if (cn->m_owned_carried.empty())
                {
                    own_lone_row_updates(cg, *cn, nodes);
                }
            }
        }
    }
} // namespace specula::backends
