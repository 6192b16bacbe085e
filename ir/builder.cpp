#include "ir/builder.hpp"

#include <algorithm>

#include "ir/infer.hpp"

namespace specula::ir
{
    builder::builder(graph& g) : p_graph(&g), m_region(g.body())
    {
        // Continue numbering after boundary nodes already in the graph.
        for (node_id n : g.get_region(g.body()).nodes)
        {
            const node& nd = g.get_node(n);
            if (!has(nd.code, prop::BOUNDARY))
            {
                continue;
            }
            const int next = nd.attr_as<boundary_attr>().index + 1;
            int& counter = nd.code == op::OUTPUT ? m_next_boundary_out : m_next_boundary_in;
            counter = std::max(counter, next);
        }
    }

    void builder::set_insertion_end(region_id r)
    {
        m_region = r;
        m_before = no_id;
    }

    void builder::set_insertion_before(node_id n)
    {
        m_region = p_graph->get_node(n).parent;
        m_before = n;
    }

    void builder::fail(std::string message)
    {
        if (m_status.ok())
        {
            m_status = status::error(std::move(message));
        }
    }

    bool builder::check_inputs(const std::vector<value_id>& inputs)
    {
        for (value_id v : inputs)
        {
            if (v == no_id || v >= p_graph->num_values())
            {
                fail("invalid input value");
                return false;
            }
        }
        return m_status.ok();
    }

    std::vector<int> builder::canonical_axes(value_id x, std::vector<int> axes) const
    {
        // Non-negative and sorted, so equal reductions print and CSE alike; bad axes
        // are left for the type rules to report.
        if (x == no_id || x >= p_graph->num_values())
        {
            return axes;
        }
        const int rank = p_graph->type_of(x).dims.rank();
        for (int& axis : axes)
        {
            if (auto k = normalize_axis(axis, rank))
            {
                axis = *k;
            }
        }
        std::sort(axes.begin(), axes.end());
        return axes;
    }

    int builder::canonical_axis(value_id x, int axis, int extra_rank) const
    {
        if (x == no_id || x >= p_graph->num_values())
        {
            return axis;
        }
        return normalize_axis(axis, p_graph->type_of(x).dims.rank() + extra_rank).value_or(axis);
    }

    value_id builder::single(std::vector<value_id> outs)
    {
        return outs.size() == 1 ? outs[0] : no_id;
    }

    std::vector<value_id> builder::create(op code, std::vector<value_id> inputs, attribute attr,
                                          std::vector<region_id> regions,
                                          std::optional<std::vector<value_type>> out_types)
    {
        if (!check_inputs(inputs))
        {
            return {};
        }
        if (attr.index() != info(code).attr_index)
        {
            fail(std::string(mnemonic(code)) + ": wrong attribute kind");
            return {};
        }
        if (!out_types)
        {
            infer_request req;
            req.code = code;
            req.attr = &attr;
            for (value_id v : inputs)
            {
                req.inputs.push_back(p_graph->type_of(v));
            }
            for (region_id r : regions)
            {
                std::vector<value_type> res;
                for (value_id v : p_graph->get_region(r).results)
                {
                    res.push_back(p_graph->type_of(v));
                }
                req.region_results.push_back(std::move(res));
            }
            if (code == op::LOOP && !regions.empty())
            {
                for (value_id v : p_graph->get_region(regions[0]).args)
                {
                    req.extra.push_back(p_graph->type_of(v));
                }
            }
            graph* g = p_graph;
            req.fresh_symbol = [g]() { return g->new_symbol(); };
            req.trimmed_symbol = [g](std::int32_t base, std::int64_t trim)
            { return g->trimmed_symbol(base, trim); };
            auto types = infer_output_types(req);
            if (!types)
            {
                fail(std::string(mnemonic(code)) + ": " + types.message());
                return {};
            }
            out_types = std::move(*types);
        }
        region& r = p_graph->get_region(m_region);
        const std::size_t pos = m_before == no_id ? r.nodes.size() : p_graph->position(m_before);
        const node_id n = p_graph->add_node(code, std::move(inputs), *out_types, std::move(attr),
                                            std::move(regions), m_region, pos);
        return p_graph->get_node(n).outputs;
    }

    value_id builder::input(const value_type& type, std::string name)
    {
        boundary_attr a{m_next_boundary_in++, std::move(name)};
        return single(create(op::INPUT, {}, a, {}, std::vector<value_type>{type}));
    }

    value_id builder::param(const value_type& type, std::string name)
    {
        boundary_attr a{m_next_boundary_in++, std::move(name)};
        return single(create(op::PARAM, {}, a, {}, std::vector<value_type>{type}));
    }

    void builder::output(value_id v, std::string name)
    {
        boundary_attr a{m_next_boundary_out++, std::move(name)};
        create(op::OUTPUT, {v}, a);
    }

    value_id builder::constant(const scalar& s)
    {
        return constant(constant_attr::from_scalar(s));
    }

    value_id builder::constant(constant_attr data)
    {
        const auto n = data.dims.num_elements();
        if (!n || data.bytes.size() != static_cast<size_t>(*n * itemsize(data.elem)))
        {
            fail("constant: byte size does not match a static shape");
            return no_id;
        }
        return single(create(op::CONSTANT, {}, std::move(data)));
    }

    std::optional<dtype> python_scalar_dtype(op code, const promotion_operand& other,
                                             const promotion_operand& s)
    {
        if (auto elem = result_type({other, s}))
        {
            return elem;
        }
        if (other.elem != dtype::uint8 || s.what != promotion_operand::kind::python_int ||
            s.ival <= 255)
        {
            return std::nullopt;
        }
        // Results that depend only on the exact values (bool or float64 out).
        const bool exact = code == op::EQ || code == op::NE || code == op::LT || code == op::LE ||
                           code == op::GT || code == op::GE || code == op::LOGICAL_AND ||
                           code == op::LOGICAL_OR || code == op::LOGICAL_XOR || code == op::DIV;
        if (exact)
        {
            return s.ival <= INT32_MAX ? dtype::int32 : dtype::int64;
        }
        // These resolve through np.result_type (uint16 and up: not ours); every
        // other binary ufunc searches its loops in order and finds int16 first.
        const bool uniform = code == op::ADD || code == op::SUB || code == op::MUL ||
                             code == op::MAXIMUM || code == op::MINIMUM;
        if (!uniform && s.ival <= INT16_MAX)
        {
            return dtype::int16;
        }
        return std::nullopt;
    }

    value_id builder::python_scalar(op code, const promotion_operand& s, value_id other,
                                    const std::optional<promotion_operand>& other_value)
    {
        if (!ok() || other == no_id || static_cast<std::size_t>(other) >= p_graph->num_values())
        {
            fail("python_scalar: no other operand");
            return no_id;
        }
        const value_type& t = p_graph->type_of(other);
        if (t.dims.rank() == 0 && !other_value)
        {
            fail("python_scalar: a 0-d operand's value decides the dtype; pass it");
            return no_id;
        }
        const promotion_operand o =
            t.dims.rank() > 0 ? promotion_operand::array_of(t.elem) : *other_value;
        const auto elem = python_scalar_dtype(code, o, s);
        if (!elem)
        {
            fail("python_scalar: NumPy's result dtype is not supported");
            return no_id;
        }
        if (!is_float(*elem))
        {
            return constant(scalar::of_int(*elem, s.ival));
        }
        const double v =
            s.what == promotion_operand::kind::python_float ? s.fval : static_cast<double>(s.ival);
        // float32 scalars hold their exact widening (NumPy rounds once, to nearest).
        return constant(scalar::of_float(
            *elem, *elem == dtype::float32 ? static_cast<double>(static_cast<float>(v)) : v));
    }

    value_id builder::unary(op code, value_id x)
    {
        if (!has(code, prop::UNARY) || code == op::CAST)
        {
            fail(std::string(mnemonic(code)) + " is not a unary elementwise op");
            return no_id;
        }
        return single(create(code, {x}, none_attr{}));
    }

    value_id builder::binary(op code, value_id a, value_id b)
    {
        if (!has(code, prop::BINARY))
        {
            fail(std::string(mnemonic(code)) + " is not a binary elementwise op");
            return no_id;
        }
        return single(create(code, {a, b}, none_attr{}));
    }

    value_id builder::cast(value_id x, dtype to)
    {
        return single(create(op::CAST, {x}, cast_attr{to}));
    }
    value_id builder::where(value_id c, value_id a, value_id b)
    {
        return single(create(op::WHERE, {c, a, b}, none_attr{}));
    }
    value_id builder::clip(value_id x, value_id lo, value_id hi)
    {
        return single(create(op::CLIP, {x, lo, hi}, none_attr{}));
    }
    value_id builder::matmul(value_id a, value_id b)
    {
        return single(create(op::MATMUL, {a, b}, none_attr{}));
    }
    value_id builder::dot(value_id a, value_id b)
    {
        return single(create(op::DOT, {a, b}, none_attr{}));
    }
    value_id builder::outer(value_id a, value_id b)
    {
        return single(create(op::OUTER, {a, b}, none_attr{}));
    }

    value_id builder::reduce_all(op code, value_id x, bool keepdims, std::int64_t ddof)
    {
        reduce_attr a;
        a.all_axes = true;
        a.keepdims = keepdims;
        a.ddof = ddof;
        return single(create(code, {x}, a));
    }

    value_id builder::reduce(op code, value_id x, std::vector<int> axes, bool keepdims,
                             std::int64_t ddof)
    {
        reduce_attr a;
        a.all_axes = false;
        a.axes = canonical_axes(x, std::move(axes));
        a.keepdims = keepdims;
        a.ddof = ddof;
        return single(create(code, {x}, a));
    }

    value_id builder::reshape(value_id x, const shape& dims)
    {
        return single(create(op::RESHAPE, {x}, shape_attr{dims}));
    }
    value_id builder::transpose(value_id x, std::vector<int> perm)
    {
        return single(create(op::TRANSPOSE, {x}, perm_attr{std::move(perm)}));
    }
    value_id builder::expand_dims(value_id x, std::vector<int> axes)
    {
        return single(create(op::EXPAND_DIMS, {x}, axes_attr{std::move(axes)}));
    }
    value_id builder::squeeze(value_id x, std::vector<int> axes)
    {
        return single(create(op::SQUEEZE, {x}, axes_attr{std::move(axes)}));
    }
    value_id builder::broadcast_to(value_id x, const shape& dims)
    {
        return single(create(op::BROADCAST_TO, {x}, shape_attr{dims}));
    }
    value_id builder::concatenate(const std::vector<value_id>& xs, int axis)
    {
        return single(create(op::CONCATENATE, xs,
                             axis_attr{xs.empty() ? axis : canonical_axis(xs[0], axis, 0)}));
    }
    value_id builder::stack(const std::vector<value_id>& xs, int axis)
    {
        return single(
            create(op::STACK, xs, axis_attr{xs.empty() ? axis : canonical_axis(xs[0], axis, 1)}));
    }
    value_id builder::slice(value_id x, std::vector<slice_item> items)
    {
        return single(create(op::SLICE, {x}, slice_attr{std::move(items)}));
    }
    value_id builder::gather(value_id x, value_id indices, int axis)
    {
        return single(create(op::GATHER, {x, indices}, axis_attr{canonical_axis(x, axis, 0)}));
    }
    value_id builder::mask_select(value_id x, value_id mask)
    {
        return single(create(op::MASK_SELECT, {x, mask}, none_attr{}));
    }
    value_id builder::slice_update(value_id x, value_id v, std::vector<slice_item> items)
    {
        return single(create(op::SLICE_UPDATE, {x, v}, slice_attr{std::move(items)}));
    }
    value_id builder::gather_update(value_id x, value_id indices, value_id v, int axis)
    {
        return single(
            create(op::GATHER_UPDATE, {x, indices, v}, axis_attr{canonical_axis(x, axis, 0)}));
    }
    value_id builder::mask_update(value_id x, value_id mask, value_id v)
    {
        return single(create(op::MASK_UPDATE, {x, mask, v}, none_attr{}));
    }
    value_id builder::fill(value_id x, value_id v)
    {
        return single(create(op::FILL, {x, v}, none_attr{}));
    }
    value_id builder::zeros(const shape& dims, dtype elem)
    {
        return single(create(op::ZEROS, {}, fill_attr{dims, elem, scalar::of_int(elem, 0)}));
    }
    value_id builder::ones(const shape& dims, dtype elem)
    {
        return single(create(op::ONES, {}, fill_attr{dims, elem, scalar::of_int(elem, 1)}));
    }
    value_id builder::full(const shape& dims, dtype elem, const scalar& v)
    {
        return single(create(op::FULL, {}, fill_attr{dims, elem, v}));
    }
    value_id builder::arange(const scalar& start, const scalar& step, std::int64_t count,
                             dtype elem)
    {
        return single(create(op::ARANGE, {}, arange_attr{start, step, count, elem}));
    }
    value_id builder::eye(std::int64_t rows, std::int64_t cols, std::int64_t k, dtype elem)
    {
        return single(create(op::EYE, {}, eye_attr{rows, cols, k, elem}));
    }
    value_id builder::shape_dim(value_id x, int axis)
    {
        return single(create(op::SHAPE_DIM, {x}, axis_attr{canonical_axis(x, axis, 0)}));
    }

    void builder::assert_true(value_id cond, std::uint32_t exit_id, std::string reason)
    {
        create(op::ASSERT, {cond}, assert_attr{exit_id, std::move(reason)});
    }

    region_id builder::new_region(const std::vector<value_type>& arg_types)
    {
        return p_graph->add_region(arg_types);
    }

    value_id builder::arg(region_id r, int index) const
    {
        const auto& args = p_graph->get_region(r).args;
        return index >= 0 && static_cast<size_t>(index) < args.size()
                   ? args[static_cast<size_t>(index)]
                   : no_id;
    }

    value_id builder::add_arg(region_id r, const value_type& type)
    {
        return p_graph->add_region_arg(r, type);
    }

    void builder::set_results(region_id r, std::vector<value_id> results)
    {
        if (check_inputs(results))
        {
            p_graph->get_region(r).results = std::move(results);
        }
    }

    std::vector<value_id> builder::if_else(value_id cond, region_id then_region,
                                           region_id else_region)
    {
        return create(op::IF, {cond}, none_attr{}, {then_region, else_region});
    }

    std::vector<value_id> builder::loop(const loop_attr& attr, value_id trip_count, value_id cond,
                                        const std::vector<value_id>& init, region_id body)
    {
        std::vector<value_id> inputs;
        if (attr.has_trip_count)
        {
            inputs.push_back(trip_count);
        }
        if (attr.has_condition)
        {
            inputs.push_back(cond);
        }
        inputs.insert(inputs.end(), init.begin(), init.end());
        return create(op::LOOP, std::move(inputs), attr, {body});
    }

    std::vector<value_id> builder::call(const std::string& callee,
                                        const std::vector<value_id>& args,
                                        std::optional<std::vector<value_type>> result_types)
    {
        const module* m = p_graph->parent_module();
        const graph* g = m ? m->find(callee) : nullptr;
        if (!result_types && g)
        {
            std::vector<value_type> types;
            for (node_id n : g->outputs())
            {
                types.push_back(g->type_of(g->get_node(n).inputs[0]));
            }
            result_types = std::move(types);
        }
        if (!result_types)
        {
            fail("call: unknown callee '" + callee + "' and no result types given");
            return {};
        }
        return create(op::CALL, args, call_attr{callee}, {}, std::move(result_types));
    }
} // namespace specula::ir
