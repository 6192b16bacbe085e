// Names that trade arrays in a chunk of a loop: `u, u_new = u_new, u` after
// `u_new[1:-1] = f(u)` (a stencil's two buffers). After one iteration each
// such name names the array another one named at its start, so the objects
// the names reach depend on how many iterations ran. The chunk's LOOP
// carries the *contents* of the object each name reaches (the value the
// name's slot has at a trip's end is that of the array it now names), and
// the chunk runs a multiple of the permutation's order (2 for a swap): after
// it every name reaches its own object again, which then gets its final
// contents in place, as CPython would leave them. The engine rounds the
// chunk's size down to that multiple (loop_chunks.cpp); the other
// iterations run one by one.
//
// Only arrays the names reached before the chunk take part (their objects
// hold the values), every one of a fixed type and memory order; the guards
// of the in-place writes keep the objects' memory apart. Refused: two names
// left on one array, an array that is dropped or left to a new name.
#include "engine/converter/converter.hpp"

#include <map>
#include <numeric>

namespace specula::engine::converter
{
    namespace
    {
        // Beyond this order a permutation of names would make chunks too
        // coarse to be worth it.
        constexpr std::int64_t max_swap_order = 16;
    } // namespace

    std::int64_t converter::chunk_swaps(carried_loop& loop, std::vector<ir::value_id>& results,
                                        const std::function<py::handle(const std::string&)>& at)
    {
        std::vector<carried_slot>& slots = loop.slots;
        std::map<int, size_t> slot_of_fresh;
        for (size_t k = 0; k < slots.size(); ++k)
        {
            slot_of_fresh[slots[k].fresh] = k;
        }
        // to[k]: the slot whose trip-start array name k names at the end.
        std::vector<int> to(slots.size(), -1);
        bool any = false;
        for (size_t k = 0; k < slots.size(); ++k)
        {
            const cval& now = m_locals.at(slots[k].name);
            auto found =
                now.k == cval::kind::array ? slot_of_fresh.find(now.arr) : slot_of_fresh.end();
            if (found != slot_of_fresh.end() && found->second != k)
            {
                to[k] = static_cast<int>(found->second);
                any = true;
            }
        }
        if (!any)
        {
            return 1;
        }
        std::vector<int> from(slots.size(), -1);
        for (size_t k = 0; k < slots.size(); ++k)
        {
            if (to[k] < 0)
            {
                continue;
            }
            const auto t = static_cast<size_t>(to[k]);
            if (from[t] >= 0 || to[t] < 0)
            {
                fail("names " + slots[k].name + " and " +
                         (from[t] >= 0 ? slots[static_cast<size_t>(from[t])].name : slots[t].name) +
                         " left on one array after an iteration of " + loop.what,
                     at(slots[k].name));
            }
            from[t] = static_cast<int>(k);
            if (slots[k].surf != surface::ndarray || slots[k].orig < 0 ||
                type_of(slots[t].arg) != type_of(slots[k].arg))
            {
                fail("arrays " + slots[k].name + " and " + slots[t].name +
                         " of different types traded between names in " + loop.what,
                     at(slots[k].name));
            }
        }
        std::int64_t order = 1;
        for (size_t k = 0; k < slots.size(); ++k)
        {
            std::int64_t length = 0;
            for (size_t j = k; to[j] >= 0 && (length == 0 || j != k);
                 j = static_cast<size_t>(to[j]))
            {
                ++length;
            }
            order = length > 0 ? std::lcm(order, length) : order;
        }
        if (order > max_swap_order)
        {
            fail("names trading arrays in a cycle of order " + std::to_string(order) + " in " +
                     loop.what,
                 at(slots[0].name));
        }
        for (size_t k = 0; k < slots.size(); ++k)
        {
            if (to[k] < 0)
            {
                continue;
            }
            // The contents of the object the name reaches now.
            results[k] =
                m_arrays[static_cast<size_t>(slots[static_cast<size_t>(to[k])].fresh)].value;
            slots[k].in_place = true;
            if (layout_of(results[k]) != m_layouts.at(slots[k].arg))
            {
                fail("array " + slots[k].name +
                         " whose memory order changes from one trip to the next of " + loop.what,
                     at(slots[k].name));
            }
        }
        return order;
    }
} // namespace specula::engine::converter
