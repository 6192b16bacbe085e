// Creation ops: CONSTANT (materialised once at compile time, shared by every
// run read-only), ZEROS / ONES / FULL (the value converted to the dtype once,
// at compile time, as NumPy's setitem converts it), FILL, ARANGE (NumPy's
// `fill` recurrence, as the reference backend reproduces it), EYE, and
// SHAPE_DIM.

#include "backends/cpu/builtin_loops.hpp"
#include "backends/cpu/cpu_backend.hpp"
#include "backends/cpu/strided_copy.hpp"
#include "backends/reference/numpy_math.hpp"
#include "backends/reference/view.hpp"

#include <array>
#include <cstring>

namespace specula::backends::cpu
{
    namespace
    {
        using reference::view_of;

        // The bytes of `value` converted to `to` (C conversion from the widest
        // type of its kind, as the reference backend's scalar cell does).
        std::array<std::byte, 8> element_bytes(const ir::scalar& value, ir::dtype to)
        {
            std::int64_t ival = value.ival;
            double fval = value.fval;
            const bool is_f = ir::is_float(value.elem);
            char* args[2] = {is_f ? reinterpret_cast<char*>(&fval) : reinterpret_cast<char*>(&ival),
                             nullptr};
            std::array<std::byte, 8> out{};
            args[1] = reinterpret_cast<char*>(out.data());
            const std::intptr_t n = 1;
            const std::intptr_t steps[2] = {0, 0};
            const ufunc_loop loop = cast_loop(is_f ? ir::dtype::float64 : ir::dtype::int64, to);
            loop.fn(args, &n, steps, loop.data);
            return out;
        }

        template <class T>
        void fill_typed(std::byte* data, std::int64_t n, const std::byte* cell)
        {
            T v;
            std::memcpy(&v, cell, sizeof(T));
            T* p = reinterpret_cast<T*>(data);
            std::fill(p, p + n, v);
        }

        // Every element of the contiguous `out` set to `cell`.
        void fill_bytes(const buffer& out, const std::array<std::byte, 8>& cell)
        {
            const std::int64_t n = out.size();
            switch (out.itemsize())
            {
            case 8:
                return fill_typed<std::uint64_t>(out.data(), n, cell.data());
            case 4:
                return fill_typed<std::uint32_t>(out.data(), n, cell.data());
            case 2:
                return fill_typed<std::uint16_t>(out.data(), n, cell.data());
            default:
                return fill_typed<std::uint8_t>(out.data(), n, cell.data());
            }
        }

        class fill_kernel final : public kernel
        {
        public:
            explicit fill_kernel(std::array<std::byte, 8> cell) : m_cell(cell) {}

        private:
            status run_impl(const kernel_io& io) const override
            {
                if (!io.out(0).is_contiguous())
                {
                    return status::internal("fill: strided output");
                }
                fill_bytes(io.out(0), m_cell);
                return status::ok();
            }

            std::array<std::byte, 8> m_cell;
        };

        // FILL(x, v): x's shape, every element v (broadcast) converted.
        class fill_from_kernel final : public kernel
        {
        public:
            // Any layout: strided inputs are read in place or copied by
            // strided_copy, so the executor need not stage them.
            bool reads_layout(int, const buffer&) const override { return true; }

        private:
            status run_impl(const kernel_io& io) const override
            {
                const strided_view out = view_of(io.out(0));
                strided_view v;
                if (!reference::broadcast_view(view_of(io.in(1)), out.rank, out.shape.data(), v))
                {
                    return status::invalid("fill: value does not broadcast");
                }
                return copy_cast(v, out);
            }
        };

        // NumPy's arange: elements 0 and 1 from Python's start and
        // start + step, then v0 + i * (v1 - v0) in the result dtype.
        template <class T>
        void arange_typed(const ir::arange_attr& a, std::byte* data)
        {
            namespace npm = reference::npmath;
            const bool ints = !ir::is_float(a.start.elem) && !ir::is_float(a.step.elem);
            const T v0 =
                ints ? static_cast<T>(a.start.as_int()) : static_cast<T>(a.start.as_double());
            const T v1 = ints ? static_cast<T>(a.start.as_int() + a.step.as_int())
                              : static_cast<T>(a.start.as_double() + a.step.as_double());
            const T delta = npm::wrap_sub(v1, v0);
            T* out = reinterpret_cast<T*>(data);
            for (std::int64_t i = 0; i < a.count; ++i)
            {
                out[i] =
                    i == 0 ? v0
                           : (i == 1 ? v1
                                     : npm::wrap_add(v0, npm::wrap_mul(static_cast<T>(i), delta)));
            }
        }

        class arange_kernel final : public kernel
        {
        public:
            explicit arange_kernel(ir::arange_attr a) : m_attr(std::move(a)) {}

        private:
            status run_impl(const kernel_io& io) const override
            {
                const buffer& out = io.out(0);
                if (out.rank() != 1 || out.shape()[0] != m_attr.count || !out.is_contiguous())
                {
                    return status::invalid("arange: output shape");
                }
                switch (out.dtype())
                {
                case ir::dtype::int8:
                    arange_typed<std::int8_t>(m_attr, out.data());
                    break;
                case ir::dtype::int16:
                    arange_typed<std::int16_t>(m_attr, out.data());
                    break;
                case ir::dtype::int32:
                    arange_typed<std::int32_t>(m_attr, out.data());
                    break;
                case ir::dtype::int64:
                    arange_typed<std::int64_t>(m_attr, out.data());
                    break;
                case ir::dtype::uint8:
                    arange_typed<std::uint8_t>(m_attr, out.data());
                    break;
                case ir::dtype::float32:
                    arange_typed<float>(m_attr, out.data());
                    break;
                case ir::dtype::float64:
                    arange_typed<double>(m_attr, out.data());
                    break;
                case ir::dtype::bool_:
                    return status::unimplemented("arange of bool");
                }
                return status::ok();
            }

            ir::arange_attr m_attr;
        };

        class eye_kernel final : public kernel
        {
        public:
            explicit eye_kernel(ir::eye_attr e)
                : m_attr(e), m_one(element_bytes(ir::scalar::of_int(ir::dtype::int64, 1), e.elem))
            {
            }

        private:
            status run_impl(const kernel_io& io) const override
            {
                const buffer& out = io.out(0);
                if (out.rank() != 2 || out.shape()[0] != m_attr.rows ||
                    out.shape()[1] != m_attr.cols || !out.is_contiguous())
                {
                    return status::invalid("eye: output shape");
                }
                std::memset(out.data(), 0, static_cast<std::size_t>(out.size()) * out.itemsize());
                for (std::int64_t i = 0; i < m_attr.rows; ++i)
                {
                    const std::int64_t j = i + m_attr.k;
                    if (j >= 0 && j < m_attr.cols)
                    {
                        std::memcpy(out.data() + (i * m_attr.cols + j) * out.itemsize(),
                                    m_one.data(), out.itemsize());
                    }
                }
                return status::ok();
            }

            ir::eye_attr m_attr;
            std::array<std::byte, 8> m_one;
        };

        class constant_kernel final : public kernel
        {
        public:
            explicit constant_kernel(buffer value) : m_value(std::move(value)) {}
            bool allocates_outputs() const override { return true; }

        private:
            status run_impl(const kernel_io& io) const override
            {
                io.out(0) = m_value;
                return status::ok();
            }

            buffer m_value; // read-only: shared by every run
        };

        result<std::unique_ptr<kernel>> make_constant(const ir::constant_attr& c)
        {
            auto sizes = c.dims.static_sizes();
            if (!sizes)
            {
                return status::invalid("constant with a symbolic shape");
            }
            auto b = buffer::allocate(c.elem, *sizes);
            if (!b)
            {
                return b.error();
            }
            if (c.bytes.size() != static_cast<std::size_t>(b->size()) * b->itemsize())
            {
                return status::invalid("constant: byte count does not match its shape");
            }
            std::memcpy(b->data(), c.bytes.data(), c.bytes.size());
            return std::unique_ptr<kernel>(new constant_kernel(b.value().as_read_only()));
        }

        class shape_dim_kernel final : public kernel
        {
        public:
            // Any layout: strided inputs are read in place or copied by
            // strided_copy, so the executor need not stage them.
            bool reads_layout(int, const buffer&) const override { return true; }
            explicit shape_dim_kernel(int axis) : m_axis(axis) {}

        private:
            status run_impl(const kernel_io& io) const override
            {
                const std::int64_t size = io.in(0).shape()[static_cast<std::size_t>(m_axis)];
                std::memcpy(io.out(0).data(), &size, sizeof size);
                return status::ok();
            }

            int m_axis;
        };
    } // namespace

    result<std::unique_ptr<kernel>> make_creation_kernel(const ir::graph& g, const ir::node& n,
                                                         const kernel_context&)
    {
        const ir::dtype out = g.type_of(n.outputs[0]).elem;
        switch (n.code)
        {
        case ir::op::CONSTANT:
            return make_constant(n.attr_as<ir::constant_attr>());
        case ir::op::ZEROS:
            return std::unique_ptr<kernel>(
                new fill_kernel(element_bytes(ir::scalar::of_int(ir::dtype::int64, 0), out)));
        case ir::op::ONES:
            return std::unique_ptr<kernel>(
                new fill_kernel(element_bytes(ir::scalar::of_int(ir::dtype::int64, 1), out)));
        case ir::op::FULL:
            return std::unique_ptr<kernel>(
                new fill_kernel(element_bytes(n.attr_as<ir::fill_attr>().value, out)));
        case ir::op::FILL:
            if (g.type_of(n.outputs[0]).dims.rank() > reference::max_rank)
            {
                return status::unimplemented("fill: rank");
            }
            return std::unique_ptr<kernel>(new fill_from_kernel());
        case ir::op::ARANGE:
            if (out == ir::dtype::bool_)
            {
                return status::unimplemented("arange of bool");
            }
            return std::unique_ptr<kernel>(new arange_kernel(n.attr_as<ir::arange_attr>()));
        case ir::op::EYE:
            return std::unique_ptr<kernel>(new eye_kernel(n.attr_as<ir::eye_attr>()));
        case ir::op::SHAPE_DIM:
        {
            const int rank = g.type_of(n.inputs[0]).dims.rank();
            int axis = n.attr_as<ir::axis_attr>().axis;
            axis += axis < 0 ? rank : 0;
            if (axis < 0 || axis >= rank)
            {
                return status::invalid("shape_dim: bad axis");
            }
            return std::unique_ptr<kernel>(new shape_dim_kernel(axis));
        }
        default:
            return status::unimplemented("not a creation op");
        }
    }
} // namespace specula::backends::cpu
