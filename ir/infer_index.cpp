// Type rules for indexing (gather, masks, functional updates) and creation ops.
#include "ir/detail/infer_rules.hpp"

namespace specula::ir::detail
{
    namespace
    {
        infer_result gather_type(const value_type& x, const value_type& idx, int axis_in)
        {
            if (!is_integer(idx.elem))
            {
                return error{"gather indices must be integers"};
            }
            auto axis = normalize_axis(axis_in, x.dims.rank());
            if (!axis)
            {
                return error{"bad axis " + std::to_string(axis_in)};
            }
            std::vector<dim> out(x.dims.dims().begin(), x.dims.dims().begin() + *axis);
            out.insert(out.end(), idx.dims.dims().begin(), idx.dims.dims().end());
            out.insert(out.end(), x.dims.dims().begin() + *axis + 1, x.dims.dims().end());
            return one({x.elem, shape(out)});
        }

        status check_mask(const value_type& x, const value_type& mask)
        {
            if (mask.elem != dtype::bool_ || mask.dims.rank() == 0 ||
                mask.dims.rank() > x.dims.rank())
            {
                return status::error("mask must be a bool array of rank 1.." +
                                     std::to_string(x.dims.rank()));
            }
            for (int i = 0; i < mask.dims.rank(); ++i)
            {
                if (!may_equal(mask.dims[i], x.dims[i]))
                {
                    return status::error("mask dims " + mask.dims.to_string() + " do not match " +
                                         x.dims.to_string());
                }
            }
            return status::success();
        }

        infer_result mask_select_type(const infer_request& req)
        {
            const value_type& x = req.inputs[0];
            const value_type& mask = req.inputs[1];
            if (auto st = check_mask(x, mask); !st)
            {
                return st;
            }
            std::vector<dim> out{dim::symbol(req.fresh_symbol())};
            out.insert(out.end(), x.dims.dims().begin() + mask.dims.rank(), x.dims.dims().end());
            return one({x.elem, shape(out)});
        }

        status check_assignable(const value_type& v, const shape& target)
        {
            auto b = broadcast_shapes(v.dims, target);
            if (!b || b->rank() != target.rank())
            {
                return status::error("cannot assign " + v.dims.to_string() + " into " +
                                     target.to_string());
            }
            return status::success();
        }

        infer_result slice_update_type(const infer_request& req)
        {
            const value_type& x = req.inputs[0];
            auto target = sliced_shape(x.dims, std::get<slice_attr>(*req.attr).items, req);
            if (!target)
            {
                return error{target.message()};
            }
            if (auto st = check_assignable(req.inputs[1], *target); !st)
            {
                return st;
            }
            return one(x);
        }

        infer_result gather_update_type(const infer_request& req)
        {
            const value_type& x = req.inputs[0];
            auto target = gather_type(x, req.inputs[1], std::get<axis_attr>(*req.attr).axis);
            if (!target)
            {
                return target;
            }
            if (auto st = check_assignable(req.inputs[2], (*target)[0].dims); !st)
            {
                return st;
            }
            return one(x);
        }

        infer_result mask_update_type(const infer_request& req)
        {
            const value_type& x = req.inputs[0];
            if (auto st = check_mask(x, req.inputs[1]); !st)
            {
                return st;
            }
            if (req.inputs[2].dims.rank() > 1 + x.dims.rank() - req.inputs[1].dims.rank())
            {
                return error{"mask update value has too many dims"};
            }
            return one(x);
        }

        bool valid_dims(const shape& s)
        {
            for (const dim& d : s.dims())
            {
                if (d.is_static() && d.size() < 0)
                {
                    return false;
                }
            }
            return true;
        }
    } // namespace

    infer_result infer_indexing(const infer_request& req)
    {
        switch (req.code)
        {
        case op::GATHER:
            return gather_type(req.inputs[0], req.inputs[1], std::get<axis_attr>(*req.attr).axis);
        case op::MASK_SELECT:
            return mask_select_type(req);
        case op::SLICE_UPDATE:
            return slice_update_type(req);
        case op::GATHER_UPDATE:
            return gather_update_type(req);
        case op::MASK_UPDATE:
            return mask_update_type(req);
        default:
        {
            const int axis = std::get<axis_attr>(*req.attr).axis;
            if (!normalize_axis(axis, req.inputs[0].dims.rank()))
            {
                return error{"bad axis " + std::to_string(axis)};
            }
            return one({dtype::int64, shape()});
        }
        }
    }

    infer_result infer_creation(const infer_request& req)
    {
        switch (req.code)
        {
        case op::CONSTANT:
        {
            const auto& c = std::get<constant_attr>(*req.attr);
            const auto n = c.dims.num_elements();
            if (!n || c.bytes.size() != static_cast<size_t>(*n * itemsize(c.elem)))
            {
                return error{"constant data does not match its static shape"};
            }
            return one({c.elem, c.dims});
        }
        case op::FILL:
            if (req.inputs[1].dims.rank() != 0)
            {
                return error{"fill value must be 0-d"};
            }
            return one(req.inputs[0]);
        case op::ZEROS:
        case op::ONES:
        case op::FULL:
        {
            const auto& f = std::get<fill_attr>(*req.attr);
            if (!valid_dims(f.dims))
            {
                return error{"negative dimension"};
            }
            return one({f.elem, f.dims});
        }
        case op::ARANGE:
        {
            const auto& a = std::get<arange_attr>(*req.attr);
            if (a.count < 0)
            {
                return error{"negative arange count"};
            }
            return one({a.elem, shape{a.count}});
        }
        case op::EYE:
        {
            const auto& e = std::get<eye_attr>(*req.attr);
            if (e.rows < 0 || e.cols < 0)
            {
                return error{"negative eye size"};
            }
            return one({e.elem, shape{e.rows, e.cols}});
        }
        default:
            return error{"no type rule"};
        }
    }
} // namespace specula::ir::detail
