// Per-op attribute structs. Each op of ir/ops.def names the one it carries.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "ir/dtype.hpp"
#include "ir/shape.hpp"
#include "ir/slice.hpp"

namespace specula::ir
{
    // A typed scalar. Integer and bool values live in `ival`, float values in `fval`
    // (a float32 value is stored as its exact double widening).
    struct scalar
    {
        dtype elem = dtype::float64;
        std::int64_t ival = 0;
        double fval = 0.0;

        static scalar of_bool(bool v) { return scalar{dtype::bool_, v ? 1 : 0, 0.0}; }
        static scalar of_int(dtype t, std::int64_t v) { return scalar{t, v, 0.0}; }
        static scalar of_float(dtype t, double v) { return scalar{t, 0, v}; }
        double as_double() const;
        std::int64_t as_int() const;
        bool operator==(const scalar& o) const;
        std::string to_string() const;
    };

    struct none_attr
    {
        bool operator==(const none_attr&) const { return true; }
    };

    // INPUT/PARAM: position in the graph's input list; OUTPUT: position in the outputs.
    struct boundary_attr
    {
        int index = 0;
        std::string name; // for dumps and reports only
        bool operator==(const boundary_attr& o) const { return index == o.index && name == o.name; }
    };

    // Elements in C order, native byte order, itemsize(elem) bytes each.
    // Static shape only.
    struct constant_attr
    {
        dtype elem = dtype::float64;
        shape dims;
        std::vector<std::byte> bytes;
        bool operator==(const constant_attr& o) const
        {
            return elem == o.elem && dims == o.dims && bytes == o.bytes;
        }
        // Element i as a scalar of `elem`.
        scalar element(std::int64_t i) const;
        std::int64_t size() const;
        static constant_attr from_scalar(const scalar& s);
        // Values are converted to elem with C semantics; callers pass exact values.
        static constant_attr from_values(dtype elem, const shape& dims,
                                         const std::vector<scalar>& values);
    };

    struct cast_attr
    {
        dtype to = dtype::float64;
        bool operator==(const cast_attr& o) const { return to == o.to; }
    };

    // axes: the reduced axes (normalised, sorted) unless all_axes. ARGMAX/ARGMIN take at
    // most one axis (all_axes means over the flattened array). ddof for VAR/STD.
    struct reduce_attr
    {
        std::vector<int> axes;
        bool all_axes = true;
        bool keepdims = false;
        std::int64_t ddof = 0;
        bool operator==(const reduce_attr& o) const
        {
            return axes == o.axes && all_axes == o.all_axes && keepdims == o.keepdims &&
                   ddof == o.ddof;
        }
    };

    // RESHAPE target (no -1: the converter resolves it) or BROADCAST_TO target.
    struct shape_attr
    {
        shape dims;
        bool operator==(const shape_attr& o) const { return dims == o.dims; }
    };

    struct perm_attr
    {
        std::vector<int> perm;
        bool operator==(const perm_attr& o) const { return perm == o.perm; }
    };

    // EXPAND_DIMS: positions of new axes in the result; SQUEEZE: axes to drop (empty
    // means every static size-1 axis).
    struct axes_attr
    {
        std::vector<int> axes;
        bool operator==(const axes_attr& o) const { return axes == o.axes; }
    };

    struct axis_attr
    {
        int axis = 0;
        bool operator==(const axis_attr& o) const { return axis == o.axis; }
    };

    // SLICE / SLICE_UPDATE: one item per consumed input axis plus newaxis items;
    // trailing input axes not named are taken whole.
    struct slice_attr
    {
        std::vector<slice_item> items;
        bool operator==(const slice_attr& o) const { return items == o.items; }
    };

    // ZEROS / ONES / FULL: result dims and dtype; FULL's value is cast to elem.
    struct fill_attr
    {
        shape dims;
        dtype elem = dtype::float64;
        scalar value;
        bool operator==(const fill_attr& o) const
        {
            return dims == o.dims && elem == o.elem && value == o.value;
        }
    };

    // np.arange(start, stop, step, dtype=elem) with the element count resolved by the
    // converter; element i is start + i * step computed in elem as NumPy does.
    struct arange_attr
    {
        scalar start;
        scalar step;
        std::int64_t count = 0;
        dtype elem = dtype::int64;
        bool operator==(const arange_attr& o) const
        {
            return start == o.start && step == o.step && count == o.count && elem == o.elem;
        }
    };

    // np.eye(rows, cols, k, dtype=elem)
    struct eye_attr
    {
        std::int64_t rows = 0;
        std::int64_t cols = 0;
        std::int64_t k = 0;
        dtype elem = dtype::float64;
        bool operator==(const eye_attr& o) const
        {
            return rows == o.rows && cols == o.cols && k == o.k && elem == o.elem;
        }
    };

    // LOOP inputs: [trip_count if has_trip_count] [cond if has_condition] carried...
    struct loop_attr
    {
        bool has_trip_count = true;
        bool has_condition = false;
        bool operator==(const loop_attr& o) const
        {
            return has_trip_count == o.has_trip_count && has_condition == o.has_condition;
        }
    };

    struct call_attr
    {
        std::string callee;
        bool operator==(const call_attr& o) const { return callee == o.callee; }
    };

    // exit_id: the engine's exit (snapshot) to take when the assert fails.
    struct assert_attr
    {
        std::uint32_t exit_id = 0;
        std::string reason;
        bool operator==(const assert_attr& o) const
        {
            return exit_id == o.exit_id && reason == o.reason;
        }
    };

    using attribute =
        std::variant<none_attr, boundary_attr, constant_attr, cast_attr, reduce_attr, shape_attr,
                     perm_attr, axes_attr, axis_attr, slice_attr, fill_attr, arange_attr, eye_attr,
                     loop_attr, call_attr, assert_attr>;
} // namespace specula::ir
