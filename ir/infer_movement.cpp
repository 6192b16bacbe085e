// Type rules for movement ops: reshape, transpose, expand/squeeze, broadcast, concatenate,
// stack and basic slicing.
#include <algorithm>
#include <map>

#include "ir/detail/infer_rules.hpp"

namespace specula::ir::detail
{
    namespace
    {
        // Static element product and the multiset of symbols.
        std::pair<std::int64_t, std::map<std::int32_t, int>> census(const shape& s)
        {
            std::int64_t product = 1;
            std::map<std::int32_t, int> symbols;
            for (const dim& d : s.dims())
            {
                if (d.is_static())
                {
                    product *= d.size();
                }
                else
                {
                    ++symbols[d.symbol_id()];
                }
            }
            return {product, symbols};
        }

        infer_result reshape_type(const value_type& x, const shape& target)
        {
            for (const dim& d : target.dims())
            {
                if (d.is_static() && d.size() < 0)
                {
                    return error{"negative reshape dim"};
                }
            }
            if (census(x.dims) != census(target))
            {
                return error{"cannot reshape " + x.dims.to_string() + " to " + target.to_string()};
            }
            return one({x.elem, target});
        }

        infer_result transpose_type(const value_type& x, std::vector<int> perm)
        {
            const int rank = x.dims.rank();
            if (perm.empty())
            {
                for (int i = rank - 1; i >= 0; --i)
                {
                    perm.push_back(i);
                }
            }
            std::vector<int> sorted = perm;
            std::sort(sorted.begin(), sorted.end());
            for (int i = 0; i < rank; ++i)
            {
                if (static_cast<int>(sorted.size()) != rank || sorted[static_cast<size_t>(i)] != i)
                {
                    return error{"transpose needs a permutation of the axes"};
                }
            }
            std::vector<dim> out;
            for (int p : perm)
            {
                out.push_back(x.dims[p]);
            }
            return one({x.elem, shape(out)});
        }

        infer_result expand_type(const value_type& x, const std::vector<int>& axes)
        {
            const int rank = x.dims.rank() + static_cast<int>(axes.size());
            std::vector<bool> is_new(static_cast<size_t>(rank), false);
            for (int axis : axes)
            {
                auto k = normalize_axis(axis, rank);
                if (!k || is_new[static_cast<size_t>(*k)])
                {
                    return error{"bad or repeated axis " + std::to_string(axis)};
                }
                is_new[static_cast<size_t>(*k)] = true;
            }
            std::vector<dim> out;
            int src = 0;
            for (int i = 0; i < rank; ++i)
            {
                out.push_back(is_new[static_cast<size_t>(i)] ? dim::fixed(1) : x.dims[src++]);
            }
            return one({x.elem, shape(out)});
        }

        infer_result squeeze_type(const value_type& x, const std::vector<int>& axes)
        {
            const int rank = x.dims.rank();
            std::vector<bool> drop(static_cast<size_t>(rank), false);
            for (int i = 0; i < rank && axes.empty(); ++i)
            {
                drop[static_cast<size_t>(i)] = x.dims[i].is(1);
            }
            for (int axis : axes)
            {
                auto k = normalize_axis(axis, rank);
                if (!k || !x.dims[*k].is(1))
                {
                    return error{"cannot squeeze axis " + std::to_string(axis)};
                }
                drop[static_cast<size_t>(*k)] = true;
            }
            std::vector<dim> out;
            for (int i = 0; i < rank; ++i)
            {
                if (!drop[static_cast<size_t>(i)])
                {
                    out.push_back(x.dims[i]);
                }
            }
            return one({x.elem, shape(out)});
        }

        infer_result broadcast_to_type(const value_type& x, const shape& target)
        {
            auto b = broadcast_shapes(x.dims, target);
            if (!b || *b != target)
            {
                return error{"cannot broadcast " + x.dims.to_string() + " to " +
                             target.to_string()};
            }
            return one({x.elem, target});
        }

        infer_result join_type(const infer_request& req, bool stack)
        {
            if (req.inputs.empty())
            {
                return error{"needs at least one input"};
            }
            const value_type& first = req.inputs[0];
            const int in_rank = first.dims.rank();
            const int out_rank = stack ? in_rank + 1 : in_rank;
            auto axis = normalize_axis(std::get<axis_attr>(*req.attr).axis, out_rank);
            if (!axis || (!stack && in_rank == 0))
            {
                return error{"bad axis"};
            }
            dtype elem = first.elem;
            std::int64_t total = 0;
            bool symbolic_total = false;
            for (const value_type& t : req.inputs)
            {
                elem = promote_types(elem, t.elem);
                if (t.dims.rank() != in_rank)
                {
                    return error{"inputs differ in rank"};
                }
                for (int i = 0; i < in_rank; ++i)
                {
                    if ((stack || i != *axis) && t.dims[i] != first.dims[i])
                    {
                        return error{"input dims differ: " + t.dims.to_string() + " vs " +
                                     first.dims.to_string()};
                    }
                }
                if (!stack)
                {
                    const dim d = t.dims[*axis];
                    symbolic_total = symbolic_total || d.is_symbolic();
                    total += d.is_static() ? d.size() : 0;
                }
            }
            std::vector<dim> out = first.dims.dims();
            if (stack)
            {
                out.insert(out.begin() + *axis,
                           dim::fixed(static_cast<std::int64_t>(req.inputs.size())));
            }
            else
            {
                out[static_cast<size_t>(*axis)] =
                    symbolic_total ? dim::symbol(req.fresh_symbol()) : dim::fixed(total);
            }
            return one({elem, shape(out)});
        }
    } // namespace

    namespace
    {
        // Elements a step-1 range `a:-b` drops from a dim of any size, or empty when
        // its count is not `size - trim` for every size (negative start, stop >= 0).
        std::optional<std::int64_t> trim_of(const slice_item& it)
        {
            if (it.step != 1 || (it.has_start && it.start < 0) || (it.has_stop && it.stop >= 0))
            {
                return std::nullopt;
            }
            return (it.has_start ? it.start : 0) + (it.has_stop ? -it.stop : 0);
        }
    } // namespace

    result<shape> sliced_shape(const shape& in, const std::vector<slice_item>& items,
                               const infer_request& req)
    {
        std::vector<dim> out;
        int axis = 0;
        for (const slice_item& it : items)
        {
            if (it.what == slice_item::kind::newaxis)
            {
                out.push_back(dim::fixed(1));
                continue;
            }
            if (axis >= in.rank())
            {
                return error{"too many indices for a rank-" + std::to_string(in.rank()) + " array"};
            }
            if (it.what == slice_item::kind::range && it.step == 0)
            {
                return error{"slice step cannot be zero"};
            }
            const dim d = in[axis++];
            if (d.is_symbolic())
            {
                if (it.what != slice_item::kind::range)
                {
                    continue;
                }
                const auto trim = trim_of(it);
                if (trim && *trim == 0)
                {
                    out.push_back(d);
                }
                else if (trim && req.trimmed_symbol)
                {
                    out.push_back(dim::symbol(req.trimmed_symbol(d.symbol_id(), *trim)));
                }
                else
                {
                    out.push_back(dim::symbol(req.fresh_symbol()));
                }
                continue;
            }
            const slice_range r = normalize_slice(it, d.size());
            if (it.what == slice_item::kind::index)
            {
                if (r.count == 0)
                {
                    return error{"index " + std::to_string(it.start) + " out of bounds for size " +
                                 std::to_string(d.size())};
                }
                continue;
            }
            out.push_back(dim::fixed(r.count));
        }
        for (; axis < in.rank(); ++axis)
        {
            out.push_back(in[axis]);
        }
        return shape(out);
    }

    infer_result infer_movement(const infer_request& req)
    {
        const value_type& x = req.inputs.empty() ? value_type{} : req.inputs[0];
        switch (req.code)
        {
        case op::RESHAPE:
            return reshape_type(x, std::get<shape_attr>(*req.attr).dims);
        case op::TRANSPOSE:
            return transpose_type(x, std::get<perm_attr>(*req.attr).perm);
        case op::EXPAND_DIMS:
            return expand_type(x, std::get<axes_attr>(*req.attr).axes);
        case op::SQUEEZE:
            return squeeze_type(x, std::get<axes_attr>(*req.attr).axes);
        case op::BROADCAST_TO:
            return broadcast_to_type(x, std::get<shape_attr>(*req.attr).dims);
        case op::CONCATENATE:
            return join_type(req, false);
        case op::STACK:
            return join_type(req, true);
        default:
        {
            auto s = sliced_shape(x.dims, std::get<slice_attr>(*req.attr).items, req);
            if (!s)
            {
                return error{s.message()};
            }
            return one({x.elem, *s});
        }
        }
    }
} // namespace specula::ir::detail
