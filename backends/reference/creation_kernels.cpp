// Creation IR ops (constants, fills, arange, eye) and shape queries.

#include "backends/reference/elementwise.hpp"
#include "backends/reference/numpy_math.hpp"
#include "backends/reference/reference_backend.hpp"
#include "backends/reference/view.hpp"

#include <cstring>

namespace specula::backends::reference
{
    namespace
    {
        // A 0-d view of an IR scalar in the widest type of its kind, so that
        // run_cast converts it to the target dtype as NumPy's setitem would.
        struct scalar_cell
        {
            std::int64_t ival = 0;
            double fval = 0.0;
            strided_view view;

            explicit scalar_cell(const ir::scalar& s) : ival(s.ival), fval(s.fval)
            {
                const bool is_f = ir::is_float(s.elem);
                view = contiguous_view(is_f ? static_cast<void*>(&fval) : static_cast<void*>(&ival),
                                       is_f ? scalar::f64 : scalar::i64, 0, nullptr);
            }
        };

        kernel_fn fill_with(const ir::scalar& value)
        {
            return [value](const kernel_io& io)
            {
                scalar_cell cell(value);
                return run_cast(cell.view, view_of(io.out(0)));
            };
        }

        // NumPy's arange: the first two elements are set from Python's
        // start and start + step, then element i is v0 + i * (v1 - v0)
        // computed in the result dtype (its `fill` loop).
        template <class T>
        void arange_typed(const ir::arange_attr& a, const strided_view& out)
        {
            const bool ints = !ir::is_float(a.start.elem) && !ir::is_float(a.step.elem);
            T v0;
            T v1;
            if (ints)
            {
                v0 = static_cast<T>(a.start.as_int());
                v1 = static_cast<T>(a.start.as_int() + a.step.as_int());
            }
            else
            {
                v0 = static_cast<T>(a.start.as_double());
                v1 = static_cast<T>(a.start.as_double() + a.step.as_double());
            }
            const T delta = npmath::wrap_sub(v1, v0);
            for (std::int64_t i = 0; i < a.count; ++i)
            {
                T v = i == 0 ? v0
                             : (i == 1 ? v1
                                       : npmath::wrap_add(
                                             v0, npmath::wrap_mul(static_cast<T>(i), delta)));
                store<T>(out.data + i * out.strides[0], v);
            }
        }

        kernel_fn arange_kernel(const ir::arange_attr& a)
        {
            return [a](const kernel_io& io)
            {
                const strided_view out = view_of(io.out(0));
                if (out.rank != 1 || out.shape[0] != a.count)
                {
                    return status::invalid("arange: output shape");
                }
                visit_scalar(out.type,
                             [&](auto t)
                             {
                                 using T = typename decltype(t)::type;
                                 if constexpr (!std::is_same_v<T, bool>)
                                 {
                                     arange_typed<T>(a, out);
                                 }
                             });
                return out.type == scalar::b1 ? status::unimplemented("arange of bool")
                                              : status::ok();
            };
        }

        kernel_fn eye_kernel(const ir::eye_attr& e)
        {
            return [e](const kernel_io& io)
            {
                const strided_view out = view_of(io.out(0));
                scalar_cell zero(ir::scalar::of_int(ir::dtype::int64, 0));
                scalar_cell one(ir::scalar::of_int(ir::dtype::int64, 1));
                status st = run_cast(zero.view, out);
                for (std::int64_t i = 0; st && i < e.rows; ++i)
                {
                    const std::int64_t j = i + e.k;
                    if (j < 0 || j >= e.cols)
                    {
                        continue;
                    }
                    strided_view cell = out;
                    cell.rank = 0;
                    cell.data += i * out.strides[0] + j * out.strides[1];
                    st = run_cast(one.view, cell);
                }
                return st;
            };
        }

        // The constant is materialised once, at compile time; runs share it.
        result<std::unique_ptr<kernel>> constant_kernel(const ir::constant_attr& c)
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
            return make_kernel(
                [value = b.value().as_read_only()](const kernel_io& io)
                {
                    io.out(0) = value;
                    return status::ok();
                },
                true);
        }
    } // namespace

    result<std::unique_ptr<kernel>> make_creation_kernel(const ir::graph& g, const ir::node& n)
    {
        switch (n.code)
        {
        case ir::op::CONSTANT:
            return constant_kernel(n.attr_as<ir::constant_attr>());
        case ir::op::FILL:
            return make_kernel([](const kernel_io& io)
                               { return run_cast(view_of(io.in(1)), view_of(io.out(0))); });
        case ir::op::ZEROS:
            return make_kernel(fill_with(ir::scalar::of_int(ir::dtype::int64, 0)));
        case ir::op::ONES:
            return make_kernel(fill_with(ir::scalar::of_int(ir::dtype::int64, 1)));
        case ir::op::FULL:
            return make_kernel(fill_with(n.attr_as<ir::fill_attr>().value));
        case ir::op::ARANGE:
            return make_kernel(arange_kernel(n.attr_as<ir::arange_attr>()));
        case ir::op::EYE:
            return make_kernel(eye_kernel(n.attr_as<ir::eye_attr>()));
        case ir::op::SHAPE_DIM:
        {
            const int rank = g.type_of(n.inputs[0]).dims.rank();
            int axis = n.attr_as<ir::axis_attr>().axis;
            axis += axis < 0 ? rank : 0;
            return make_kernel(
                [axis](const kernel_io& io)
                {
                    const std::int64_t size = io.in(0).shape()[static_cast<std::size_t>(axis)];
                    std::memcpy(io.out(0).data(), &size, sizeof size);
                    return status::ok();
                });
        }
        default:
            return status::unimplemented("not a creation op");
        }
    }
} // namespace specula::backends::reference
