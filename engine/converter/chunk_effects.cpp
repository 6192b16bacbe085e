// The per-iteration effects of a loop run in chunks: `losses.append(loss)`,
// `print(step, loss)`. A chunk commits all of its iterations or none, so the
// effects of K iterations are replayed at the commit, iteration by iteration
// in program order, as CPython would have made them (runner.cpp): the LOOP
// stacks every value the effects use, one row per trip, in a carried buffer
// of K rows updated in place (GATHER_UPDATE at the trip's counter,
// backends/loop_carried.cpp), and the commit makes row j into the object
// iteration j would have made (chunk_rows.hpp: a Python float, a NumPy
// scalar of the row's dtype, a new array per iteration).
//
// The buffers take their first dim from the chunk's rows input, a [K] int8
// array the engine passes with the chunk's bounds (its size a symbolic dim).
//
// Identity: a value appended and left bound to a carried name after the trip
// (`loss = ...; losses.append(loss)`) is, at the last iteration, the object
// the name is committed with. Refused (the reason names the statement):
// effects other than appends to a list and prints, an array appended that is
// the user's array or the previous iteration's (`acc.append(W)` with W
// updated in place), a view appended (its base would be lost), lists and
// dicts the code builds inside an effect, a list both appended to and read
// in the body (`len(losses)`: the graph reads it once per chunk), and appends
// in a loop over a list or tuple (the list may be the one iterated).
#include "engine/converter/converter.hpp"
#include "engine/numpy_api.hpp"

namespace specula::engine::converter
{
    namespace
    {
        // Whether the plan holds an object the run builds once (a code list,
        // a dict, a view): one per chunk would be one object for K iterations.
        bool built_once(const value_plan& p)
        {
            if (p.k == value_plan::kind::list || p.k == value_plan::kind::dict ||
                p.k == value_plan::kind::view)
            {
                return true;
            }
            for (const value_plan& item : p.items)
            {
                if (built_once(item))
                {
                    return true;
                }
            }
            return false;
        }
    } // namespace

    // The plan of an array entry the trip computed, used by an effect.
    value_plan converter::chunk_row_plan(int arr, py::handle node, bool identity_visible)
    {
        array_entry& e = m_arrays[static_cast<size_t>(arr)];
        if (identity_visible && (e.view_of >= 0 || m_chunk_views.count(arr)))
        {
            fail("a view appended inside a loop run in chunks", node);
        }
        if (identity_visible)
        {
            check_escape_layout(e, node);
        }
        const ir::value_type& type = p_graph->type_of(e.value);
        if (!type.dims.is_static())
        {
            fail("a value of a varying shape used by an effect inside a loop run in chunks", node);
        }
        if (e.surf == surface::ndarray && type.dims.rank() == 0)
        {
            fail("a 0-d array used by an effect inside a loop run in chunks", node);
        }
        e.escaped = true;
        e.bound_only = false;
        value_plan p;
        p.k = value_plan::kind::row;
        for (size_t i = 0; i < m_chunk_stacks.size(); ++i)
        {
            if (m_chunk_stacks[i].arr == arr)
            {
                m_chunk_stacks[i].identity = m_chunk_stacks[i].identity || identity_visible;
                p.index = static_cast<int>(i);
                return p;
            }
        }
        p.index = static_cast<int>(m_chunk_stacks.size());
        m_chunk_stacks.push_back(chunk_stack{arr, identity_visible, -1});
        m_spec->chunk_rows.push_back(chunk_row{-1, e.surf, -1});
        return p;
    }

    // Whether the effects a trip added so far are the ones a chunk replays
    // (appends to a list, prints); fails on the others.
    bool converter::chunk_trip_effects(const carried_loop& loop, py::handle node)
    {
        for (size_t i = loop.effects; i < m_spec->effects.size(); ++i)
        {
            const effect_plan& e = m_spec->effects[i];
            if (e.k == effect_plan::kind::array_write && m_chunk_item_write_sources.count(e.target))
            {
                // An item to carry by source: refused after the trip, when
                // every such item is known (chunk_items.cpp).
                continue;
            }
            if (e.k != effect_plan::kind::list_append && e.k != effect_plan::kind::print)
            {
                fail("effects (attribute, item or global writes) inside " + loop.what, node);
            }
            bool once = built_once(e.value);
            for (const value_plan& a : e.args)
            {
                once = once || built_once(a);
            }
            if (once)
            {
                fail("a list, dict or view built by the code used by an effect inside " + loop.what,
                     node);
            }
        }
        return true;
    }

    // The chunk's [K] int8 rows input (one per graph).
    ir::value_id converter::chunk_rows_input(py::handle node)
    {
        if (m_chunk_rows != ir::no_id)
        {
            return m_chunk_rows;
        }
        const int index = m_spec->sources[m_chunk_start_src].index + 3;
        const int src =
            m_spec->sources.add(source{source_kind::arg, -1, index, py::none(), "chunk rows"});
        PyObject* rows = m_frame.locals[index]; // borrowed: the engine's array
        const int symbol = p_graph->new_symbol();
        if (symbol >= max_symbols || !PyArray_CheckExact(rows) ||
            PyArray_NDIM(reinterpret_cast<PyArrayObject*>(rows)) != 1)
        {
            fail("too many symbolic dims", node);
        }
        m_spec->guards.add(make_array_guard(src, rows, {symbol}, false, "chunk rows"));
        m_chunk_rows =
            hoisted_input({ir::dtype::int8, ir::shape({ir::dim::symbol(symbol)})}, "chunk rows");
        m_input_contiguous[m_chunk_rows] = true;
        m_spec->inputs.push_back({src, false});
        return m_chunk_rows;
    }

    // After the trip: its effects become the chunk's per-iteration effects,
    // and every value they use a buffer the LOOP carries, row `counter`
    // written at the trip's end (the insertion point is the trip's region).
    void converter::stack_chunk_rows(const carried_loop& loop, ir::region_id region,
                                     std::vector<ir::value_id>& init,
                                     std::vector<ir::value_id>& results,
                                     const std::vector<bool>& rebound, py::handle node)
    {
        m_spec->trip_effects.assign(m_spec->effects.begin() +
                                        static_cast<std::ptrdiff_t>(loop.effects),
                                    m_spec->effects.end());
        m_spec->effects.resize(loop.effects);
        m_spec->chunk_trips = m_chunk_trips_src;
        for (const effect_plan& e : m_spec->trip_effects)
        {
            if (e.k != effect_plan::kind::list_append)
            {
                continue;
            }
            if (m_chunk_over_items)
            {
                // The list may be the one iterated, whose items the engine
                // stacked before the run; CPython's iteration would see them.
                fail("list.append inside a loop over a list or tuple run in chunks", node);
            }
            // The graph reads a list once per chunk (its length guarded, its
            // items inputs): a trip that reads it would not see the appends.
            bool read = m_length_guarded.count(e.target) > 0;
            for (int s = 0; s < m_spec->sources.size() && !read; ++s)
            {
                read = m_spec->sources[s].parent == e.target;
            }
            if (read)
            {
                fail("list " + m_spec->sources[e.target].path +
                         " both read and appended to inside a loop run in chunks",
                     node);
            }
        }
        const ir::value_id counter = m_builder->arg(region, 0);
        for (size_t i = 0; i < m_chunk_stacks.size(); ++i)
        {
            chunk_stack& c = m_chunk_stacks[i];
            const array_entry& e = m_arrays[static_cast<size_t>(c.arr)];
            for (size_t k = 0; k < loop.slots.size(); ++k)
            {
                const carried_slot& s = loop.slots[k];
                const bool mine = results[k] == e.value;
                if (c.identity && e.surf == surface::ndarray &&
                    (c.arr == s.fresh || (mine && s.in_place)))
                {
                    fail("array " + s.name +
                             " appended inside a loop run in chunks is not the iteration's own "
                             "(the user's array or the previous iteration's)",
                         node);
                }
                if (mine && rebound[k] && c.last_slot < 0)
                {
                    c.last_slot = static_cast<int>(k);
                }
            }
            const ir::value_type row = p_graph->type_of(e.value);
            ir::value_id buffer = ir::no_id;
            {
                ir::builder::insertion_guard keep(*m_builder);
                m_builder->set_insertion_end(p_graph->body());
                // [K, row...] of the row's dtype, a new array whose every
                // element the trips write before anything reads it (a
                // broadcasting op: the symbolic K comes from the rows input).
                ir::value_id rows = m_builder->cast(chunk_rows_input(node), row.elem);
                std::vector<int> axes;
                for (int a = 0; a < row.dims.rank(); ++a)
                {
                    axes.push_back(a + 1);
                }
                buffer = axes.empty() ? rows
                                      : m_builder->binary(ir::op::MAXIMUM,
                                                          m_builder->expand_dims(rows, axes),
                                                          m_builder->zeros(row.dims, row.elem));
            }
            init.push_back(buffer);
            const ir::value_id arg = m_builder->add_arg(region, p_graph->type_of(buffer));
            results.push_back(m_builder->gather_update(arg, counter, e.value, 0));
            if (!m_builder->ok())
            {
                fail("stacking an effect's value inside a loop run in chunks (IR: " +
                         m_builder->state().message() + ")",
                     node);
            }
        }
    }

    // After the LOOP: the stacked buffers are outputs (outs from `first` on).
    void converter::finish_chunk_rows(const std::vector<ir::value_id>& outs, size_t first)
    {
        for (size_t i = 0; i < m_chunk_stacks.size(); ++i)
        {
            cval stacked = new_array(outs[first + i], surface::ndarray);
            m_spec->chunk_rows[i].output = output_of(stacked.arr);
        }
    }

    // Slot `slot`'s name is committed with `now`: a value the trip's effects
    // use and the name keeps is that one object at the last iteration.
    void converter::chunk_row_final(size_t slot, const cval& now)
    {
        for (size_t i = 0; i < m_chunk_stacks.size(); ++i)
        {
            if (m_chunk_stacks[i].last_slot == static_cast<int>(slot) &&
                now.k == cval::kind::array && m_arrays[static_cast<size_t>(now.arr)].src < 0)
            {
                m_spec->chunk_rows[i].last = output_of(now.arr);
            }
        }
    }
} // namespace specula::engine::converter
