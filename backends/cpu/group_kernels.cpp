// Fusion groups (node::group from ir/passes/fuse_elementwise) as one blockwise
// program. The backend interface compiles and runs node by node, so a group
// runs at its LAST member: earlier members only note where their external
// inputs are (pointers to the executor's value slots) and hand out the
// buffers of values read after the group; the last member then evaluates the
// whole program once. Temporaries never reach memory.
//
// Preconditions checked at compile time (else the members run one by one):
// static equal shapes, no control flow between the first and last member (a
// recursive call could re-enter the same kernels), and every read of a
// member's value outside the group comes after the last member.

#include "backends/cpu/group_kernels.hpp"

#include "backends/cpu/ew_runner.hpp"
#include "ir/passes/fuse_elementwise.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

namespace specula::backends::cpu
{
    loop_source loops_of(const kernel_context& ctx);

    namespace
    {
        // Output buffers owned by the group, reused once nobody else holds them
        // (a previous run's value may still be referenced by the engine, or by
        // the previous loop iteration). No allocation in steady state.
        struct recycler
        {
            struct slot
            {
                std::shared_ptr<void> bytes;
                buffer view;
            };
            std::vector<slot> slots;

            result<buffer> acquire(ir::dtype elem, const std::vector<std::int64_t>& shape)
            {
                for (slot& s : slots)
                {
                    // Held by `bytes` and `view` only: free for reuse.
                    if (s.bytes.use_count() == 2)
                    {
                        return s.view;
                    }
                }
                std::int64_t n = 1;
                for (std::int64_t d : shape)
                {
                    n *= d;
                }
                const std::size_t bytes =
                    (static_cast<std::size_t>(n) * static_cast<std::size_t>(ir::itemsize(elem)) +
                     63) &
                    ~std::size_t(63);
                void* p = std::aligned_alloc(64, bytes == 0 ? 64 : bytes);
                if (p == nullptr)
                {
                    return status(status_code::out_of_memory, "fusion group output");
                }
                slot s;
                s.bytes = std::shared_ptr<void>(p, std::free);
                s.view = buffer::borrow(p, elem, shape, {}, {}, s.bytes);
                slots.push_back(s);
                return s.view;
            }
        };
    } // namespace

    struct group_state
    {
        std::vector<const ir::node*> members;
        std::unique_ptr<ew_runner> runner;
        std::vector<std::int64_t> shape;
        std::vector<const buffer*> stash; // per program input
        std::vector<recycler> recyclers;  // per program output (0 unused: the executor's)
        std::vector<buffer*> out_ptrs;
        std::vector<buffer> held; // outputs of earlier members for this run
        // Values that never leave the group still need a buffer in the
        // executor's slot (it checks every input is live): one shared,
        // never-written array per dtype stands in for them.
        std::map<ir::dtype, buffer> placeholders;
        ir::region_id region = 0;
        int group = -1;
    };

    namespace
    {
        class member_kernel final : public kernel
        {
        public:
            member_kernel(std::shared_ptr<group_state> s, const ir::node& n, ir::dtype elem,
                          bool last)
                : m_state(std::move(s)), m_last(last), m_elem(elem)
            {
                const ew_program& p = m_state->runner->program();
                for (std::size_t i = 0; i < n.inputs.size(); ++i)
                {
                    auto it = std::find(p.m_inputs.begin(), p.m_inputs.end(), n.inputs[i]);
                    if (it != p.m_inputs.end())
                    {
                        m_stash.push_back(
                            {static_cast<int>(i), static_cast<int>(it - p.m_inputs.begin())});
                    }
                }
                auto out = std::find(p.m_outputs.begin(), p.m_outputs.end(), n.outputs[0]);
                m_out_slot =
                    out == p.m_outputs.end() ? -1 : static_cast<int>(out - p.m_outputs.begin());
            }

            bool allocates_outputs() const override { return !m_last; }

        private:
            status run_impl(const kernel_io& io) const override
            {
                group_state& s = *m_state;
                for (auto [node_in, prog_in] : m_stash)
                {
                    s.stash[static_cast<std::size_t>(prog_in)] = io.inputs[node_in];
                }
                if (!m_last)
                {
                    if (m_out_slot > 0)
                    {
                        auto b = s.recyclers[static_cast<std::size_t>(m_out_slot)].acquire(m_elem,
                                                                                           s.shape);
                        if (!b)
                        {
                            return b.error();
                        }
                        io.out(0) = b.value();
                        s.held[static_cast<std::size_t>(m_out_slot)] = b.value();
                        return status::ok();
                    }
                    buffer& stand_in = s.placeholders[m_elem];
                    if (stand_in.is_null())
                    {
                        auto b = buffer::allocate(m_elem, s.shape);
                        if (!b)
                        {
                            return b.error();
                        }
                        stand_in = b.value();
                    }
                    io.out(0) = stand_in;
                    return status::ok();
                }
                s.out_ptrs[0] = &io.out(0);
                for (std::size_t k = 1; k < s.out_ptrs.size(); ++k)
                {
                    s.out_ptrs[k] = &s.held[k];
                }
                status st = s.runner->run(s.stash.data(), s.out_ptrs.data());
                for (std::size_t k = 1; k < s.held.size(); ++k)
                {
                    s.held[k] = buffer(); // drop our extra reference
                }
                return st;
            }

            std::shared_ptr<group_state> m_state;
            std::vector<std::pair<int, int>> m_stash;
            int m_out_slot = -1;
            bool m_last = false;
            ir::dtype m_elem = ir::dtype::float64;
        };

    } // namespace

    std::shared_ptr<group_state> plan_group(const ir::graph& g, const ir::node& leader,
                                            const kernel_context& ctx)
    {
        const ir::region& r = g.get_region(leader.parent);
        std::vector<std::size_t> pos;
        std::set<ir::value_id> defined;
        for (std::size_t i = 0; i < r.nodes.size(); ++i)
        {
            const ir::node& m = g.get_node(r.nodes[i]);
            if (m.group == leader.group)
            {
                pos.push_back(i);
                defined.insert(m.outputs.begin(), m.outputs.end());
            }
        }
        if (pos.size() < 2 || r.nodes[pos.front()] != leader.id)
        {
            return nullptr;
        }
        auto state = std::make_shared<group_state>();
        state->region = leader.parent;
        state->group = leader.group;
        std::optional<std::vector<std::int64_t>> shape;
        for (std::size_t p : pos)
        {
            const ir::node& m = g.get_node(r.nodes[p]);
            auto sizes =
                m.outputs.size() == 1 ? g.type_of(m.outputs[0]).dims.static_sizes() : std::nullopt;
            if (!sizes || (shape && *shape != *sizes))
            {
                return nullptr;
            }
            shape = sizes;
            state->members.push_back(&m);
        }
        state->shape = *shape;
        // Escaping values: read after the group; a read inside the span is a veto.
        std::vector<ir::value_id> outputs = {state->members.back()->outputs[0]};
        std::set<ir::value_id> escaping;
        for (std::size_t i = pos.front() + 1; i < r.nodes.size(); ++i)
        {
            const ir::node& u = g.get_node(r.nodes[i]);
            if (u.group == leader.group)
            {
                continue;
            }
            if (i < pos.back() && ir::has(u.code, ir::prop::CONTROL_FLOW))
            {
                return nullptr;
            }
            for (ir::value_id v : ir::operands_with_captures(g, u.id))
            {
                if (defined.count(v) != 0)
                {
                    if (i < pos.back())
                    {
                        return nullptr;
                    }
                    escaping.insert(v);
                }
            }
        }
        for (ir::value_id v : r.results)
        {
            if (defined.count(v) != 0)
            {
                escaping.insert(v);
            }
        }
        for (const ir::node* m : state->members)
        {
            if (escaping.count(m->outputs[0]) != 0 && m->outputs[0] != outputs[0])
            {
                outputs.push_back(m->outputs[0]);
            }
        }
        auto prog = build_program(g, state->members, outputs, loops_of(ctx));
        if (!prog)
        {
            return nullptr;
        }
        state->stash.assign(prog->m_inputs.size(), nullptr);
        state->recyclers.resize(outputs.size());
        state->out_ptrs.assign(outputs.size(), nullptr);
        state->held.resize(outputs.size());
        state->runner = std::make_unique<ew_runner>(std::move(prog.value()), ctx.pool);
        return state;
    }

    std::unique_ptr<kernel> make_member_kernel(const std::shared_ptr<group_state>& state,
                                               const ir::node& n, ir::dtype elem)
    {
        const bool last = state->members.back() == &n;
        return std::make_unique<member_kernel>(state, n, elem, last);
    }

    bool is_last_member(const group_state& state, const ir::node& n)
    {
        return state.members.back() == &n;
    }

    bool is_first_member(const group_state& state, const ir::node& n)
    {
        return state.members.front() == &n;
    }

    bool is_member(const group_state& state, const ir::node& n)
    {
        return std::find(state.members.begin(), state.members.end(), &n) != state.members.end();
    }
} // namespace specula::backends::cpu
