#include "backends/reference/view.hpp"

namespace specula::backends::reference
{
    scalar to_scalar(ir::dtype t)
    {
        switch (t)
        {
        case ir::dtype::bool_:
            return scalar::b1;
        case ir::dtype::int8:
            return scalar::i8;
        case ir::dtype::int16:
            return scalar::i16;
        case ir::dtype::int32:
            return scalar::i32;
        case ir::dtype::int64:
            return scalar::i64;
        case ir::dtype::uint8:
            return scalar::u8;
        case ir::dtype::float32:
            return scalar::f32;
        case ir::dtype::float64:
            break;
        }
        return scalar::f64;
    }

    strided_view view_of(const buffer& b)
    {
        strided_view v;
        v.data = b.data();
        v.type = to_scalar(b.dtype());
        v.rank = b.rank();
        for (int d = 0; d < v.rank && d < max_rank; ++d)
        {
            v.shape[d] = b.shape()[static_cast<std::size_t>(d)];
            v.strides[d] = b.strides()[static_cast<std::size_t>(d)];
        }
        return v;
    }

    namespace
    {
        class fn_kernel final : public kernel
        {
        public:
            fn_kernel(kernel_fn fn, bool allocates) : m_fn(std::move(fn)), m_allocates(allocates) {}

            bool allocates_outputs() const override { return m_allocates; }

        private:
            status run_impl(const kernel_io& io) const override { return m_fn(io); }

            kernel_fn m_fn;
            bool m_allocates;
        };
    } // namespace

    std::unique_ptr<kernel> make_kernel(kernel_fn fn, bool allocates)
    {
        return std::make_unique<fn_kernel>(std::move(fn), allocates);
    }
} // namespace specula::backends::reference
