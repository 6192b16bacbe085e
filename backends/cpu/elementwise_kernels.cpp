// One elementwise node as a one-instruction program (ew_program), run
// blockwise and split across the pool's lanes for large arrays.

#include "backends/cpu/cpu_backend.hpp"
#include "backends/cpu/ew_runner.hpp"

namespace specula::backends::cpu
{
    namespace
    {
        class ew_node_kernel final : public kernel
        {
        public:
            ew_node_kernel(ew_runner runner, std::vector<int> input_of)
                : m_runner(std::move(runner)), m_input_of(std::move(input_of))
            {
            }

            // The runner reads any strides (broadcast, views) blockwise.
            bool reads_layout(int, const buffer&) const override { return true; }

        private:
            status run_impl(const kernel_io& io) const override
            {
                const buffer* ins[4];
                for (std::size_t i = 0; i < m_input_of.size(); ++i)
                {
                    ins[i] = &io.in(m_input_of[i]);
                }
                buffer* outs[1] = {&io.out(0)};
                return m_runner.run(ins, outs);
            }

            ew_runner m_runner;
            std::vector<int> m_input_of; // program input -> node input index
        };
    } // namespace

    loop_source loops_of(const kernel_context& ctx)
    {
        return {ctx.p_options->numpy_loops.get(), true};
    }

    result<std::unique_ptr<kernel>> make_elementwise_kernel(const ir::graph& g, const ir::node& n,
                                                            const kernel_context& ctx)
    {
        if (!ir::has(n.code, ir::prop::ELEMENTWISE) || n.outputs.size() != 1)
        {
            return status::unimplemented("not elementwise");
        }
        auto prog = build_program(g, {&n}, {n.outputs[0]}, loops_of(ctx));
        if (!prog)
        {
            return prog.error();
        }
        std::vector<int> input_of;
        for (ir::value_id v : prog->m_inputs)
        {
            for (std::size_t i = 0; i < n.inputs.size(); ++i)
            {
                if (n.inputs[i] == v)
                {
                    input_of.push_back(static_cast<int>(i));
                    break;
                }
            }
        }
        return std::unique_ptr<kernel>(
            new ew_node_kernel(ew_runner(std::move(prog.value()), ctx.pool), std::move(input_of)));
    }
} // namespace specula::backends::cpu
