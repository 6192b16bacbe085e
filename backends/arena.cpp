#include "backends/arena.hpp"

#include <algorithm>

namespace specula::backends
{
    void arena::prepare(const ir::graph& g, const ir::memory_plan* plan)
    {
        p_plan = plan;
        values.resize(g.num_values());
        symbols.reset(g.num_symbols());
        if (plan != nullptr && m_slots.size() != plan->buffers.size())
        {
            m_slots.assign(plan->buffers.size(), slot{});
        }
    }

    result<buffer> arena::acquire(ir::value_id v, ir::dtype elem,
                                  const std::vector<std::int64_t>& shape, ir::value_id in_place_of)
    {
        const int b = p_plan != nullptr ? p_plan->buffer_of[v] : -1;
        if (b < 0)
        {
            return buffer::allocate(elem, shape);
        }
        std::int64_t bytes = ir::itemsize(elem);
        for (auto d : shape)
        {
            bytes *= d;
        }
        slot& s = m_slots[static_cast<std::size_t>(b)];
        // The previous holder is dead by the plan; dropping its handle leaves
        // only holders the plan cannot see (aliases, callers) in use_count().
        long expected = 1;
        if (s.holder != ir::no_id && s.holder == in_place_of)
        {
            expected = 2; // the input's own handle, read while the kernel writes
        }
        else if (s.holder != ir::no_id)
        {
            values[s.holder] = buffer{};
        }
        if (s.block.is_null() || s.block.use_count() > expected || s.block.size() < bytes)
        {
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
        return s.block.view(elem, shape);
    }

    void arena::end_activation()
    {
        std::fill(values.begin(), values.end(), buffer{});
        std::fill(outputs.begin(), outputs.end(), buffer{});
        for (slot& s : m_slots)
        {
            s.holder = ir::no_id;
        }
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
