// Type rules for linear algebra, reductions and control flow.
#include <algorithm>

#include "ir/detail/infer_rules.hpp"

namespace specula::ir::detail
{
    namespace
    {
        std::vector<dim> slice_dims(const shape& s, int from, int to)
        {
            return std::vector<dim>(s.dims().begin() + from, s.dims().begin() + to);
        }

        infer_result matmul_type(dtype elem, const shape& a, const shape& b)
        {
            if (a.rank() == 0 || b.rank() == 0)
            {
                return error{"matmul does not take 0-d operands"};
            }
            const dim ka = a[a.rank() - 1];
            const dim kb = b.rank() == 1 ? b[0] : b[b.rank() - 2];
            if (!may_equal(ka, kb))
            {
                return error{"contraction dims differ: " + ka.to_string() + " vs " +
                             kb.to_string()};
            }
            const shape batch_a(a.rank() > 2 ? slice_dims(a, 0, a.rank() - 2) : std::vector<dim>{});
            const shape batch_b(b.rank() > 2 ? slice_dims(b, 0, b.rank() - 2) : std::vector<dim>{});
            auto batch = broadcast_shapes(batch_a, batch_b);
            if (!batch)
            {
                return error{batch.message()};
            }
            std::vector<dim> out = batch->dims();
            if (a.rank() >= 2)
            {
                out.push_back(a[a.rank() - 2]);
            }
            if (b.rank() >= 2)
            {
                out.push_back(b[b.rank() - 1]);
            }
            return one({elem, shape(out)});
        }

        infer_result dot_type(dtype elem, const shape& a, const shape& b)
        {
            if (a.rank() == 0 || b.rank() == 0)
            {
                return one({elem, a.rank() == 0 ? b : a});
            }
            if (b.rank() <= 2)
            {
                return matmul_type(elem, a, b);
            }
            // N-D: sum over a's last axis and b's second-to-last.
            if (!may_equal(a[a.rank() - 1], b[b.rank() - 2]))
            {
                return error{"dot contraction dims differ"};
            }
            std::vector<dim> out = slice_dims(a, 0, a.rank() - 1);
            for (int i = 0; i < b.rank(); ++i)
            {
                if (i != b.rank() - 2)
                {
                    out.push_back(b[i]);
                }
            }
            return one({elem, shape(out)});
        }

        result<dim> flat_size(const shape& s)
        {
            if (auto n = s.num_elements())
            {
                return dim::fixed(*n);
            }
            if (s.rank() == 1)
            {
                return s[0];
            }
            return error{"outer of a symbolic multi-dimensional operand"};
        }
    } // namespace

    infer_result infer_linalg(const infer_request& req)
    {
        const value_type& a = req.inputs[0];
        const value_type& b = req.inputs[1];
        auto elem = req.code == op::DOT ? std::optional<dtype>(promote_types(a.elem, b.elem))
                                        : elementwise_dtype(req.code, {a.elem, b.elem});
        if (!elem)
        {
            return error{"unsupported dtypes"};
        }
        if (req.code == op::MATMUL)
        {
            return matmul_type(*elem, a.dims, b.dims);
        }
        if (req.code == op::DOT)
        {
            return dot_type(*elem, a.dims, b.dims);
        }
        auto m = flat_size(a.dims);
        auto n = flat_size(b.dims);
        if (!m || !n)
        {
            return error{(m ? n : m).message()};
        }
        return one({*elem, shape(std::vector<dim>{*m, *n})});
    }

    infer_result infer_reduction(const infer_request& req)
    {
        const value_type& x = req.inputs[0];
        const auto& a = std::get<reduce_attr>(*req.attr);
        auto elem = reduction_dtype(req.code, x.elem);
        if (!elem)
        {
            return error{"unsupported result dtype for " + std::string(dtype_name(x.elem))};
        }
        const int rank = x.dims.rank();
        std::vector<bool> reduced(static_cast<size_t>(rank), a.all_axes);
        if (!a.all_axes)
        {
            if ((req.code == op::ARGMAX || req.code == op::ARGMIN) && a.axes.size() != 1)
            {
                return error{"argmax/argmin take one axis"};
            }
            for (int axis : a.axes)
            {
                auto k = normalize_axis(axis, rank);
                if (!k || reduced[static_cast<size_t>(*k)])
                {
                    return error{"bad or repeated axis " + std::to_string(axis)};
                }
                reduced[static_cast<size_t>(*k)] = true;
            }
        }
        if (a.ddof < 0)
        {
            return error{"negative ddof"};
        }
        std::vector<dim> out;
        for (int i = 0; i < rank; ++i)
        {
            if (!reduced[static_cast<size_t>(i)])
            {
                out.push_back(x.dims[i]);
            }
            else if (a.keepdims)
            {
                out.push_back(dim::fixed(1));
            }
        }
        return one({*elem, shape(out)});
    }

    namespace
    {
        // The most specific type both a and b refine; dims that differ become symbols.
        result<value_type> join(const value_type& a, const value_type& b,
                                const std::function<std::int32_t()>& fresh)
        {
            if (a.elem != b.elem || a.dims.rank() != b.dims.rank())
            {
                return error{"branch types differ: " + a.to_string() + " vs " + b.to_string()};
            }
            value_type out = a;
            for (int i = 0; i < a.dims.rank(); ++i)
            {
                if (a.dims[i] != b.dims[i])
                {
                    if (!fresh)
                    {
                        return error{"branch dims differ"};
                    }
                    out.dims[i] = dim::symbol(fresh());
                }
            }
            return out;
        }

        bool is_scalar_of(const value_type& t, dtype elem)
        {
            return t.elem == elem && t.dims.rank() == 0;
        }

        infer_result infer_if(const infer_request& req)
        {
            if (req.inputs.size() != 1 || !is_scalar_of(req.inputs[0], dtype::bool_))
            {
                return error{"if takes one 0-d bool condition"};
            }
            if (req.region_results.size() != 2 ||
                req.region_results[0].size() != req.region_results[1].size())
            {
                return error{"if needs two regions with the same number of results"};
            }
            types out;
            for (size_t i = 0; i < req.region_results[0].size(); ++i)
            {
                auto t = join(req.region_results[0][i], req.region_results[1][i], req.fresh_symbol);
                if (!t)
                {
                    return error{t.message()};
                }
                out.push_back(*t);
            }
            return out;
        }

        infer_result infer_loop(const infer_request& req)
        {
            const auto& a = std::get<loop_attr>(*req.attr);
            size_t k = 0;
            if (a.has_trip_count &&
                (req.inputs.size() <= k || !is_scalar_of(req.inputs[k++], dtype::int64)))
            {
                return error{"loop trip count must be a 0-d int64"};
            }
            if (a.has_condition &&
                (req.inputs.size() <= k || !is_scalar_of(req.inputs[k++], dtype::bool_)))
            {
                return error{"loop condition must be a 0-d bool"};
            }
            const size_t carried = req.inputs.size() - k;
            if (req.region_results.size() != 1 || req.extra.size() != carried + 1 ||
                req.region_results[0].size() != carried + (a.has_condition ? 1 : 0))
            {
                return error{"loop body must take (iteration, carried...) and return "
                             "([cond], carried...)"};
            }
            if (!is_scalar_of(req.extra[0], dtype::int64))
            {
                return error{"loop body's first argument must be the 0-d int64 iteration"};
            }
            const size_t r0 = a.has_condition ? 1 : 0;
            if (a.has_condition && !is_scalar_of(req.region_results[0][0], dtype::bool_))
            {
                return error{"loop body's first result must be the 0-d bool condition"};
            }
            types out;
            for (size_t i = 0; i < carried; ++i)
            {
                const value_type& arg = req.extra[i + 1];
                if (!refines(req.inputs[k + i], arg) ||
                    !refines(req.region_results[0][r0 + i], arg))
                {
                    return error{"carried value " + std::to_string(i) +
                                 " does not fit body argument " + arg.to_string()};
                }
                out.push_back(arg);
            }
            return out;
        }
    } // namespace

    infer_result infer_control_flow(const infer_request& req)
    {
        switch (req.code)
        {
        case op::IF:
            return infer_if(req);
        case op::LOOP:
            return infer_loop(req);
        default:
            return req.extra; // CALL: the callee's output types
        }
    }
} // namespace specula::ir::detail
