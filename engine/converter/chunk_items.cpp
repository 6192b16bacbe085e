// Arrays a chunk's body updates in place through the items of a list or
// tuple: `W1 -= lr * dW1` after `W1, b1, W2, b2 = params` (in a function the
// trip inlines), the training loop that keeps its parameters in a list. The
// per-iteration graph writes them at commit as item sources; a chunk carries
// them by *source*: the item is read before the LOOP (its guards those of the
// per-iteration graph: the list's identity and length, the array's), its
// contents are a carried value of the LOOP (its own copy,
// backends/loop_carried.cpp), every read of the item inside the trip is the
// LOOP's argument, and after the LOOP the final contents are written into
// the user's array once at commit, as for a global array updated in place.
//
// Which items are written is known only once the trip was converted: a
// conversion that met such an update (note_chunk_item_write) is refused
// with the items in loop_chunk_plan::item_writes (and the items of lists the
// body left names on, note_chunk_item_names), and the engine converts again
// with them carried (loop_chunks.cpp).
//
// Aliasing stays the per-iteration graph's: every carried item is a written
// source, so two items on one array, or an item that overlaps any other array
// the graph reads (a global name bound to it, another list's item), is
// refused for the situation (refuse_overlapping_writes) or kept out by the
// no-overlap guards. The list must not be rebound in the body; appends to it
// and item writes are refused as for every list a chunk reads
// (chunk_effects.cpp). A name the body binds to the item (`W1, b1 = params`
// in the cell body) is no carried value: it names the item's value inside
// the LOOP, under a guard that it holds the item's object (chunk_item_alias).
#include "engine/converter/converter.hpp"
#include "engine/numpy_api.hpp"

#include <algorithm>

namespace specula::engine::converter
{
    // An in-place update inside a chunk's trip of an array read through a
    // source `src`: remembered when the source is an item of a list or
    // tuple named by a global or a loop local.
    void converter::note_chunk_item_write(int src)
    {
        if (m_in_chunk && note_chunk_item(src))
        {
            m_chunk_item_write_sources.insert(src);
        }
    }

    // After a first conversion's trip that updated items in place: the
    // names the body left on items of lists (`v` after `w, v = params`, `v`
    // only read) are carried by source too, so that the next conversion
    // binds them to the items (chunk_item_alias) instead of refusing a name
    // left on an input.
    void converter::note_chunk_item_names(const loop_chunk_scope& scope)
    {
        if (!scope.item_sources.empty() || m_chunk_item_writes.empty())
        {
            return;
        }
        for (const std::string& name : scope.bound)
        {
            auto found = m_locals.find(name);
            if (found != m_locals.end() && found->second.k == cval::kind::array &&
                m_arrays[static_cast<size_t>(found->second.arr)].src >= 0)
            {
                note_chunk_item(m_arrays[static_cast<size_t>(found->second.arr)].src);
            }
        }
    }

    // Remembers source `src` as an item to carry: false when it is no item
    // at a constant index of a list or tuple named by a global or a loop
    // local.
    bool converter::note_chunk_item(int src)
    {
        const source& s = m_spec->sources[src];
        if (s.kind != source_kind::item || s.parent < 0 || !PyLong_CheckExact(s.key.ptr()))
        {
            return false;
        }
        const source& parent = m_spec->sources[s.parent];
        std::string name;
        if (parent.kind == source_kind::global)
        {
            name = py::str(parent.key);
        }
        else if (parent.kind == source_kind::arg)
        {
            for (const auto& [local, index] : m_loop_locals)
            {
                name = index == parent.index ? local : name;
            }
        }
        if (name.empty())
        {
            return false;
        }
        const chunk_item_source item{name, s.index};
        if (std::find(m_chunk_item_writes.begin(), m_chunk_item_writes.end(), item) ==
            m_chunk_item_writes.end())
        {
            m_chunk_item_writes.push_back(item);
        }
        return true;
    }

    // The slot of an item carried by source, read before the LOOP.
    carried_slot converter::carry_item_source(const carried_loop& loop,
                                              const chunk_item_source& item,
                                              const loop_chunk_scope& scope, py::handle node)
    {
        const std::string name = item.container + "[" + std::to_string(item.index) + "]";
        if (std::find(scope.bound.begin(), scope.bound.end(), item.container) != scope.bound.end())
        {
            fail("list " + item.container + " rebound in " + loop.what +
                     " whose body updates its item in place",
                 node);
        }
        cval seq;
        if (!read_loop_local(item.container, seq))
        {
            seq = read_global(item.container, node);
        }
        PyObject* o = seq.k == cval::kind::object ? seq.obj.ptr() : nullptr; // borrowed
        if (o == nullptr || seq.src < 0 || !(PyList_CheckExact(o) || PyTuple_CheckExact(o)))
        {
            fail(item.container + " is no longer a list or tuple", node);
        }
        if (m_length_guarded.insert(seq.src).second)
        {
            m_spec->guards.add(
                make_length_guard(seq.src, Py_SIZE(o), m_spec->sources[seq.src].path));
        }
        cval v = read_item(seq, py::int_(item.index), node);
        if (v.k != cval::kind::array || m_arrays[static_cast<size_t>(v.arr)].src < 0 ||
            m_arrays[static_cast<size_t>(v.arr)].surf != surface::ndarray)
        {
            fail("item " + name + " updated in place inside " + loop.what + " is not an array",
                 node);
        }
        carried_slot s = carry_value(loop, name, v, node);
        s.source = m_arrays[static_cast<size_t>(v.arr)].src;
        m_chunk_items.emplace_back(PySequence_Fast_ITEMS(o)[item.index], loop.slots.size());
        return s;
    }

    // A name the body binds that holds a carried item's array before the
    // chunk (`W1` after `W1, b1 = params` in the cell body, `w` after `for w,
    // g in zip(params, grads)`): inside the LOOP it names the item's carried
    // value, never a value of its own, and it must name it again after every
    // trip (check_chunk_aliases), so after the chunk it still holds the
    // user's array, which the commit updates. Guarded to be that object: the
    // name is not read as an array of its own (the no-overlap guards would
    // keep the chunk from ever running).
    bool converter::chunk_item_alias(const std::string& name, PyObject* now,
                                     const carried_loop& loop)
    {
        for (const auto& [object, slot] : m_chunk_items)
        {
            if (now == nullptr || now != object)
            {
                continue;
            }
            auto local = m_loop_locals.find(name);
            const int src = local != m_loop_locals.end()
                                ? m_spec->sources.add(
                                      source{source_kind::arg, -1, local->second, py::none(), name})
                                : m_spec->sources.add(source{source_kind::global, -1, 0,
                                                             py::str(name), global_path(name)});
            const carried_slot& s = loop.slots[slot];
            m_spec->guards.add(make_same_guard(src, s.source,
                                               m_spec->sources[src].path + " is " +
                                                   m_spec->sources[s.source].path));
            m_chunk_aliases.emplace_back(name, slot);
            return true;
        }
        return false;
    }

    // Inside the LOOP's region: every such name names its item's argument.
    void converter::bind_chunk_aliases(const carried_loop& loop)
    {
        for (const auto& [name, slot] : m_chunk_aliases)
        {
            cval v;
            v.k = cval::kind::array;
            v.arr = loop.slots[slot].fresh;
            m_locals[name] = v;
        }
    }

    // After the trip: the name is left on its item.
    void converter::check_chunk_aliases(const carried_loop& loop, py::handle node)
    {
        for (const auto& [name, slot] : m_chunk_aliases)
        {
            auto found = m_locals.find(name);
            if (found == m_locals.end() || found->second.k != cval::kind::array ||
                found->second.arr != loop.slots[slot].fresh)
            {
                fail("name " + name + " left on another value than " + loop.slots[slot].name +
                         " after a trip of " + loop.what,
                     node);
            }
        }
    }
} // namespace specula::engine::converter
