// NumPy's memory order of the arrays a converted function holds. The graph's
// buffers are always C-ordered copies at the boundary and its reductions add
// in logical C order, while NumPy follows memory order (order='K' results,
// reductions along memory, views sharing their base). Where the two can
// differ, the converter refuses: transparency outranks coverage.
#include "engine/converter/converter.hpp"

#include <algorithm>
#include <tuple>

namespace specula::engine::converter
{
    namespace
    {
        bool is_view_op(ir::op code)
        {
            switch (code)
            {
            case ir::op::TRANSPOSE:
            case ir::op::SLICE:
            case ir::op::EXPAND_DIMS:
            case ir::op::SQUEEZE:
            case ir::op::BROADCAST_TO:
            case ir::op::RESHAPE:
                return true;
            default:
                return false;
            }
        }

        // Whether a permutation keeps every axis of size != 1 in order.
        bool keeps_order(const std::vector<int>& perm, const ir::shape& in)
        {
            int last = -1;
            for (int axis : perm)
            {
                const ir::dim& d = in[axis];
                if (d.is_static() && d.size() == 1)
                {
                    continue;
                }
                if (axis < last)
                {
                    return false;
                }
                last = axis;
            }
            return true;
        }
    } // namespace

    layout converter::layout_of(ir::value_id v)
    {
        auto memo = m_layouts.find(v);
        if (memo != m_layouts.end())
        {
            return memo->second;
        }
        const ir::value& val = p_graph->get(v);
        layout result = layout::other;
        if (val.def == ir::no_id)
        {
            m_layouts[v] = result; // a region argument: nothing known
            return result;
        }
        // Copied: layout_of() below may not add nodes, but stay safe.
        const ir::node n = p_graph->get_node(val.def);
        int rank = type_of(v).dims.rank();
        auto operand = [&](size_t i) { return layout_of(n.inputs[i]); };
        switch (n.code)
        {
        case ir::op::INPUT:
        {
            auto in = m_input_contiguous.find(v);
            result =
                in != m_input_contiguous.end() && in->second ? layout::contiguous : layout::other;
            break;
        }
        case ir::op::TRANSPOSE:
        {
            layout base = operand(0);
            result = keeps_order(n.attr_as<ir::perm_attr>().perm, type_of(n.inputs[0]).dims)
                         ? base
                         : layout::other;
            break;
        }
        case ir::op::SLICE:
        {
            layout base = operand(0);
            result = base == layout::other ? layout::other : layout::c_like;
            for (const ir::slice_item& item : n.attr_as<ir::slice_attr>().items)
            {
                if (item.what == ir::slice_item::kind::range && item.step <= 0)
                {
                    result = layout::other;
                }
            }
            break;
        }
        case ir::op::EXPAND_DIMS:
        case ir::op::SQUEEZE:
            result = operand(0);
            break;
        case ir::op::BROADCAST_TO:
            // Stride-0 axes do not sway NumPy's order='K' choice.
            result = operand(0) == layout::other ? layout::other : layout::c_like;
            break;
        case ir::op::RESHAPE:
            // A view of a C-contiguous array, else NumPy copies in C order.
            result = operand(0) == layout::contiguous ? layout::contiguous : layout::c_like;
            break;
        case ir::op::MATMUL:
        case ir::op::DOT:
        case ir::op::OUTER:
            result = layout::contiguous;
            break;
        case ir::op::IF:
            // NumPy's array is the one the side taken made: the worse order
            // of the two (its inputs, the condition, say nothing).
            result = layout::contiguous;
            for (ir::region_id side : n.regions)
            {
                result = std::max(result, layout_of(p_graph->get_region(side).results[val.index]));
            }
            break;
        case ir::op::LOOP:
            loop_layouts(n);
            return m_layouts.at(v);
        default:
        {
            // Elementwise, casts, reductions, joins, updates: NumPy's result
            // follows its operands' order; C order when all of them are
            // C-like (or 1-D, where there is only one order).
            result = layout::contiguous;
            for (size_t i = 0; i < n.inputs.size(); ++i)
            {
                if (type_of(n.inputs[i]).dims.rank() >= 2 && operand(i) == layout::other)
                {
                    result = layout::other;
                }
            }
            break;
        }
        }
        if (!is_view_op(n.code) && rank <= 1)
        {
            result = layout::contiguous; // a fresh array of rank <= 1 has one order
        }
        m_layouts[v] = result;
        return result;
    }

    void converter::note_layout(ir::value_id v, layout l)
    {
        m_layouts[v] = l;
        m_layout_facts.insert(v);
    }

    void converter::loop_layouts(const ir::node& loop)
    {
        // A carried array leaves the loop as it came in (no trip) or as a
        // trip made it from the previous one: NumPy's order is the fixed
        // point of the trip from the initial values' orders.
        const auto& a = loop.attr_as<ir::loop_attr>();
        const size_t first = (a.has_trip_count ? 1 : 0) + (a.has_condition ? 1 : 0);
        std::vector<layout> assumed;
        for (size_t i = first; i < loop.inputs.size(); ++i)
        {
            assumed.push_back(layout_of(loop.inputs[i]));
        }
        for (bool stable = false; !stable;)
        {
            const std::vector<layout> got = trip_layouts(loop, assumed);
            stable = true;
            for (size_t i = 0; i < assumed.size(); ++i)
            {
                if (got[i] > assumed[i])
                {
                    assumed[i] = got[i]; // only worsens: at most two rounds a slot
                    stable = false;
                }
            }
        }
        for (size_t i = 0; i < loop.outputs.size() && i < assumed.size(); ++i)
        {
            const ir::value_id out = loop.outputs[i];
            m_layouts[out] = type_of(out).dims.rank() <= 1 ? layout::contiguous : assumed[i];
        }
    }

    std::vector<layout> converter::trip_layouts(const ir::node& loop,
                                                const std::vector<layout>& assumed)
    {
        // The body's orders were memoised while converting it, with its
        // carried arguments unknown (or as their initial values): derive
        // them again from `assumed`, keeping what converter steps noted
        // (worse or equal under the conversion's assumptions) and what
        // nested loops' arguments were given.
        const ir::region_id body_id = loop.regions[0];
        std::map<ir::value_id, layout> saved = m_layouts;
        for (auto it = m_layouts.begin(); it != m_layouts.end();)
        {
            const ir::value& val = p_graph->get(it->first);
            const bool derived = val.def != ir::no_id && m_layout_facts.count(it->first) == 0;
            if (derived && val.region != ir::no_id &&
                p_graph->is_ancestor_region(body_id, val.region))
            {
                it = m_layouts.erase(it);
            }
            else
            {
                ++it;
            }
        }
        const ir::region& body = p_graph->get_region(body_id);
        for (size_t i = 0; i < assumed.size() && i + 1 < body.args.size(); ++i)
        {
            m_layouts[body.args[i + 1]] = assumed[i];
        }
        const auto& a = loop.attr_as<ir::loop_attr>();
        const size_t r0 = a.has_condition ? 1 : 0;
        std::vector<layout> got;
        for (size_t i = 0; i < assumed.size(); ++i)
        {
            got.push_back(r0 + i < body.results.size() ? layout_of(body.results[r0 + i])
                                                       : layout::other);
        }
        m_layouts = std::move(saved);
        return got;
    }

    void converter::check_escape_layout(const array_entry& e, py::handle node)
    {
        if (e.surf != surface::ndarray)
        {
            return;
        }
        if (e.view_of >= 0)
        {
            // NumPy hands back a view sharing the base's memory (base, flags,
            // strides); the graph's outputs are separate C-ordered arrays.
            fail("a view of a computed array escaping (returned or stored)", node);
        }
        if (type_of(e.value).dims.rank() >= 2 && layout_of(e.value) != layout::contiguous)
        {
            fail("a result NumPy would not lay out in C order (operands transposed or strided)",
                 node);
        }
    }

    bool converter::strides_match(ir::value_id v)
    {
        // The graph's buffer for `v` has NumPy's strides when every fresh
        // array along its chain of views is C-ordered in NumPy too (inputs
        // are NumPy's own memory; views keep their base's strides).
        const ir::value& val = p_graph->get(v);
        if (val.def == ir::no_id)
        {
            // A region argument: only one whose NumPy order a loop checks on
            // every trip (loop_chunk.cpp) is known to be C-contiguous.
            auto known = m_layouts.find(v);
            return known != m_layouts.end() && known->second == layout::contiguous;
        }
        const ir::node& n = p_graph->get_node(val.def);
        if (n.code == ir::op::INPUT)
        {
            return true;
        }
        if (is_view_op(n.code) && n.code != ir::op::RESHAPE)
        {
            return strides_match(n.inputs[0]);
        }
        return type_of(v).dims.rank() <= 1 || layout_of(v) != layout::other;
    }

    void converter::check_product_operands(ir::value_id a, ir::value_id b, py::handle node)
    {
        // BLAS calls (gemm/gemv transpose flags, syrk) follow the operands'
        // strides, and so does their summation order.
        for (ir::value_id v : {a, b})
        {
            if (type_of(v).dims.rank() >= 2 && !strides_match(v))
            {
                fail("matrix product of an array NumPy holds in another memory order (e.g. lr * "
                     "X.T)",
                     node);
            }
        }
    }

    ir::value_id converter::transposed_source(ir::value_id v)
    {
        // `A.T` of a C-contiguous 2-D A: A itself, else no_id.
        const ir::value& val = p_graph->get(v);
        if (val.def == ir::no_id || type_of(v).dims.rank() != 2)
        {
            return ir::no_id;
        }
        const ir::node& n = p_graph->get_node(val.def);
        if (n.code != ir::op::TRANSPOSE ||
            n.attr_as<ir::perm_attr>().perm != std::vector<int>{1, 0} ||
            layout_of(n.inputs[0]) != layout::contiguous)
        {
            return ir::no_id;
        }
        return n.inputs[0];
    }

    ir::value_id converter::matrix_product(bool is_dot, ir::value_id a, ir::value_id b,
                                           py::handle node)
    {
        ir::value_id out = product_of(is_dot, a, b, node);
        if (out == ir::no_id)
        {
            fail("matrix product of these operands (" + m_builder->state().message() + ")", node);
        }
        return out;
    }

    ir::value_id converter::product_of(bool is_dot, ir::value_id a, ir::value_id b, py::handle node)
    {
        const ir::shape da = type_of(a).dims;
        const ir::shape db = type_of(b).dims;
        if (is_dot)
        {
            // np.dot is its own call (cblas_matrixproduct: copies of what BLAS
            // can not read, then ?dot/gemv/gemm with its flags), never matmul's
            // gufunc loop (no copy: a strided operand takes the no-BLAS loop).
            // The backend reads the operands' strides, which must be NumPy's.
            check_product_operands(a, b, node);
            return m_builder->dot(a, b);
        }
        auto is = [](const ir::dim& d, std::int64_t n) { return d.is_static() && d.size() == n; };
        auto vector_like = [&](const ir::shape& s, int outer_axis)
        { return s.rank() == 1 || (s.rank() == 2 && is(s[outer_axis], 1)); };
        // NumPy runs a matrix-vector product of a transposed matrix as gemv on
        // the matrix's own memory; the graph's buffers are C-ordered copies.
        // A.T @ x equals (x.T @ A).T and v @ B.T equals (B @ v.T).T bit for bit
        // in NumPy (checked over all shapes with OpenBLAS), and the swapped form
        // reads A and B in their own order.
        if (da.rank() == 2 && !is(da[1], 1) && vector_like(db, 1))
        {
            if (ir::value_id a0 = transposed_source(a); a0 != ir::no_id)
            {
                if (db.rank() == 1)
                    return m_builder->matmul(b, a0);
                return m_builder->transpose(m_builder->matmul(m_builder->transpose(b, {1, 0}), a0),
                                            {1, 0});
            }
        }
        if (db.rank() == 2 && !is(db[0], 1) && vector_like(da, 0))
        {
            if (ir::value_id b0 = transposed_source(b); b0 != ir::no_id)
            {
                if (da.rank() == 1)
                    return m_builder->matmul(b0, a);
                return m_builder->transpose(m_builder->matmul(b0, m_builder->transpose(a, {1, 0})),
                                            {1, 0});
            }
        }
        check_product_operands(a, b, node);
        for (const auto& [matrix, vec_shape, outer] : {std::tuple{a, db, 1}, std::tuple{b, da, 0}})
        {
            const ir::shape& dm = type_of(matrix).dims;
            bool is_matrix = dm.rank() == 2 && !is(dm[0], 1) && !is(dm[1], 1);
            if (is_matrix && vector_like(vec_shape, outer) &&
                layout_of(matrix) != layout::contiguous)
            {
                fail("matrix-vector product of a transposed or strided matrix (NumPy's gemv "
                     "follows its memory)",
                     node);
            }
        }
        return m_builder->matmul(a, b);
    }

    void converter::check_reduction_order(ir::op code, ir::value_id v, py::handle node)
    {
        switch (code)
        {
        case ir::op::SUM:
        case ir::op::PROD:
        case ir::op::MEAN:
        case ir::op::VAR:
        case ir::op::STD:
            break;
        default:
            return; // max/min/arg*/any/all do not depend on the order
        }
        const ir::value_type& t = type_of(v);
        if (!ir::is_float(t.elem) || t.dims.rank() <= 1)
        {
            return; // integer sums are exact; one axis has one order
        }
        if (layout_of(v) != layout::contiguous)
        {
            fail("floating-point reduction over a transposed or strided array (NumPy adds in "
                 "memory order)",
                 node);
        }
    }
} // namespace specula::engine::converter
