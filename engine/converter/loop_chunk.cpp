// A chunk of a stable loop: the body of a `for` over a range (a list, a
// tuple), run for the next K iterations as one IR LOOP (loop_chunks.cpp
// decides when), or of a `while` loop, whose LOOP also has the test as its
// condition and carries its trip count (while_chunk.cpp). The names
// the body binds, and the arrays it mentions (which it may update in place),
// are the loop's carried values; the target is `start + counter * step`;
// after the LOOP the names it rebound are written back once (globals: one
// buffered `set_global` each; a function's locals: the result tuple the
// frame's locals get) and the arrays updated in place get their final value.
//
// The chunk's start, trip count and step are the frame view's `locals`
// after a function loop's own (`arg` sources: the first two relaxed ints,
// the step specialised), then the [K] rows input of the buffers stacking
// effect values (chunk_effects.cpp), then a sequence loop's stacked items.
//
// The target is an int the body may compute slice bounds from: a minibatch
// `X[i:i + bs]` of a carried array is read as its rows (chunk_slices.cpp),
// and the engine sizes each chunk so that every iteration's slice is them.
//
// Arrays the body updates in place through list items (`W1 -= ...` after
// `W1, b1 = params`) are carried by source (chunk_items.cpp).
//
// The carried values follow loop_carried_names.cpp. Refused (the loop keeps
// running iteration by iteration; the reason names the statement): effects
// inside the body other than appends and prints (chunk_effects.cpp:
// attribute and item writes), `break` and `return`, names bound to values other
// than arrays and floats (Python ints, lists...), a name both updated in place
// and rebound, a name left naming an input or a view, and whatever the body
// converter refuses. A `break` or an `if` taken under an assert fails the
// chunk's run: nothing is committed and the iterations are replayed one by
// one.
#include "engine/converter/converter.hpp"
#include "engine/converter/loop_scan.hpp"
#include "engine/loop_locals.hpp"
#include "engine/numpy_api.hpp"

#include <algorithm>

namespace specula::engine::converter
{
    namespace
    {
        bool contains(const std::vector<std::string>& names, const std::string& name)
        {
            return std::find(names.begin(), names.end(), name) != names.end();
        }
    } // namespace

    // The object a name the body mentions holds before the chunk (borrowed;
    // null when unbound).
    PyObject* converter::chunk_name_object(const std::string& name) const
    {
        auto local = m_loop_locals.find(name);
        if (local != m_loop_locals.end())
        {
            return m_frame.locals[local->second];
        }
        py::str key(name);
        PyObject* now = PyDict_GetItemWithError(m_frame.globals, key.ptr()); // borrowed
        if (now == nullptr && PyErr_Occurred())
        {
            throw py::error_already_set();
        }
        return now;
    }

    // A name the chunk carries: bound by the body, or naming an array now
    // (in-place updates). Null `value` when neither.
    cval converter::chunk_initial(const std::string& name, const loop_chunk_scope& scope,
                                  py::handle node, bool& carried)
    {
        carried = false;
        const bool bound = contains(scope.bound, name);
        PyObject* now = chunk_name_object(name); // borrowed
        auto local = m_loop_locals.find(name);
        if (!bound && (now == nullptr || !PyArray_Check(now)))
        {
            return cval{};
        }
        if (now == nullptr)
        {
            fail("name " + name + " bound in the loop but unbound before the chunk", node);
        }
        carried = true;
        cval v;
        if (local != m_loop_locals.end())
        {
            read_loop_local(name, v);
            return v;
        }
        return read_global(name, node);
    }

    // The chunk's start, trip count and step: relaxed int inputs (start,
    // trips) and the specialised step.
    cval converter::chunk_parameter(int index, const char* path, bool relaxed, int& src)
    {
        src = m_spec->sources.add(source{source_kind::arg, -1, index, py::none(), path});
        if (relaxed)
        {
            m_relaxed_sources.insert(src);
        }
        return read_source(src, m_frame.locals[index]);
    }

    // A range's target in trip `counter`: start + counter * step.
    cval converter::chunk_range_target(const cval& start, ir::value_id counter,
                                       long long step_value, const loop_chunk_scope& scope)
    {
        if (step_value != 1)
        {
            counter = m_builder->binary(
                ir::op::MUL, counter,
                m_builder->constant(ir::scalar::of_int(ir::dtype::int64, step_value)));
        }
        const ir::value_id start_v = m_arrays[static_cast<size_t>(start.arr)].value;
        cval index = new_array(m_builder->binary(ir::op::ADD, start_v, counter), surface::py_int);
        // The engine runs a chunk only when every value it gives the
        // target lies in the range of a relaxed int (loop_chunks.cpp).
        m_arrays[static_cast<size_t>(index.arr)].int_lo = relaxed_int_lo;
        m_arrays[static_cast<size_t>(index.arr)].int_hi = relaxed_int_hi;
        m_arrays[static_cast<size_t>(index.arr)].chunk_expr = int_leaf(0, Py_None, scope.target);
        return index;
    }

    std::shared_ptr<specialisation> converter::convert_loop_chunk(py::handle body,
                                                                  const loop_chunk_scope& scope,
                                                                  std::string& diagnostic,
                                                                  loop_chunk_plan& plan)
    {
        plan = loop_chunk_plan{};
        m_spec = std::make_shared<specialisation>();
        m_spec->module = std::make_unique<ir::module>();
        p_graph = &m_spec->module->add_graph("main");
        m_builder = std::make_unique<ir::builder>(*p_graph);
        m_first_line = 1; // the loop's AST carries the cell's own line numbers
        std::shared_ptr<specialisation> spec =
            guarded([&] { build_loop_chunk(body, scope, plan); }, diagnostic);
        if (!spec)
        {
            // Items the trip updated in place: carried by source next time.
            plan.item_writes = m_chunk_item_writes;
        }
        return spec;
    }

    void converter::build_loop_chunk(py::handle body, const loop_chunk_scope& scope,
                                     loop_chunk_plan& plan)
    {
        py::list statements = py::reinterpret_borrow<py::list>(body);
        py::handle first = py::len(statements) > 0 ? statements[0] : py::handle();
        if (scope.in_function)
        {
            p_code = m_frame.code;
            m_file = py::str(p_code->co_filename);
            for (const std::string& name : scope.names)
            {
                if (in_names(PyCode_GetCellvars(p_code), name) ||
                    in_names(PyCode_GetFreevars(p_code), name))
                {
                    fail("local " + name + " captured by a nested function or comprehension",
                         binding_statement(statements, name));
                }
            }
            for (size_t i = 0; i < scope.locals.size(); ++i)
            {
                m_loop_locals[scope.locals[i]] = static_cast<int>(i);
            }
        }
        else
        {
            p_code = module_level_code();
            if (p_code == nullptr)
            {
                throw py::error_already_set();
            }
            m_file = scope.file;
            m_cell_mode = true;
        }
        const bool is_while = static_cast<bool>(scope.while_test);
        if (is_while)
        {
            check_chunk_while_test(scope.while_test);
        }
        const int params = static_cast<int>(scope.locals.size());
        int step_src = -1;
        cval start = chunk_parameter(params, "chunk start", true, m_chunk_start_src);
        cval trips = chunk_parameter(params + 1, "chunk trips", true, m_chunk_trips_src);
        cval step = chunk_parameter(params + 2, "chunk step", false, step_src);
        if (start.k != cval::kind::array || trips.k != cval::kind::array ||
            step.k != cval::kind::constant || !PyLong_CheckExact(step.obj.ptr()))
        {
            fail("chunk bounds outside the int range of loop counters", first);
        }
        const long long step_value = PyLong_AsLongLong(step.obj.ptr());
        m_chunk_step = step_value;
        // The names the target binds (a tuple target's parts; none for `while`).
        const std::vector<std::string> targets = is_while ? std::vector<std::string>{}
                                                 : scope.parts.empty()
                                                     ? std::vector<std::string>{scope.target}
                                                     : scope.parts;
        std::vector<cval> items;
        m_chunk_over_items = !scope.items.empty();
        for (size_t p = 0; p < scope.items.size(); ++p)
        {
            items.push_back(chunk_items(params + 4 + static_cast<int>(p), scope.items[p], first));
        }
        for (const std::string& target : targets)
        {
            if (contains(scope.bound, target))
            {
                // CPython keeps the body's value, not the counter's.
                fail("loop target " + target + " rebound in the body of a loop run in chunks",
                     binding_statement(statements, target));
            }
        }
        if (!items.empty() && items.size() != targets.size())
        {
            fail("loop target " + scope.target +
                     " of a loop run in chunks unpacks another number "
                     "of values",
                 first);
        }

        // Every name but the carried ones and the target is read (and
        // written, refused below) as the iteration converter does.
        carried_loop loop;
        loop.what = "a loop run in chunks";
        loop.python_ints = true;
        loop.known_layouts = true;
        std::vector<std::string> globals = scope.in_function ? scope.globals : scope.names;
        for (const chunk_item_source& item : scope.item_sources)
        {
            loop.slots.push_back(carry_item_source(loop, item, scope, first));
        }
        for (const std::string& name : scope.names)
        {
            if (contains(targets, name))
            {
                continue;
            }
            py::handle at = binding_statement(statements, name);
            bool carried = false;
            if (contains(scope.bound, name) &&
                chunk_item_alias(name, chunk_name_object(name), loop))
            {
                globals.erase(std::remove(globals.begin(), globals.end(), name), globals.end());
                continue;
            }
            cval v = chunk_initial(name, scope, at, carried);
            if (carried)
            {
                loop.slots.push_back(carry_value(loop, name, v, at));
                globals.erase(std::remove(globals.begin(), globals.end(), name), globals.end());
            }
        }
        for (const std::string& target : targets)
        {
            globals.erase(std::remove(globals.begin(), globals.end(), target), globals.end());
        }
        m_declared_globals.insert(globals.begin(), globals.end());

        std::vector<ir::value_id> init;
        ir::region_id region = open_carried_loop(loop, init);
        std::vector<bool> rebound;
        std::vector<int> views;
        {
            ir::builder::insertion_guard keep(*m_builder);
            m_builder->set_insertion_end(region);
            ir::value_id counter = m_builder->arg(region, 0);
            if (!items.empty())
            {
                // A list's or tuple's item, or its parts (chunk_sequences.cpp).
                for (size_t p = 0; p < items.size(); ++p)
                {
                    m_locals[targets[p]] = chunk_item(items[p], counter, scope.items[p]);
                }
            }
            else if (!is_while)
            {
                m_locals[scope.target] = chunk_range_target(start, counter, step_value, scope);
            }
            bind_carried_args(loop, region);
            bind_chunk_aliases(loop);
            m_in_chunk = true;
            p_chunk_loop = &loop;
            chunk_trip(statements, loop);
            // A `while` loop's next trip runs while its test holds.
            const ir::value_id next = is_while ? chunk_while_next(scope.while_test) : ir::no_id;
            m_in_chunk = false;
            check_chunk_aliases(loop, first);
            note_chunk_item_names(scope);
            if (!m_chunk_item_writes.empty())
            {
                // The first conversion finds them, the next carries them
                // (chunk_items.cpp); one not found then stays refused.
                fail("in-place updates of arrays reached through list items inside " + loop.what +
                         (scope.item_sources.empty() ? " (carried by source by the next conversion)"
                                                     : ""),
                     first);
            }
            views = settle_chunk_views(loop, scope, first);
            auto at = [&](const std::string& name) { return binding_statement(statements, name); };
            std::vector<ir::value_id> results(loop.slots.size(), ir::no_id);
            plan.period = chunk_swaps(loop, results, at);
            if (is_while && plan.period != 1)
            {
                // The trips a chunk runs are the data's: the names would not
                // reach their own objects again.
                fail("names trading arrays in a while loop run in chunks", first);
            }
            for (size_t k = 0; k < loop.slots.size(); ++k)
            {
                carried_slot& s = loop.slots[k];
                // A name trading arrays reaches its own object again after
                // the chunk: not rebound.
                rebound.push_back(results[k] == ir::no_id && m_locals.at(s.name).arr != s.fresh);
                if (results[k] == ir::no_id)
                {
                    results[k] = carried_result(loop, s, at(s.name));
                }
            }
            stack_chunk_rows(loop, region, init, results, rebound, first);
            if (is_while)
            {
                carry_chunk_trips(region, init, results);
                results.insert(results.begin(), next);
            }
            m_builder->set_results(region, results);
        }
        const ir::value_id count = m_arrays[static_cast<size_t>(trips.arr)].value;
        // A `while` loop's first trip is the iteration CPython entered: its
        // test held.
        const ir::value_id first_test =
            is_while ? m_builder->constant(ir::scalar::of_bool(true)) : ir::no_id;
        std::vector<ir::value_id> outs =
            m_builder->loop(ir::loop_attr{true, is_while}, count, first_test, init, region);
        const size_t carried = loop.slots.size() + m_chunk_stacks.size() + (is_while ? 1 : 0);
        if (!m_builder->ok() || outs.size() != carried)
        {
            fail("loop run in chunks (IR: " + m_builder->state().message() + ")", first);
        }
        cval ran;
        if (is_while)
        {
            ran = chunk_trips_value(outs.back());
        }
        finish_chunk_rows(outs, loop.slots.size());
        outs.resize(loop.slots.size());
        plan.slices = m_chunk_checks;
        m_views_after = views;
        finish_loop_chunk(scope, loop.slots, rebound, outs, first, is_while ? &ran : nullptr);
    }

    // One iteration of the chunk's body, statement by statement, so that a
    // refusal names the statement (an `if` holding a print: the `if`).
    void converter::chunk_trip(const py::list& statements, const carried_loop& loop)
    {
        const size_t n = py::len(statements);
        for (size_t i = 0; i < n && !m_continuing; ++i)
        {
            py::handle stmt = statements[i];
            if (++m_statements > m_config.max_unrolled_statements)
            {
                fail("too many statements after unrolling", stmt);
            }
            m_rest = statements[py::slice(static_cast<Py_ssize_t>(i + 1),
                                          static_cast<Py_ssize_t>(n), 1)];
            visit_stmt(stmt);
            if (m_breaking || m_returned)
            {
                fail(std::string(m_breaking ? "break" : "return") + " inside " + loop.what, stmt);
            }
            check_carried_trip(loop, stmt);
        }
        m_continuing = false; // the trip ends there, as the iteration did
    }

    // After the LOOP: arrays updated in place get their final value, rebound
    // names their last one (the chunk runs at least one trip).
    void converter::finish_loop_chunk(const loop_chunk_scope& scope,
                                      const std::vector<carried_slot>& slots,
                                      const std::vector<bool>& rebound,
                                      const std::vector<ir::value_id>& outs, py::handle node,
                                      const cval* trips)
    {
        m_locals.clear();
        for (const carried_slot& s : slots)
        {
            if (s.source >= 0)
            {
                m_array_of_source[s.source] = s.orig;
            }
        }
        py::list names;
        std::vector<cval> values;
        for (size_t k = 0; k < slots.size(); ++k)
        {
            const carried_slot& s = slots[k];
            if (s.in_place)
            {
                write_array(s.orig, outs[k], node);
            }
            if (!rebound[k])
            {
                continue;
            }
            // A name left on a slice of the chunk: the view CPython leaves.
            cval now = m_views_after[k] >= 0 ? chunk_view_after(m_views_after[k], node)
                                             : new_array(outs[k], s.surf);
            chunk_row_final(k, now);
            if (scope.in_function && m_loop_locals.count(s.name))
            {
                names.append(py::str(s.name));
                values.push_back(now);
                continue;
            }
            effect_plan e;
            e.k = effect_plan::kind::set_global;
            e.key = py::str(s.name);
            e.value = plan_of(now, node);
            m_spec->effects.push_back(e);
        }
        m_result = cval{};
        if (scope.in_function)
        {
            // As an OSR iteration's: (broke, names, values...); a `while`
            // loop's chunk gives its trips first instead (while_chunks.cpp).
            m_result.k = cval::kind::tuple;
            cval broke;
            broke.obj = py::bool_(false);
            if (trips != nullptr)
            {
                broke = *trips;
            }
            cval bound;
            bound.obj = py::tuple(names);
            m_result.items = {broke, bound};
            m_result.items.insert(m_result.items.end(), values.begin(), values.end());
        }
        else if (trips != nullptr)
        {
            m_result = *trips; // the trips a `while` loop's chunk ran
        }
        else
        {
            m_result.obj = py::bool_(false);
        }
        m_returned = true;
        m_breaking = false;
        m_continuing = false;
        finish_graph();
    }
} // namespace specula::engine::converter
