// A fusion group as one kernel: the members become one straight-line program
// (ew_program) evaluated blockwise by ew_runner, so temporaries live in
// per-lane scratch and never reach memory; only the group's escaping values
// are written. The executor hands the kernel the program's inputs in order
// and one planned buffer per escaping value.

#include "backends/cpu/group_kernels.hpp"

#include "backends/cpu/ew_runner.hpp"

namespace specula::backends::cpu
{
    loop_source loops_of(const kernel_context& ctx);

    namespace
    {
        class fused_kernel final : public kernel
        {
        public:
            explicit fused_kernel(std::unique_ptr<ew_runner> runner) : m_runner(std::move(runner))
            {
            }

            // The runner reads any strides (broadcast, views) blockwise.
            bool reads_layout(int, const buffer&) const override { return true; }

        private:
            status run_impl(const kernel_io& io) const override
            {
                return m_runner->run(io.inputs, io.outputs);
            }

            std::unique_ptr<ew_runner> m_runner;
        };
    } // namespace

    result<group_kernel> make_group_kernel(const ir::graph& g, const fused_group& fg,
                                           const kernel_context& ctx)
    {
        auto prog = build_program(g, fg.members, fg.outputs, loops_of(ctx));
        if (!prog)
        {
            return prog.error();
        }
        group_kernel gk;
        gk.m_inputs = prog->m_inputs;
        gk.m_kernel = std::make_unique<fused_kernel>(
            std::make_unique<ew_runner>(std::move(prog.value()), ctx.pool));
        return gk;
    }
} // namespace specula::backends::cpu
