#include "ir/slice.hpp"

namespace specula::ir
{
    slice_item slice_item::range(std::int64_t start, std::int64_t stop, std::int64_t step)
    {
        slice_item s;
        s.start = start;
        s.stop = stop;
        s.step = step;
        s.has_start = true;
        s.has_stop = true;
        return s;
    }

    slice_item slice_item::at(std::int64_t index)
    {
        slice_item s;
        s.what = kind::index;
        s.start = index;
        return s;
    }

    slice_item slice_item::new_axis()
    {
        slice_item s;
        s.what = kind::newaxis;
        return s;
    }

    bool slice_item::operator==(const slice_item& o) const
    {
        return what == o.what && start == o.start && stop == o.stop && step == o.step &&
               has_start == o.has_start && has_stop == o.has_stop;
    }

    std::string slice_item::to_string() const
    {
        if (what == kind::newaxis)
        {
            return "None";
        }
        if (what == kind::index)
        {
            return std::to_string(start);
        }
        std::string out = has_start ? std::to_string(start) : "";
        out += ":";
        out += has_stop ? std::to_string(stop) : "";
        if (step != 1)
        {
            out += ":" + std::to_string(step);
        }
        return out;
    }

    namespace
    {
        std::int64_t clamp_bound(std::int64_t v, std::int64_t size, bool negative_step)
        {
            if (v < 0)
            {
                v += size;
                if (v < 0)
                {
                    v = negative_step ? -1 : 0;
                }
            }
            else if (v >= size)
            {
                v = negative_step ? size - 1 : size;
            }
            return v;
        }
    } // namespace

    slice_range normalize_slice(const slice_item& item, std::int64_t size)
    {
        if (item.what == slice_item::kind::newaxis)
        {
            return {0, 1, 1};
        }
        if (item.what == slice_item::kind::index)
        {
            const std::int64_t i = item.start < 0 ? item.start + size : item.start;
            return (i < 0 || i >= size) ? slice_range{0, 1, 0} : slice_range{i, 1, 1};
        }
        const std::int64_t step = item.step;
        const bool neg = step < 0;
        std::int64_t start =
            item.has_start ? clamp_bound(item.start, size, neg) : (neg ? size - 1 : 0);
        std::int64_t stop = item.has_stop ? clamp_bound(item.stop, size, neg) : (neg ? -1 : size);
        std::int64_t count = 0;
        if (neg)
        {
            count = stop < start ? (start - stop - 1) / (-step) + 1 : 0;
        }
        else
        {
            count = start < stop ? (stop - start - 1) / step + 1 : 0;
        }
        return {start, step, count};
    }
} // namespace specula::ir
