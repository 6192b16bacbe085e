// Internal: the per-family type rules behind infer_output_types.
#pragma once

#include "ir/infer.hpp"

namespace specula::ir::detail
{
    using types = std::vector<value_type>;
    using infer_result = result<types>;

    infer_result infer_movement(const infer_request& req);
    infer_result infer_indexing(const infer_request& req);
    infer_result infer_creation(const infer_request& req);
    infer_result infer_linalg(const infer_request& req);
    infer_result infer_reduction(const infer_request& req);
    infer_result infer_control_flow(const infer_request& req);

    // a is at least as specific as b: same dtype and rank, each dim equal or b's symbolic.
    bool refines(const value_type& a, const value_type& b);
    // Dims are possibly equal at run time (equal, or either symbolic).
    bool may_equal(const dim& a, const dim& b);
    infer_result one(value_type t);
} // namespace specula::ir::detail

namespace specula::ir::detail
{
    // The result shape of basic indexing `in[items]`. A range over a symbolic dim `?k`
    // keeps `?k` for `:`, gets the trimmed symbol of `?k - a - b` for `a:-b` (a >= 0,
    // b >= 0, step 1; its size is max(0, ?k - a - b) for every ?k) and a fresh symbol
    // otherwise.
    result<shape> sliced_shape(const shape& in, const std::vector<slice_item>& items,
                               const infer_request& req);
} // namespace specula::ir::detail
