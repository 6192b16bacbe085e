#include "ir/infer.hpp"

#include "ir/detail/infer_rules.hpp"

namespace specula::ir
{
    namespace detail
    {
        bool refines(const value_type& a, const value_type& b)
        {
            if (a.elem != b.elem || a.dims.rank() != b.dims.rank())
            {
                return false;
            }
            for (int i = 0; i < a.dims.rank(); ++i)
            {
                if (a.dims[i] != b.dims[i] && !b.dims[i].is_symbolic())
                {
                    return false;
                }
            }
            return true;
        }

        bool may_equal(const dim& a, const dim& b)
        {
            return a == b || a.is_symbolic() || b.is_symbolic();
        }

        infer_result one(value_type t)
        {
            return types{std::move(t)};
        }
    } // namespace detail

    namespace
    {
        using namespace detail;

        result<shape> broadcast_all(const types& in)
        {
            shape out;
            for (const value_type& t : in)
            {
                auto b = broadcast_shapes(out, t.dims);
                if (!b)
                {
                    return b;
                }
                out = *b;
            }
            return out;
        }

        infer_result infer_elementwise(const infer_request& req)
        {
            auto dims = broadcast_all(req.inputs);
            if (!dims)
            {
                return error{dims.message()};
            }
            std::vector<dtype> elems;
            for (const value_type& t : req.inputs)
            {
                elems.push_back(t.elem);
            }
            std::optional<dtype> out;
            if (req.code == op::CAST)
            {
                out = std::get<cast_attr>(*req.attr).to;
            }
            else if (req.code == op::WHERE)
            {
                out = promote_types(elems[1], elems[2]);
            }
            else
            {
                out = elementwise_dtype(req.code, elems);
            }
            if (!out)
            {
                std::string names;
                for (dtype t : elems)
                {
                    names += (names.empty() ? "" : ", ") + std::string(dtype_name(t));
                }
                return error{"no supported loop for (" + names + ")"};
            }
            return one({*out, *dims});
        }

        status check_arity(const infer_request& req)
        {
            const op_info& oi = info(req.code);
            if (oi.num_inputs >= 0 && static_cast<int>(req.inputs.size()) != oi.num_inputs)
            {
                return status::error("expects " + std::to_string(oi.num_inputs) + " inputs, got " +
                                     std::to_string(req.inputs.size()));
            }
            if (req.attr == nullptr || req.attr->index() != oi.attr_index)
            {
                return status::error("missing or wrong attribute");
            }
            return status::success();
        }
    } // namespace

    result<std::vector<value_type>> infer_output_types(const infer_request& req)
    {
        if (auto st = check_arity(req); !st)
        {
            return st;
        }
        const std::uint32_t props = info(req.code).props;
        if (props & prop::ELEMENTWISE)
        {
            return infer_elementwise(req);
        }
        if (props & prop::REDUCTION)
        {
            return infer_reduction(req);
        }
        if (props & prop::MOVEMENT)
        {
            return infer_movement(req);
        }
        if (props & prop::CONTROL_FLOW)
        {
            return infer_control_flow(req);
        }
        switch (req.code)
        {
        case op::MATMUL:
        case op::DOT:
        case op::OUTER:
            return infer_linalg(req);
        case op::GATHER:
        case op::MASK_SELECT:
        case op::SLICE_UPDATE:
        case op::GATHER_UPDATE:
        case op::MASK_UPDATE:
        case op::SHAPE_DIM:
            return infer_indexing(req);
        case op::OUTPUT:
            return types{};
        case op::ASSERT:
            if (req.inputs[0].elem != dtype::bool_ || req.inputs[0].dims.rank() != 0)
            {
                return error{"condition must be a 0-d bool, got " + req.inputs[0].to_string()};
            }
            return types{};
        case op::INPUT:
        case op::PARAM:
            return error{"boundary types are given, not inferred"};
        default:
            return infer_creation(req);
        }
    }

    result<std::vector<value_type>> infer_node(graph& g, node_id n)
    {
        const node& nd = g.get_node(n);
        infer_request req;
        req.code = nd.code;
        req.attr = &nd.attr;
        for (value_id v : nd.inputs)
        {
            req.inputs.push_back(g.type_of(v));
        }
        for (region_id r : nd.regions)
        {
            std::vector<value_type> res;
            for (value_id v : g.get_region(r).results)
            {
                res.push_back(g.type_of(v));
            }
            req.region_results.push_back(std::move(res));
        }
        if (nd.code == op::LOOP && !nd.regions.empty())
        {
            for (value_id v : g.get_region(nd.regions[0]).args)
            {
                req.extra.push_back(g.type_of(v));
            }
        }
        if (nd.code == op::CALL)
        {
            const module* m = g.parent_module();
            const graph* callee = m ? m->find(nd.attr_as<call_attr>().callee) : nullptr;
            if (callee == nullptr)
            {
                return error{"call of unknown graph '" + nd.attr_as<call_attr>().callee + "'"};
            }
            for (node_id o : callee->outputs())
            {
                req.extra.push_back(callee->type_of(callee->get_node(o).inputs[0]));
            }
        }
        req.fresh_symbol = [&g]() { return g.new_symbol(); };
        req.trimmed_symbol = [&g](std::int32_t base, std::int64_t trim)
        { return g.trimmed_symbol(base, trim); };
        return infer_output_types(req);
    }
} // namespace specula::ir
