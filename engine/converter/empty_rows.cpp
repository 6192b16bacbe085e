// np.empty_like arrays filled before they are read: NumPy leaves the elements
// undefined and the graph starts from zeros, which is only transparent when
// every element is written before any is read. A write of the whole array
// settles it at once; min-char-rnn / LSTM backward passes fill one row per
// unrolled time step (`dx[t] = da @ Wx.T`), which settles it once every row
// along the first axis has been written.
#include "engine/converter/converter.hpp"

namespace specula::engine::converter
{
    namespace
    {
        bool is_whole(const index_plan& plan)
        {
            if (plan.k != index_plan::kind::basic)
            {
                return false;
            }
            for (const ir::slice_item& it : plan.items)
            {
                if (!(it == ir::slice_item::all()))
                {
                    return false;
                }
            }
            return true;
        }

        // The row `x[i]` / `x[i, :, ...]` a write covers whole, or -1.
        std::int64_t whole_row(const index_plan& plan, const ir::shape& dims)
        {
            if (plan.k != index_plan::kind::basic || plan.items.empty() || dims.rank() == 0 ||
                !dims[0].is_static())
            {
                return -1;
            }
            const ir::slice_item& first = plan.items[0];
            if (first.what != ir::slice_item::kind::index)
            {
                return -1;
            }
            for (size_t i = 1; i < plan.items.size(); ++i)
            {
                if (!(plan.items[i] == ir::slice_item::all()))
                {
                    return -1;
                }
            }
            const std::int64_t n = dims[0].size();
            const std::int64_t row = first.start < 0 ? first.start + n : first.start;
            return row >= 0 && row < n ? row : -1;
        }
    } // namespace

    void converter::note_unwritten_write(int arr, const index_plan& plan, py::handle target)
    {
        array_entry& e = m_arrays[static_cast<size_t>(arr)];
        if (is_whole(plan))
        {
            e.unwritten = false;
            e.rows_written.clear();
            return;
        }
        const ir::shape dims = type_of(e.value).dims;
        const std::int64_t row = whole_row(plan, dims);
        if (row < 0)
        {
            fail("np.empty_like array written in part before being read", target);
        }
        if (e.rows_written.empty())
        {
            e.rows_written.assign(static_cast<size_t>(dims[0].size()), false);
        }
        e.rows_written[static_cast<size_t>(row)] = true;
        for (bool done : e.rows_written)
        {
            if (!done)
            {
                return;
            }
        }
        e.unwritten = false;
        e.rows_written.clear();
    }
} // namespace specula::engine::converter
