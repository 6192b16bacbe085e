#include "engine/backend_choice.hpp"

#include "backends/cpu/cpu_backend.hpp"
#include "backends/cpu/numpy_loops/numpy_loops.hpp"
#include "backends/reference/reference_backend.hpp"
#include "backends/served_by.hpp"
#include "engine/engine_core.hpp"
#include "ir/passes/cse.hpp"
#include "ir/passes/dce.hpp"
#include "ir/passes/fold_constants.hpp"
#include "ir/passes/fuse_elementwise.hpp"

#include <iostream>

namespace specula::engine
{
    namespace
    {
        struct engine_backends
        {
            backends::reference::reference_backend reference;
            std::unique_ptr<backends::cpu::cpu_backend> cpu;
        };

        const engine_backends& instance()
        {
            // Never destroyed: executables may outlive static destructors.
            static engine_backends* b = []
            {
                auto* made = new engine_backends();
                auto loops = std::make_shared<backends::cpu::loop_table>();
                // Without NumPy's loops the transcendental nodes fall back to
                // the reference backend, and compile_for_engine refuses them.
                (void)backends::cpu::fill_numpy_loops(*loops);
                backends::cpu::cpu_options options;
                options.numpy_loops = loops;
                // The process's lanes: elementwise work splits where results
                // cannot change, and the pool merges the workers' IEEE flags
                // into the calling thread's, which runner.cpp reads to decide
                // whether NumPy would have warned.
                options.threads = 0;
                options.fuse = true; // groups run as one node (backends/cpu/README.md)
                made->cpu = std::make_unique<backends::cpu::cpu_backend>(options);
                return made;
            }();
            return *b;
        }

        // Nodes the reference backend computes differently from NumPy (libm
        // instead of NumPy's SIMD loops, plain loops instead of BLAS): exact
        // only when the CPU backend served them.
        bool needs_numpy_kernel(const ir::graph& g, const ir::node& n)
        {
            switch (n.code)
            {
            case ir::op::EXP:
            case ir::op::EXPM1:
            case ir::op::LOG:
            case ir::op::LOG1P:
            case ir::op::TANH:
            case ir::op::SIN:
            case ir::op::COS:
            case ir::op::POW:
                return true;
            case ir::op::MATMUL:
            case ir::op::DOT:
                for (ir::value_id in : n.inputs)
                {
                    if (g.type_of(in).dims.rank() >= 2)
                    {
                        return true;
                    }
                }
                return false;
            default:
                return false;
            }
        }

        std::string describe(const ir::graph& g, const ir::node& n)
        {
            std::string s(ir::mnemonic(n.code));
            s += " of ";
            for (size_t i = 0; i < n.inputs.size(); ++i)
            {
                const ir::value_type& t = g.type_of(n.inputs[i]);
                s += (i > 0 ? ", " : "") + std::string(ir::dtype_name(t.elem)) + "[" +
                     std::to_string(t.dims.rank()) + "-d]";
            }
            return s;
        }
    } // namespace

    backends::result<std::unique_ptr<backends::executable>> compile_for_engine(ir::graph& g,
                                                                               std::string& refused)
    {
        const engine_backends& b = instance();
        // The converter emits a node per Python operation: an unrolled loop
        // repeats the same transposes, constants and index arithmetic at every
        // step (the demo RNN's iteration: 1963 nodes, 400 of them constants),
        // and the executor pays every node at every run. The passes are
        // bit-exact (ir/README.md) and keep asserts and boundaries; DCE keeps
        // the dead nodes NumPy would still warn or raise from.
        ir::fold_constants(g);
        ir::eliminate_common_subexpressions(g);
        ir::dce_options dce;
        dce.keep_signalling = true;
        ir::eliminate_dead_code(g, dce);
        ir::fuse_elementwise(g);
        backends::target t;
        // float32 may take reassociating kernels (oneDNN) only in `fast` mode.
        t.exact = engine_core::instance().settings().numerics == numerics_mode::exact;
        auto exe = b.cpu->compile(g, t, &b.reference);
        if (!exe)
        {
            return exe;
        }
        if (engine_core::instance().settings().dump.backends)
        {
            auto slow = backends::nodes_not_served_by(*exe.value(), b.cpu->name());
            std::cerr << "specula: graph '" << g.name() << "': " << slow.size()
                      << " node(s) not on the CPU backend\n"
                      << backends::format(slow);
        }
        const backends::compiled_graph& main = exe.value()->main();
        for (const auto& region : main.m_regions)
        {
            for (const backends::compiled_node& cn : region)
            {
                if (cn.p_node != nullptr && needs_numpy_kernel(*main.p_graph, *cn.p_node) &&
                    cn.m_backend != "cpu")
                {
                    refused = describe(*main.p_graph, *cn.p_node) +
                              " (no kernel bit-identical to NumPy's for it; served by " +
                              (cn.m_backend.empty() ? std::string("nobody") : cn.m_backend) + ")";
                    return exe;
                }
            }
        }
        return exe;
    }
} // namespace specula::engine
