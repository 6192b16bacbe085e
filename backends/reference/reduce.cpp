#include "backends/reference/reduce.hpp"

#include "backends/reference/numpy_math.hpp"
#include "backends/reference/pairwise.hpp"
#include "backends/reference/reduce_split.hpp"

#include <string>
#include <vector>

namespace specula::backends::reference
{
    status run_variance(const reduce_spec& spec, const strided_view& in, const strided_view& out);

    namespace
    {
        // Calls f(in_ptr, out_ptr) once per output element.
        template <class F>
        void for_each_output(const reduce_split& s, F&& f)
        {
            for_each_element<2>(s.outer_in.rank, s.outer_in.shape.data(),
                                {s.outer_in.data, s.outer_out.data},
                                {s.outer_in.strides.data(), s.outer_out.strides.data()},
                                [&](const auto& p) { f(p[0], p[1]); });
        }

        // Calls g(ptr) for each folded element of one output, in C order, over
        // inner dims [first, last).
        template <class G>
        void for_each_folded(const reduce_split& s, std::byte* base, int first, int last, G&& g)
        {
            for_each_element<1>(last - first, s.inner.shape.data() + first, {base},
                                {s.inner.strides.data() + first}, [&](const auto& q) { g(q[0]); });
        }

        template <class A>
        A float_sum(const reduce_split& s, std::byte* base, std::vector<A>& block)
        {
            A acc = A(0);
            const int rank = s.inner.rank;
            if (s.block_start == rank)
            {
                for_each_folded(s, base, 0, rank,
                                [&](std::byte* q) { acc += load_as<A>(q, s.inner.type); });
                return acc;
            }
            for_each_folded(s, base, 0, s.block_start,
                            [&](std::byte* lead)
                            {
                                block.clear();
                                for_each_folded(s, lead, s.block_start, rank,
                                                [&](std::byte* q)
                                                { block.push_back(load_as<A>(q, s.inner.type)); });
                                acc = chunked_pairwise_sum(acc, block.data(),
                                                           static_cast<std::int64_t>(block.size()));
                            });
            return acc;
        }

        template <class A>
        status sum_like(reduce_op op, const reduce_split& s)
        {
            std::vector<A> block;
            for_each_output(s,
                            [&](std::byte* in, std::byte* out)
                            {
                                A acc{};
                                if constexpr (std::is_floating_point_v<A>)
                                {
                                    if (op == reduce_op::sum || op == reduce_op::mean)
                                    {
                                        acc = float_sum<A>(s, in, block);
                                    }
                                }
                                if (op == reduce_op::prod || !std::is_floating_point_v<A>)
                                {
                                    const bool is_prod = op == reduce_op::prod;
                                    acc = is_prod ? A(1) : A(0);
                                    for_each_folded(s, in, 0, s.inner.rank,
                                                    [&](std::byte* q)
                                                    {
                                                        const A x = load_as<A>(q, s.inner.type);
                                                        acc = is_prod ? npmath::wrap_mul(acc, x)
                                                                      : npmath::wrap_add(acc, x);
                                                    });
                                }
                                if (op == reduce_op::mean)
                                {
                                    acc = static_cast<A>(acc / static_cast<A>(s.count));
                                }
                                store<A>(out, acc);
                            });
            return status::ok();
        }

        // max/min start from the first element (they have no identity); NaN
        // propagates as in np.maximum.
        template <class T>
        status extremum(reduce_op op, const reduce_split& s)
        {
            if (s.count == 0)
            {
                return status::runtime("zero-size array to reduction operation which has no "
                                       "identity");
            }
            for_each_output(s,
                            [&](std::byte* in, std::byte* out)
                            {
                                bool first = true;
                                T acc{};
                                for_each_folded(s, in, 0, s.inner.rank,
                                                [&](std::byte* q)
                                                {
                                                    const T x = load_as<T>(q, s.inner.type);
                                                    if (first)
                                                    {
                                                        acc = x;
                                                        first = false;
                                                        return;
                                                    }
                                                    acc = op == reduce_op::max
                                                              ? npmath::maximum(acc, x)
                                                              : npmath::minimum(acc, x);
                                                });
                                store<T>(out, acc);
                            });
            return status::ok();
        }

        // First occurrence wins; the first NaN beats everything.
        template <class T>
        status arg_extremum(reduce_op op, const reduce_split& s)
        {
            if (s.count == 0)
            {
                return status::runtime("attempt to get argmax of an empty sequence");
            }
            for_each_output(s,
                            [&](std::byte* in, std::byte* out)
                            {
                                std::int64_t k = 0;
                                std::int64_t best_k = 0;
                                T best{};
                                for_each_folded(s, in, 0, s.inner.rank,
                                                [&](std::byte* q)
                                                {
                                                    const T x = load<T>(q);
                                                    const bool better = op == reduce_op::argmax
                                                                            ? x > best
                                                                            : x < best;
                                                    if (k == 0 || (!npmath::is_nan(best) &&
                                                                   (npmath::is_nan(x) || better)))
                                                    {
                                                        best = x;
                                                        best_k = k;
                                                    }
                                                    ++k;
                                                });
                                store<std::int64_t>(out, best_k);
                            });
            return status::ok();
        }

        status logical(reduce_op op, const reduce_split& s)
        {
            const bool is_all = op == reduce_op::all;
            for_each_output(s,
                            [&](std::byte* in, std::byte* out)
                            {
                                bool acc = is_all;
                                for_each_folded(s, in, 0, s.inner.rank,
                                                [&](std::byte* q)
                                                {
                                                    const bool x = load_as<bool>(q, s.inner.type);
                                                    acc = is_all ? (acc && x) : (acc || x);
                                                });
                                store<bool>(out, acc);
                            });
            return status::ok();
        }

        bool single_or_all_axes(std::uint32_t axes, int rank)
        {
            const std::uint32_t all = rank >= 32 ? ~0U : ((1U << rank) - 1U);
            return axes == all || (axes & (axes - 1U)) == 0;
        }

        status check_out_type(reduce_op op, const strided_view& in, const strided_view& out)
        {
            switch (op)
            {
            case reduce_op::argmax:
            case reduce_op::argmin:
                return out.type == scalar::i64 ? status::ok()
                                               : status::invalid("argmax/argmin write int64");
            case reduce_op::any:
            case reduce_op::all:
                return out.type == scalar::b1 ? status::ok()
                                              : status::invalid("any/all write bool");
            case reduce_op::max:
            case reduce_op::min:
                return out.type == in.type ? status::ok()
                                           : status::invalid("max/min keep the input dtype");
            case reduce_op::mean:
            case reduce_op::var:
            case reduce_op::std:
                return is_float(out.type) ? status::ok()
                                          : status::invalid("mean/var/std write a float dtype");
            default:
                return status::ok();
            }
        }
    } // namespace

    status run_reduce(const reduce_spec& spec, const strided_view& in, const strided_view& out)
    {
        if (status st = check_out_type(spec.op, in, out); !st)
        {
            return st;
        }
        if (spec.op == reduce_op::var || spec.op == reduce_op::std)
        {
            return run_variance(spec, in, out);
        }
        reduce_split s;
        if (!split_reduction(in, spec.axes, out, s))
        {
            return status::invalid(std::string(name_of(spec.op)) + ": output shape mismatch");
        }
        switch (spec.op)
        {
        case reduce_op::max:
        case reduce_op::min:
            return visit_scalar(in.type, [&](auto t)
                                { return extremum<typename decltype(t)::type>(spec.op, s); });
        case reduce_op::argmax:
        case reduce_op::argmin:
            if (!single_or_all_axes(spec.axes, in.rank))
            {
                return status::invalid("argmax/argmin reduce one axis or all");
            }
            return visit_scalar(in.type, [&](auto t)
                                { return arg_extremum<typename decltype(t)::type>(spec.op, s); });
        case reduce_op::any:
        case reduce_op::all:
            return logical(spec.op, s);
        default:
            return visit_scalar(out.type, [&](auto t)
                                { return sum_like<typename decltype(t)::type>(spec.op, s); });
        }
    }
} // namespace specula::backends::reference
