#include "backends/reference/elementwise.hpp"
#include "backends/reference/reduce.hpp"

#include <vector>

namespace specula::backends::reference
{
    namespace
    {
        // A zero-initialised C-contiguous temporary owning its bytes.
        struct temp_array
        {
            std::vector<std::byte> bytes;
            strided_view view;

            temp_array(scalar type, int rank, const std::int64_t* shape)
            {
                std::int64_t n = 1;
                for (int d = 0; d < rank; ++d)
                {
                    n *= shape[d];
                }
                bytes.resize(static_cast<std::size_t>(n) * scalar_size(type));
                view = contiguous_view(bytes.data(), type, rank, shape);
            }
        };
    } // namespace

    // NumPy's _var, step by step: mean with keepdims, x = arr - mean, x *= x,
    // sum(x), divide by max(n - ddof, 0); std adds a sqrt. Reusing the same
    // kernels reproduces its rounding exactly.
    status run_variance(const reduce_spec& spec, const strided_view& in, const strided_view& out)
    {
        const scalar acc_type = out.type;
        dims keep_shape = in.shape;
        std::int64_t count = 1;
        for (int d = 0; d < in.rank; ++d)
        {
            if ((spec.axes >> d) & 1U)
            {
                count *= in.shape[d];
                keep_shape[d] = 1;
            }
        }
        temp_array mean(acc_type, in.rank, keep_shape.data());
        status st = run_reduce({reduce_op::mean, spec.axes, 0}, in, mean.view);
        temp_array dev(acc_type, in.rank, in.shape.data());
        if (st)
        {
            st = run_binary(binary_op::subtract, in, mean.view, dev.view);
        }
        if (st)
        {
            st = run_binary(binary_op::multiply, dev.view, dev.view, dev.view);
        }
        if (st)
        {
            st = run_reduce({reduce_op::sum, spec.axes, 0}, dev.view, out);
        }
        const std::int64_t divisor_value = count - spec.ddof > 0 ? count - spec.ddof : 0;
        temp_array divisor(scalar::i64, 0, nullptr);
        store<std::int64_t>(divisor.view.data, divisor_value);
        if (st)
        {
            st = run_binary(binary_op::true_divide, out, divisor.view, out);
        }
        if (st && spec.op == reduce_op::std)
        {
            st = run_unary(unary_op::sqrt, out, out);
        }
        return st;
    }
} // namespace specula::backends::reference
