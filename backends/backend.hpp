#pragma once

// The backend interface: compile(graph, target) -> executable, and
// executable.run(inputs) -> outputs. A backend only compiles computing nodes
// into kernels; boundary ops, control flow, calls and asserts belong to the
// common executor. "unimplemented" is a normal answer: the node (or the whole
// graph) falls back to another backend or to CPython.

#include "backends/device.hpp"
#include "backends/executable.hpp"
#include "backends/fused_groups.hpp"
#include "backends/kernel.hpp"
#include "backends/status.hpp"
#include "ir/graph.hpp"

#include <memory>
#include <string_view>

namespace specula::backends
{
    struct target
    {
        device where;
        // Bit-identity with NumPy for float32 too (the policy's `exact` mode).
        bool exact = true;
        // Run from the IR's memory plan (buffers reused across values and
        // runs, in-place ops). Off: a fresh buffer per value, for comparisons.
        bool plan_memory = true;
    };

    // A fused group compiled as one kernel: it reads `inputs` (value ids, in
    // the kernel's input order) and writes the group's `outputs` in order.
    struct group_kernel
    {
        std::unique_ptr<kernel> m_kernel;
        std::vector<ir::value_id> m_inputs;
    };

    // Nodes the executor runs itself (no kernel needed from any backend).
    bool is_executor_op(ir::op code);

    class backend
    {
    public:
        backend() = default;
        virtual ~backend() = default;
        backend(const backend&) = delete;
        backend& operator=(const backend&) = delete;

        std::string_view name() const { return name_impl(); }

        // One node into a kernel, or unimplemented / an error.
        result<std::unique_ptr<kernel>> compile_node(const ir::graph& g, const ir::node& n,
                                                     const target& t) const;

        // A fusion group as one kernel, or unimplemented (its members are
        // then compiled node by node).
        result<group_kernel> compile_group(const ir::graph& g, const fused_group& fg,
                                           const target& t) const;
        // Groups this backend recognises itself (patterns such as matmul ->
        // bias -> activation); they take precedence over the elementwise groups
        // they overlap. Each is then offered to compile_group.
        std::vector<fused_group> pattern_groups(const ir::graph& g, const target& t) const;

        // The graph and every graph it calls. Fusion groups the backend
        // compiles as one kernel run as one node (see fused_groups.hpp). A node this backend leaves
        // unimplemented is offered to `fallback` (e.g. the reference backend)
        // when given; if nobody implements it the answer is unimplemented.
        result<std::unique_ptr<executable>> compile(const ir::graph& g, const target& t,
                                                    const backend* fallback = nullptr) const;

    private:
        virtual std::string_view name_impl() const = 0;
        virtual result<std::unique_ptr<kernel>>
        compile_node_impl(const ir::graph& g, const ir::node& n, const target& t) const = 0;
        virtual result<group_kernel> compile_group_impl(const ir::graph& g, const fused_group& fg,
                                                        const target& t) const;
        virtual std::vector<fused_group> pattern_groups_impl(const ir::graph& g,
                                                             const target& t) const;
    };
} // namespace specula::backends
