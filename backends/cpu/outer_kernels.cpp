// np.outer(a, b): out[i, j] = a[i] * b[j] in the promoted dtype, NumPy's
// multiply loop (or our bit-equal one) called once per row with a stride-0
// first operand, as multiply.outer's broadcast inner loop runs. Operands of
// another dtype are converted first (NumPy's casting of the inputs).

#include "backends/cpu/cpu_backend.hpp"
#include "backends/cpu/ew_program.hpp"
#include "backends/cpu/strided_copy.hpp"
#include "backends/reference/view.hpp"

namespace specula::backends::cpu
{
    loop_source loops_of(const kernel_context& ctx);

    namespace
    {
        class outer_kernel final : public kernel
        {
        public:
            // Any layout: strided inputs are read in place or copied by
            // strided_copy, so the executor need not stage them.
            bool reads_layout(int, const buffer&) const override { return true; }
            outer_kernel(ufunc_loop multiply, ir::dtype elem) : m_multiply(multiply), m_elem(elem)
            {
            }

        private:
            // `b`'s elements, flattened, as a contiguous array of m_elem.
            const std::byte* operand(const buffer& b, std::vector<std::byte>& scratch) const
            {
                if (b.is_contiguous() && b.dtype() == m_elem)
                {
                    return b.data();
                }
                return contiguous_copy(reference::view_of(b), reference::to_scalar(m_elem), scratch)
                    .data;
            }

            status run_impl(const kernel_io& io) const override
            {
                const buffer& out = io.out(0);
                const std::int64_t m = io.in(0).size();
                const std::int64_t n = io.in(1).size();
                if (out.rank() != 2 || out.shape()[0] != m || out.shape()[1] != n ||
                    !out.is_contiguous())
                {
                    return status::invalid("outer: output shape");
                }
                const std::byte* a = operand(io.in(0), m_a);
                const std::byte* b = operand(io.in(1), m_b);
                const auto item = static_cast<std::intptr_t>(ir::itemsize(m_elem));
                const std::intptr_t steps[3] = {0, item, item};
                const std::intptr_t count = n;
                for (std::int64_t i = 0; i < m; ++i)
                {
                    char* args[3] = {const_cast<char*>(reinterpret_cast<const char*>(a + i * item)),
                                     const_cast<char*>(reinterpret_cast<const char*>(b)),
                                     reinterpret_cast<char*>(out.data() + i * n * item)};
                    m_multiply.fn(args, &count, steps, m_multiply.data);
                }
                return status::ok();
            }

            ufunc_loop m_multiply;
            ir::dtype m_elem;
            mutable std::vector<std::byte> m_a;
            mutable std::vector<std::byte> m_b;
        };
    } // namespace

    result<std::unique_ptr<kernel>> make_outer_kernel(const ir::graph& g, const ir::node& n,
                                                      const kernel_context& ctx)
    {
        if (n.code != ir::op::OUTER)
        {
            return status::unimplemented("not outer");
        }
        const ir::dtype elem = g.type_of(n.outputs[0]).elem;
        const ufunc_loop multiply = select_loop(ir::op::MUL, elem, loops_of(ctx));
        if (!multiply)
        {
            return status::unimplemented("outer: no multiply loop for this dtype");
        }
        for (ir::value_id v : n.inputs)
        {
            if (g.type_of(v).dims.rank() > reference::max_rank)
            {
                return status::unimplemented("outer: rank");
            }
        }
        return std::unique_ptr<kernel>(new outer_kernel(multiply, elem));
    }
} // namespace specula::backends::cpu
