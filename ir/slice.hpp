// Basic-indexing items and Python's slice normalisation, shared by inference and
// backends so both agree on the exact element ranges.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace specula::ir
{
    // One item of a basic index `x[a:b:c, i, None, ...]` (ellipsis is expanded by the
    // converter into full ranges).
    struct slice_item
    {
        enum class kind : std::uint8_t
        {
            range,   // start:stop:step, any of start/stop may be absent
            index,   // a single integer (negative counts from the end); drops the axis
            newaxis, // None: inserts an axis of size 1, consumes no input axis
        };
        kind what = kind::range;
        std::int64_t start = 0;
        std::int64_t stop = 0;
        std::int64_t step = 1;
        bool has_start = false;
        bool has_stop = false;

        static slice_item all() { return slice_item{}; }
        static slice_item range(std::int64_t start, std::int64_t stop, std::int64_t step = 1);
        static slice_item at(std::int64_t index);
        static slice_item new_axis();

        bool operator==(const slice_item& o) const;
        // Python syntax: "1:5:2", ":", "::-1", "3", "None".
        std::string to_string() const;
    };

    // The elements selected along one axis: start, start+step, ... (count of them).
    struct slice_range
    {
        std::int64_t start = 0;
        std::int64_t step = 1;
        std::int64_t count = 0;
    };

    // Python's PySlice_AdjustIndices for an axis of `size` elements. For an index item,
    // count is 1, or 0 when the index is out of range (NumPy raises IndexError there).
    slice_range normalize_slice(const slice_item& item, std::int64_t size);
} // namespace specula::ir
