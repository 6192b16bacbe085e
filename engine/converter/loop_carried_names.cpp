// The carried names of a loop body, shared by the three builders of an IR
// LOOP (range_loop.cpp, while_loop.cpp, loop_chunk.cpp): which names a trip
// hands to the next one, their values at a trip's start (the LOOP's region
// arguments) and end (its results), and what a trip may not change besides
// them. The builders differ in how the loop ends (a trip count, a test, a
// chunk of a running loop) and in how its results reach Python; the carried
// values follow one set of rules, and each refusal names the loop it is
// about (`carried_loop::what`) and the line.
//
// Carried: arrays of a fixed type (updated in place through the name, or
// rebound to a new array every trip), NumPy scalars, Python floats and, where
// the loop asks for them (`python_ints`), bools and Python ints. A Python
// int is carried in [-2**31, 2**31), where the int64 arithmetic of a few such
// values is exact; a trip that leaves the range fails an assert, and CPython
// runs the code instead (Python ints never wrap).
#include "engine/converter/converter.hpp"
#include "engine/converter/loop_scan.hpp"

namespace specula::engine::converter
{
    namespace
    {
        // Whether entry `i` is, or is a view of, an entry a slot shares.
        bool follows_shared(const carried_loop& loop, const std::vector<array_entry>& arrays,
                            int i)
        {
            for (int at = i; at >= 0; at = arrays[static_cast<size_t>(at)].view_of)
            {
                for (const carried_slot& s : loop.slots)
                {
                    if (s.shares_object && s.orig == at)
                    {
                        return true;
                    }
                }
            }
            return false;
        }

        // The first slot sharing entry `orig`: its argument is the entry's
        // value at a trip's start.
        const carried_slot* first_sharing(const carried_loop& loop, int orig)
        {
            for (const carried_slot& s : loop.slots)
            {
                if (s.shares_object && s.orig == orig)
                {
                    return &s;
                }
            }
            return nullptr;
        }
    } // namespace

    // Splits the names a loop body binds: the ones carried (bound before the
    // loop, not the target, not a declared global) get a slot, the others
    // are the loop's own and must not be read outside it.
    void converter::carried_names(carried_loop& loop, const std::set<std::string>& bound,
                                  const std::string& target, std::set<std::string>& loop_only,
                                  py::handle node)
    {
        loop.augmented_only = augmented_only_names(node.attr("body"));
        for (const std::string& name : bound)
        {
            auto found = m_locals.find(name);
            if (name == target || found == m_locals.end() || m_declared_globals.count(name))
            {
                loop_only.insert(name);
                continue;
            }
            loop.slots.push_back(carry_value(loop, name, found->second, node));
        }
        // Which slots share their object's entry (bind_carried_args).
        for (carried_slot& s : loop.slots)
        {
            if (s.orig >= 0 && loop.augmented_only.count(s.name) &&
                m_arrays[static_cast<size_t>(s.orig)].surf == surface::ndarray &&
                m_arrays[static_cast<size_t>(s.orig)].view_of < 0)
            {
                s.shares_object = true;
            }
        }
        for (const carried_slot& s : loop.slots)
        {
            if (!s.shares_object && s.orig >= 0 && follows_shared(loop, m_arrays, s.orig))
            {
                // On the first trip the name is that object and sees the
                // updates; from the second on it names its own value.
                fail("local " + s.name + ", rebound in " + loop.what +
                         ", names an array (or a view of one) the loop updates in place through "
                         "another name",
                     binding_statement(node.attr("body"), s.name));
            }
        }
    }

    // A name the loop carries, with its value before the loop.
    carried_slot converter::carry_value(const carried_loop& loop, const std::string& name,
                                        const cval& v, py::handle node)
    {
        carried_slot s;
        s.name = name;
        if (v.k == cval::kind::constant)
        {
            PyObject* o = v.obj.ptr();
            if (PyFloat_CheckExact(o))
            {
                s.surf = surface::py_float;
                s.init = scalar_constant(v, ir::dtype::float64, node);
                return s;
            }
            if (loop.python_ints && PyBool_Check(o))
            {
                s.surf = surface::py_bool;
                s.init = scalar_constant(v, ir::dtype::bool_, node);
                return s;
            }
            int overflow = 0;
            const long long i =
                PyLong_CheckExact(o) ? PyLong_AsLongLongAndOverflow(o, &overflow) : 0;
            if (loop.python_ints && PyLong_CheckExact(o) && overflow == 0 && i >= relaxed_int_lo &&
                i <= relaxed_int_hi)
            {
                s.surf = surface::py_int;
                s.init = scalar_constant(v, ir::dtype::int64, node);
                return s;
            }
            if (loop.python_ints && PyLong_CheckExact(o))
            {
                PyErr_Clear();
                fail("Python int " + name + " outside [-2**31, 2**31) carried by " + loop.what,
                     node);
            }
        }
        if (v.k != cval::kind::array)
        {
            fail("local " + name +
                     " (not an array or a Python number the loop can carry) rebound in " +
                     loop.what,
                 node);
        }
        const array_entry& e = m_arrays[static_cast<size_t>(v.arr)];
        check_fresh(e, node);
        if (e.surf == surface::py_int &&
            (!loop.python_ints || e.int_lo < relaxed_int_lo || e.int_hi > relaxed_int_hi))
        {
            fail("Python int " + name + " of an unknown range carried by " + loop.what, node);
        }
        s.init = e.value;
        s.surf = e.surf;
        s.orig = v.arr;
        return s;
    }

    // What a trip must leave unchanged, and the LOOP's region with one
    // argument for the counter and one per slot.
    ir::region_id converter::open_carried_loop(carried_loop& loop, std::vector<ir::value_id>& init)
    {
        loop.effects = m_spec->effects.size();
        loop.heap_writes = m_heap_writes.size();
        loop.dicts = m_dicts;
        loop.values.clear();
        for (const array_entry& e : m_arrays)
        {
            loop.values.push_back(e.value);
        }
        std::vector<ir::value_type> arg_types{ir::value_type{ir::dtype::int64, ir::shape({})}};
        init.clear();
        for (const carried_slot& s : loop.slots)
        {
            arg_types.push_back(type_of(s.init));
            init.push_back(s.init);
        }
        return m_builder->new_region(arg_types);
    }

    // Inside the region: every carried name names its argument, an int
    // anywhere in the carried range. With `known_layouts` an argument is
    // laid out in memory as the value before the loop (carried_result checks
    // a trip keeps that order); otherwise nothing is known of its order.
    //
    // A name the body only updates in place names its object on every trip:
    // the slot shares the object's entry, whose value is the argument while
    // the body runs, so every other holder of that object (another name,
    // `x = b`; a list; its source read again) and its views (remade from the
    // argument) see each trip's updates. Its source is held by the slot
    // meanwhile: the user's array gets the loop's final value once, at
    // close_carried_loop. A name the body rebinds keeps an entry of its own,
    // which is exact unless its first trip's object is updated in place.
    void converter::bind_carried_args(carried_loop& loop, ir::region_id body)
    {
        for (size_t k = 0; k < loop.slots.size(); ++k)
        {
            carried_slot& s = loop.slots[k];
            s.arg = m_builder->arg(body, static_cast<int>(k + 1));
            if (s.shares_object)
            {
                array_entry& e = m_arrays[static_cast<size_t>(s.orig)];
                if (first_sharing(loop, s.orig) == &s)
                {
                    s.orig_src = e.src;
                    e.src = -1;
                    e.value = s.arg;
                    refresh_views(s.orig, py::handle());
                }
                s.fresh = s.orig;
                cval a;
                a.k = cval::kind::array;
                a.arr = s.orig;
                m_locals[s.name] = a;
                if (loop.known_layouts)
                {
                    m_layouts[s.arg] = layout_of(s.init);
                }
                continue;
            }
            cval a = new_array(s.arg, s.surf);
            s.fresh = a.arr;
            m_arrays[static_cast<size_t>(a.arr)].int_lo = relaxed_int_lo;
            m_arrays[static_cast<size_t>(a.arr)].int_hi = relaxed_int_hi;
            m_locals[s.name] = a;
            if (s.source >= 0)
            {
                // An item carried by source: the trip's reads of it.
                m_array_of_source[s.source] = a.arr;
            }
            if (loop.known_layouts)
            {
                m_layouts[s.arg] = layout_of(s.init);
            }
        }
    }

    // What a trip may not do: effects (they would need stacking per trip),
    // in-place updates of arrays not carried by name, changes of dicts.
    void converter::check_carried_trip(const carried_loop& loop, py::handle node)
    {
        // A chunk replays its trips' appends and prints (chunk_effects.cpp).
        const bool effects_ok = p_chunk_loop == &loop ? chunk_trip_effects(loop, node)
                                                      : m_spec->effects.size() == loop.effects;
        if (!effects_ok || m_heap_writes.size() != loop.heap_writes)
        {
            fail("effects (print, attribute, item or global writes, appends) inside " + loop.what,
                 node);
        }
        for (size_t i = 0; i < loop.values.size(); ++i)
        {
            if (m_arrays[i].value != loop.values[i] &&
                !follows_shared(loop, m_arrays, static_cast<int>(i)))
            {
                fail("in-place update of an array not carried by name inside " + loop.what, node);
            }
        }
        for (size_t i = 0; i < loop.dicts.size(); ++i)
        {
            bool same = loop.dicts[i].keys.size() == m_dicts[i].keys.size();
            for (size_t k = 0; same && k < loop.dicts[i].values.size(); ++k)
            {
                const cval& a = loop.dicts[i].values[k];
                const cval& b = m_dicts[i].values[k];
                same = a.k == b.k && a.arr == b.arr && a.obj.ptr() == b.obj.ptr() &&
                       a.src == b.src && a.dict == b.dict;
            }
            if (!same)
            {
                fail("dict changed inside " + loop.what, node);
            }
        }
    }

    // The value a carried name has now, as its slot carries it (a Python
    // number constant materialised), with its int range.
    ir::value_id converter::slot_value(const carried_loop& loop, const carried_slot& s,
                                       py::handle node, std::int64_t& lo, std::int64_t& hi)
    {
        const cval& now = m_locals.at(s.name);
        lo = relaxed_int_lo;
        hi = relaxed_int_hi;
        if (now.k == cval::kind::constant)
        {
            carried_slot c = carry_value(loop, s.name, now, node);
            if (c.surf != s.surf)
            {
                fail("local " + s.name + " changes type from one trip to the next of " + loop.what,
                     node);
            }
            if (c.surf == surface::py_int)
            {
                lo = hi = PyLong_AsLongLong(now.obj.ptr());
            }
            return c.init;
        }
        if (now.k != cval::kind::array)
        {
            fail("local " + s.name + " given a value other than an array or a number in " +
                     loop.what,
                 node);
        }
        const array_entry& e = m_arrays[static_cast<size_t>(now.arr)];
        if (e.surf != s.surf || type_of(e.value) != type_of(s.arg))
        {
            fail("local " + s.name + " changes type from one trip to the next of " + loop.what,
                 node);
        }
        if (e.surf == surface::py_int)
        {
            lo = e.int_lo;
            hi = e.int_hi;
        }
        return e.value;
    }

    // The value a carried name has at the end of a trip (`s.in_place`: the
    // name kept its object and the body updated it).
    ir::value_id converter::carried_result(carried_loop& loop, carried_slot& s, py::handle node)
    {
        const cval& now = m_locals.at(s.name);
        const array_entry& fresh = m_arrays[static_cast<size_t>(s.fresh)];
        const bool written =
            fresh.value != (s.shares_object ? first_sharing(loop, s.orig)->arg : s.arg);
        ir::value_id v = ir::no_id;
        if (now.k == cval::kind::array && now.arr == s.fresh)
        {
            s.in_place = written && s.orig >= 0;
            v = fresh.value;
        }
        else
        {
            if (written || s.shares_object)
            {
                fail("array " + s.name + " both updated in place and rebound in " + loop.what,
                     node);
            }
            if (now.k == cval::kind::array)
            {
                refuse_shared_array(loop, s, now, node);
                const array_entry& e = m_arrays[static_cast<size_t>(now.arr)];
                if (static_cast<size_t>(now.arr) < loop.values.size() || e.src >= 0 ||
                    e.view_of >= 0)
                {
                    fail("local " + s.name +
                             " names an input, an array from before the loop or a view after a "
                             "trip of " +
                             loop.what,
                         node);
                }
            }
            std::int64_t lo = 0, hi = 0;
            v = slot_value(loop, s, node, lo, hi);
            if (s.surf == surface::py_int && (lo < relaxed_int_lo || hi > relaxed_int_hi))
            {
                assert_carried_int(s, v, loop, node);
            }
        }
        if (loop.known_layouts && layout_of(v) != m_layouts.at(s.arg))
        {
            fail("array " + s.name + " whose memory order changes from one trip to the next of " +
                     loop.what,
                 node);
        }
        return v;
    }

    // Each carried slot leaves the loop as an object of its own: two names
    // left on one array (`b = a` in the body) would come out as two arrays.
    void converter::refuse_shared_array(const carried_loop& loop, const carried_slot& s,
                                        const cval& now, py::handle node)
    {
        if (m_arrays[static_cast<size_t>(now.arr)].surf != surface::ndarray)
        {
            return;
        }
        for (const carried_slot& other : loop.slots)
        {
            auto found = m_locals.find(other.name);
            if (other.name != s.name && found != m_locals.end() &&
                found->second.k == cval::kind::array && found->second.arr == now.arr)
            {
                fail("locals " + s.name + " and " + other.name +
                         " naming one array after a trip of " + loop.what,
                     node);
            }
        }
    }

    // Python ints never wrap: a trip that leaves the carried range exits.
    void converter::assert_carried_int(const carried_slot& s, ir::value_id v,
                                       const carried_loop& loop, py::handle node)
    {
        auto bound = [&](std::int64_t b)
        { return m_builder->constant(ir::scalar::of_int(ir::dtype::int64, b)); };
        ir::value_id inside = m_builder->binary(
            ir::op::LOGICAL_AND, m_builder->binary(ir::op::GE, v, bound(relaxed_int_lo)),
            m_builder->binary(ir::op::LE, v, bound(relaxed_int_hi)));
        add_assert(inside, "Python int " + s.name + " left [-2**31, 2**31) in " + loop.what +
                               " at " + where(node));
    }

    // After the LOOP (`outs` its results): arrays updated in place get
    // their final value, the other carried names their last one.
    void converter::close_carried_loop(const carried_loop& loop,
                                       const std::vector<ir::value_id>& outs, py::handle node)
    {
        // Shared entries and their views from before the loop are as they
        // were before it again (their source given back), then updated once.
        for (const carried_slot& s : loop.slots)
        {
            if (s.shares_object && first_sharing(loop, s.orig) == &s)
            {
                m_arrays[static_cast<size_t>(s.orig)].src = s.orig_src;
            }
        }
        for (size_t i = 0; i < loop.values.size(); ++i)
        {
            if (follows_shared(loop, m_arrays, static_cast<int>(i)))
            {
                m_arrays[i].value = loop.values[i];
            }
        }
        std::set<int> written;
        for (size_t k = 0; k < loop.slots.size(); ++k)
        {
            const carried_slot& s = loop.slots[k];
            if (s.in_place)
            {
                if (written.insert(s.orig).second)
                {
                    write_array(s.orig, outs[k], node);
                }
                continue;
            }
            if (s.shares_object)
            {
                continue; // never updated: the name keeps its object
            }
            cval v = new_array(outs[k], s.surf);
            m_arrays[static_cast<size_t>(v.arr)].int_lo = relaxed_int_lo;
            m_arrays[static_cast<size_t>(v.arr)].int_hi = relaxed_int_hi;
            m_locals[s.name] = v;
        }
    }
} // namespace specula::engine::converter
