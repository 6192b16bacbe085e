#include "backends/arena.hpp"

#include "backends/strided_copy.hpp"

#include <algorithm>
#include <utility>

namespace specula::backends
{
    void arena::prepare(const ir::graph& g, const ir::memory_plan* plan)
    {
        p_plan = plan;
        values.resize(g.num_values());
        sink_of.resize(g.num_values(), -1);
        m_layouts.resize(g.num_values());
        symbols.reset(g.num_symbols());
        if (plan != nullptr && m_slots.size() != plan->buffers.size())
        {
            m_slots.assign(plan->buffers.size(), slot{});
        }
    }

    result<buffer> arena::acquire(ir::value_id v, ir::dtype elem,
                                  const std::vector<std::int64_t>& shape, ir::value_id in_place_of)
    {
        buffer out;
        if (status st = acquire_into(out, v, elem, shape, in_place_of); !st)
        {
            return st;
        }
        return out;
    }

    status arena::acquire_into(buffer& out, ir::value_id v, ir::dtype elem,
                               const std::vector<std::int64_t>& shape, ir::value_id in_place_of)
    {
        const int b = p_plan != nullptr ? p_plan->buffer_of[v] : -1;
        if (b < 0)
        {
            auto fresh = buffer::allocate(elem, shape);
            if (!fresh)
            {
                return fresh.error();
            }
            out = std::move(fresh.value());
            return status::ok();
        }
        std::int64_t bytes = ir::itemsize(elem);
        for (auto d : shape)
        {
            bytes *= d;
        }
        if (status st = claim_slot(b, v, bytes, in_place_of); !st)
        {
            return st;
        }
        out.set_arena_view(m_slots[static_cast<std::size_t>(b)].block, elem,
                           layout_of(v, elem, shape));
        return status::ok();
    }

    status arena::acquire_static(buffer& out, ir::value_id v, ir::dtype elem, std::int64_t bytes,
                                 const layout_ref& layout, ir::value_id in_place_of)
    {
        const int b = p_plan != nullptr ? p_plan->buffer_of[v] : -1;
        if (b < 0)
        {
            return acquire_into(out, v, elem, layout->shape, in_place_of);
        }
        if (status st = claim_slot(b, v, bytes, in_place_of); !st)
        {
            return st;
        }
        out.set_arena_view(m_slots[static_cast<std::size_t>(b)].block, elem, layout);
        return status::ok();
    }

    status arena::claim_slot(int b, ir::value_id v, std::int64_t bytes, ir::value_id in_place_of)
    {
        slot& s = m_slots[static_cast<std::size_t>(b)];
        // The previous holder is dead by the plan; dropping its view leaves
        // only holders the plan cannot see (aliases, callers) in use_count().
        // Arena views hold no reference, so this costs no atomic count.
        long expected = 1;
        if (s.holder != ir::no_id && s.holder == in_place_of)
        {
            // The input, read while the kernel writes: counted if it is a real copy.
            expected = values[s.holder].use_count() > 0 ? 2 : 1;
        }
        else if (s.holder != ir::no_id)
        {
            values[s.holder].reset();
        }
        if (s.block.is_null() || s.block.use_count() > expected || s.block.size() < bytes)
        {
            if (s.holder != ir::no_id && s.holder == in_place_of &&
                values[s.holder].is_arena_view())
            {
                // The input's view must keep its bytes when the slot moves on.
                values[s.holder] = buffer(values[s.holder]);
            }
            retire(std::move(s.block));
            s.block = take_spare(bytes);
            if (s.block.is_null())
            {
                auto fresh = fresh_block(bytes, p_plan->buffers[static_cast<std::size_t>(b)].bytes);
                if (!fresh)
                {
                    return fresh.error();
                }
                s.block = std::move(fresh.value());
            }
        }
        s.holder = v;
        return status::ok();
    }

    const layout_ref& arena::layout_of(ir::value_id v, ir::dtype elem,
                                       const std::vector<std::int64_t>& shape)
    {
        layout_ref& l = m_layouts[v];
        // A value's dtype is fixed by the graph; only symbolic sizes change.
        if (!l || l->shape != shape || (!shape.empty() && l->strides.back() != ir::itemsize(elem)))
        {
            l = buffer::c_layout(elem, shape);
        }
        return l;
    }

    void arena::ensure_staging(std::size_t n)
    {
        if (m_staging.size() < n)
        {
            for (buffer& b : staged)
            {
                b.reset(); // views of the blocks about to move
            }
            m_staging.resize(n);
            staged.resize(n);
        }
    }

    namespace
    {
        // `src` copied into `block` in C order; a block someone else still
        // holds, or too small, is replaced by a fresh one.
        status hold_contiguous_copy(buffer& block, const buffer& src)
        {
            const std::int64_t bytes = src.size() * static_cast<std::int64_t>(src.itemsize());
            if (block.is_null() || block.use_count() > 1 || block.size() < bytes)
            {
                auto fresh = buffer::allocate(ir::dtype::uint8, {std::max<std::int64_t>(bytes, 1)});
                if (!fresh)
                {
                    return fresh.error();
                }
                block = std::move(fresh.value());
            }
            copy_to_contiguous(src, block.data());
            return status::ok();
        }
    } // namespace

    status arena::stage(std::size_t i, ir::value_id v, const buffer& src)
    {
        buffer& block = m_staging[i];
        staged[i].reset();
        // A kernel that kept a copy of its staged input holds the old block.
        if (status st = hold_contiguous_copy(block, src); !st.is_ok())
        {
            return st;
        }
        // v's own layout slot: C order of v's shape, the same layout a
        // planned v would have (a staged v is never planned: those are C).
        staged[i].set_arena_view(block, src.dtype(), layout_of(v, src.dtype(), src.shape()));
        return status::ok();
    }

    status arena::own_copy(ir::value_id v, const buffer& src, buffer& out)
    {
        auto it = std::find_if(m_carried.begin(), m_carried.end(),
                               [v](const auto& c) { return c.first == v; });
        if (it == m_carried.end())
        {
            it = m_carried.emplace(m_carried.end(), v, buffer{});
        }
        buffer& block = it->second;
        // Held by somebody else: the caller's output of an earlier run, or
        // src itself (an outer loop handing the table back).
        if (status st = hold_contiguous_copy(block, src); !st.is_ok())
        {
            return st;
        }
        buffer copy = block.view(src.dtype(), layout_of(v, src.dtype(), src.shape()));
        out = std::move(copy);
        return status::ok();
    }

    void arena::end_activation()
    {
        for (buffer& b : staged)
        {
            b.reset();
        }
        for (buffer& b : values)
        {
            b.reset();
        }
        for (buffer& b : outputs)
        {
            b.reset();
        }
        for (slot& s : m_slots)
        {
            s.holder = ir::no_id;
        }
        for (ir::value_id v : sunk)
        {
            sink_of[v] = -1;
        }
        sunk.clear();
        destinations = nullptr;
    }

    result<buffer> arena::fresh_block(std::int64_t bytes, std::int64_t planned)
    {
        // A symbolic-size slot grows to the largest size seen, never shrinks.
        return buffer::allocate(ir::dtype::uint8, {std::max(bytes, planned)});
    }

    // A block somebody still holds waits among the spares until they let go;
    // one nobody holds (only too small) is freed.
    void arena::retire(buffer block)
    {
        if (block.use_count() <= 1)
        {
            return;
        }
        // Bound the list: blocks callers keep forever are forgotten, not leaked.
        if (m_spares.size() > m_slots.size() + 8)
        {
            m_spares.erase(std::remove_if(m_spares.begin(), m_spares.end(),
                                          [](const buffer& x) { return x.use_count() > 1; }),
                           m_spares.end());
        }
        m_spares.push_back(std::move(block));
    }

    buffer arena::take_spare(std::int64_t bytes)
    {
        for (std::size_t i = 0; i < m_spares.size(); ++i)
        {
            if (m_spares[i].use_count() == 1 && m_spares[i].size() >= bytes)
            {
                buffer b = std::move(m_spares[i]);
                m_spares[i] = std::move(m_spares.back());
                m_spares.pop_back();
                return b;
            }
        }
        return buffer{};
    }
} // namespace specula::backends
