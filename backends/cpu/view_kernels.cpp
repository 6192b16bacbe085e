// Movement ops as zero-copy views: TRANSPOSE, SLICE (basic, steps and
// newaxis included), EXPAND_DIMS, SQUEEZE, BROADCAST_TO, and RESHAPE of a
// C-contiguous input. The output is a buffer::strided_view() of the input's
// memory with the strides NumPy gives the same view; nothing is copied. A
// RESHAPE of a strided input copies (NumPy copies there too).

#include "backends/cpu/cpu_backend.hpp"
#include "backends/cpu/kernel_block.hpp"
#include "backends/run_shapes.hpp"
#include "backends/strided_copy.hpp"
#include "ir/slice.hpp"

#include <string>
#include <vector>

namespace specula::backends::cpu
{
    namespace
    {
        std::vector<std::int64_t> c_strides(const std::vector<std::int64_t>& shape,
                                            std::int64_t item)
        {
            std::vector<std::int64_t> strides(shape.size());
            for (std::size_t d = shape.size(); d-- > 0;)
            {
                strides[d] = item;
                item *= shape[d];
            }
            return strides;
        }

        class view_kernel final : public kernel
        {
        public:
            view_kernel(const ir::graph& g, const ir::node& n) : m_graph(g), m_node(n)
            {
                const ir::value_type& in = g.type_of(n.inputs[0]);
                if (n.code == ir::op::SQUEEZE)
                {
                    const auto& axes = n.attr_as<ir::axes_attr>().axes;
                    for (int d = 0; d < in.dims.rank(); ++d)
                    {
                        m_drop.push_back(axes.empty() && in.dims[d].is(1));
                    }
                    for (int a : axes)
                    {
                        m_drop[static_cast<std::size_t>(a < 0 ? a + in.dims.rank() : a)] = true;
                    }
                }
                if (auto sizes = g.type_of(n.outputs[0]).dims.static_sizes())
                {
                    m_static_shape = std::move(*sizes);
                    m_static = true;
                }
            }

            bool allocates_outputs() const override { return true; }
            bool reads_layout(int, const buffer&) const override { return true; }
            bool aliases_input() const override { return true; }

        private:
            status run_impl(const kernel_io& io) const override
            {
                const buffer& x = io.in(0);
                // The output layout is a function of the input's: made once
                // per input layout, so steady runs allocate nothing.
                if (!m_out || x.shape() != m_in_shape || x.strides() != m_in_strides)
                {
                    if (status st = make_layout(io); !st)
                    {
                        return st;
                    }
                    m_in_shape = x.shape();
                    m_in_strides = x.strides();
                }
                if (m_copy)
                {
                    return copy_reshape(x, io.out(0));
                }
                io.out(0) = x.strided_view(m_offset, m_out);
                return status::ok();
            }

            status copy_reshape(const buffer& x, buffer& out) const
            {
                auto fresh = m_copy_block.take(out, x.dtype(), m_out->shape);
                if (!fresh)
                {
                    return fresh.error();
                }
                copy_to_contiguous(x, fresh->data());
                out = std::move(fresh.value());
                return status::ok();
            }

            status make_layout(const kernel_io& io) const
            {
                auto l = std::make_shared<buffer_layout>();
                m_offset = 0;
                m_copy = false;
                status st = status::ok();
                switch (m_node.code)
                {
                case ir::op::TRANSPOSE:
                    st = transpose(io.in(0), *l);
                    break;
                case ir::op::SLICE:
                    st = slice(io.in(0), *l);
                    break;
                case ir::op::EXPAND_DIMS:
                    st = expand(io.in(0), *l);
                    break;
                case ir::op::SQUEEZE:
                    st = squeeze(io.in(0), *l);
                    break;
                case ir::op::BROADCAST_TO:
                    st = broadcast(io, *l);
                    break;
                default:
                    st = reshape(io, *l);
                    break;
                }
                if (!st)
                {
                    return st;
                }
                m_out = std::move(l);
                return status::ok();
            }

            result<std::vector<std::int64_t>> output_shape(const kernel_io& io) const
            {
                if (m_static)
                {
                    return m_static_shape;
                }
                std::vector<const buffer*> ins(io.inputs, io.inputs + io.num_inputs);
                return resolve_output_shape(m_graph, m_node, ins);
            }

            status transpose(const buffer& x, buffer_layout& l) const
            {
                std::vector<int> perm = m_node.attr_as<ir::perm_attr>().perm;
                if (perm.empty()) // reversed axes
                {
                    for (int d = x.rank() - 1; d >= 0; --d)
                    {
                        perm.push_back(d);
                    }
                }
                for (int p : perm)
                {
                    if (p < 0 || p >= x.rank())
                    {
                        return status::invalid("bad permutation");
                    }
                    l.shape.push_back(x.shape()[static_cast<std::size_t>(p)]);
                    l.strides.push_back(x.strides()[static_cast<std::size_t>(p)]);
                }
                return status::ok();
            }

            status slice(const buffer& x, buffer_layout& l) const
            {
                std::size_t axis = 0;
                for (const ir::slice_item& item : m_node.attr_as<ir::slice_attr>().items)
                {
                    if (item.what == ir::slice_item::kind::newaxis)
                    {
                        l.shape.push_back(1);
                        l.strides.push_back(0); // NumPy's stride for a new axis
                        continue;
                    }
                    if (axis >= x.shape().size())
                    {
                        return status::invalid("too many indices");
                    }
                    const std::int64_t stride = x.strides()[axis];
                    const ir::slice_range r = ir::normalize_slice(item, x.shape()[axis++]);
                    if (item.what == ir::slice_item::kind::index)
                    {
                        if (r.count == 0)
                        {
                            return status::runtime("index out of range");
                        }
                        m_offset += r.start * stride;
                        continue;
                    }
                    if (r.count > 0)
                    {
                        m_offset += r.start * stride;
                    }
                    l.shape.push_back(r.count);
                    l.strides.push_back(r.step * stride);
                }
                for (; axis < x.shape().size(); ++axis)
                {
                    l.shape.push_back(x.shape()[axis]);
                    l.strides.push_back(x.strides()[axis]);
                }
                return status::ok();
            }

            status expand(const buffer& x, buffer_layout& l) const
            {
                const auto& axes = m_node.attr_as<ir::axes_attr>().axes;
                const int rank = x.rank() + static_cast<int>(axes.size());
                std::vector<bool> is_new(static_cast<std::size_t>(rank), false);
                for (int a : axes)
                {
                    const int k = a < 0 ? a + rank : a;
                    if (k < 0 || k >= rank)
                    {
                        return status::invalid("bad axis");
                    }
                    is_new[static_cast<std::size_t>(k)] = true;
                }
                l.shape.resize(static_cast<std::size_t>(rank));
                l.strides.resize(static_cast<std::size_t>(rank));
                // Right to left: a new axis takes the stride C order would
                // give it (what NumPy's reshape-based expand_dims gives).
                std::int64_t next = static_cast<std::int64_t>(x.itemsize());
                int src = x.rank();
                for (int d = rank - 1; d >= 0; --d)
                {
                    const auto du = static_cast<std::size_t>(d);
                    if (is_new[du])
                    {
                        l.shape[du] = 1;
                        l.strides[du] = next;
                        continue;
                    }
                    --src;
                    l.shape[du] = x.shape()[static_cast<std::size_t>(src)];
                    l.strides[du] = x.strides()[static_cast<std::size_t>(src)];
                    next = l.strides[du] * l.shape[du];
                }
                return status::ok();
            }

            status squeeze(const buffer& x, buffer_layout& l) const
            {
                if (static_cast<std::size_t>(x.rank()) != m_drop.size())
                {
                    return status::invalid("squeeze of another rank");
                }
                for (std::size_t d = 0; d < m_drop.size(); ++d)
                {
                    if (m_drop[d] && x.shape()[d] != 1)
                    {
                        return status::invalid("cannot squeeze an axis of size " +
                                               std::to_string(x.shape()[d]));
                    }
                    if (!m_drop[d])
                    {
                        l.shape.push_back(x.shape()[d]);
                        l.strides.push_back(x.strides()[d]);
                    }
                }
                return status::ok();
            }

            status broadcast(const kernel_io& io, buffer_layout& l) const
            {
                auto shape = output_shape(io);
                if (!shape)
                {
                    return shape.error();
                }
                const buffer& x = io.in(0);
                l.shape = std::move(shape.value());
                const int lead = static_cast<int>(l.shape.size()) - x.rank();
                if (lead < 0)
                {
                    return status::invalid("broadcast to a lower rank");
                }
                for (std::size_t d = 0; d < l.shape.size(); ++d)
                {
                    const int src = static_cast<int>(d) - lead;
                    const std::int64_t size =
                        src < 0 ? 1 : x.shape()[static_cast<std::size_t>(src)];
                    if (size != l.shape[d] && size != 1)
                    {
                        return status::invalid("cannot broadcast");
                    }
                    const bool same = src >= 0 && size == l.shape[d];
                    l.strides.push_back(same ? x.strides()[static_cast<std::size_t>(src)] : 0);
                }
                return status::ok();
            }

            status reshape(const kernel_io& io, buffer_layout& l) const
            {
                auto shape = output_shape(io);
                if (!shape)
                {
                    return shape.error();
                }
                const buffer& x = io.in(0);
                l.shape = std::move(shape.value());
                std::int64_t count = 1;
                for (auto d : l.shape)
                {
                    count *= d;
                }
                if (count != x.size())
                {
                    return status::invalid("reshape changes the size");
                }
                l.strides = c_strides(l.shape, static_cast<std::int64_t>(x.itemsize()));
                m_copy = !x.is_contiguous();
                return status::ok();
            }

            const ir::graph& m_graph;
            const ir::node& m_node;
            std::vector<bool> m_drop; // SQUEEZE: input axes dropped
            std::vector<std::int64_t> m_static_shape;
            bool m_static = false;
            // The last input layout seen and what it gives (one run at a time).
            mutable std::vector<std::int64_t> m_in_shape;
            mutable std::vector<std::int64_t> m_in_strides;
            mutable layout_ref m_out;
            mutable std::int64_t m_offset = 0;
            mutable bool m_copy = false;
            kernel_block m_copy_block; // RESHAPE of a strided input: its copy, reused
        };
    } // namespace

    result<std::unique_ptr<kernel>> make_view_kernel(const ir::graph& g, const ir::node& n,
                                                     const kernel_context& ctx)
    {
        if (!ctx.p_options->views)
        {
            return status::unimplemented("views off");
        }
        switch (n.code)
        {
        case ir::op::TRANSPOSE:
        case ir::op::SLICE:
        case ir::op::EXPAND_DIMS:
        case ir::op::SQUEEZE:
        case ir::op::BROADCAST_TO:
        case ir::op::RESHAPE:
            return std::unique_ptr<kernel>(new view_kernel(g, n));
        default:
            return status::unimplemented("not a view");
        }
    }
} // namespace specula::backends::cpu
