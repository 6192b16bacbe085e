#include "engine/loop_chunks.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "engine/converter/converter.hpp"
#include "engine/engine_core.hpp"
#include "engine/loop_locals.hpp"
#include "engine/numpy_api.hpp"
#include "engine/runner.hpp"
#include "ir/printer.hpp"

namespace specula::engine
{
    namespace
    {
        namespace py = pybind11;
        using clock = std::chrono::steady_clock;

        constexpr std::int64_t first_chunk = 4;
        constexpr std::int64_t max_chunk = std::int64_t{1} << 16;
        // A chunk graph whose guards keep failing is rebuilt this often.
        constexpr std::int64_t max_compiles = 4;
        // Chunks that keep failing cost their work twice: stop after this many.
        constexpr std::int64_t max_failures = 16;

        bool long_attr(PyObject* o, const char* name, long long& out)
        {
            py::object v =
                py::reinterpret_steal<py::object>(PyObject_GetAttrString(o, name)); // new reference
            if (!v)
            {
                PyErr_Clear();
                return false;
            }
            int overflow = 0;
            out = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
            if (overflow != 0 || (out == -1 && PyErr_Occurred()))
            {
                PyErr_Clear();
                return false;
            }
            return true;
        }

        void refuse(region_record& rec, std::string why)
        {
            rec.chunk.refused = true;
            rec.chunk.reason = std::move(why);
            rec.chunk.spec.reset();
        }

        // A counter test (cell_loops._is_counter_test) as an int_expr whose
        // leaf (source 0) is the target; null when it has no such form.
        int_expr_ptr counter_expr(py::handle node, const std::string& target)
        {
            const std::string kind = py::str(node.get_type().attr("__name__"));
            if (kind == "Name")
            {
                return py::str(node.attr("id")).cast<std::string>() == target
                           ? int_leaf(0, Py_None, target)
                           : nullptr;
            }
            if (kind == "Constant")
            {
                py::object v = node.attr("value");
                int overflow = 0;
                const long long c = PyLong_CheckExact(v.ptr())
                                        ? PyLong_AsLongLongAndOverflow(v.ptr(), &overflow)
                                        : 0;
                PyErr_Clear();
                return PyLong_CheckExact(v.ptr()) && overflow == 0 ? int_constant(c) : nullptr;
            }
            static const std::pair<const char*, const char*> ops[] = {
                {"Add", "+"},       {"Sub", "-"}, {"Mult", "*"},   {"Mod", "%"},
                {"FloorDiv", "//"}, {"Eq", "=="}, {"NotEq", "!="}, {"Lt", "<"},
                {"LtE", "<="},      {"Gt", ">"},  {"GtE", ">="}};
            auto op_text = [&](py::handle op) -> const char*
            {
                const std::string name = py::str(op.get_type().attr("__name__"));
                for (const auto& [n, text] : ops)
                {
                    if (name == n)
                    {
                        return text;
                    }
                }
                return nullptr;
            };
            if (kind == "BinOp")
            {
                const char* op = op_text(node.attr("op"));
                int_expr_ptr a = counter_expr(node.attr("left"), target);
                int_expr_ptr b = counter_expr(node.attr("right"), target);
                return op && a && b ? int_binary(op, a, b) : nullptr;
            }
            if (kind == "Compare" && py::len(node.attr("ops")) == 1)
            {
                const char* op = op_text(py::list(node.attr("ops"))[0]);
                int_expr_ptr a = counter_expr(node.attr("left"), target);
                int_expr_ptr b = counter_expr(py::list(node.attr("comparators"))[0], target);
                return op && a && b ? int_binary(op, a, b) : nullptr;
            }
            return nullptr;
        }

        // The value the target takes `j` iterations after `first` (the
        // current one): the range's int, or the list's or tuple's item.
        py::object value_at(const loop_cursor& cur, long long first, std::int64_t j)
        {
            if (cur.seq)
            {
                return py::reinterpret_borrow<py::object>(loop_sequences::item(cur, first + j));
            }
            return py::reinterpret_steal<py::object>(
                PyLong_FromLongLong(first + j * cur.step)); // new reference
        }

        // The sides the counter tests take at `value`; false when one cannot
        // be evaluated exactly.
        bool sides_at(const loop_chunk_record& c, const py::object& v, std::vector<bool>& sides)
        {
            sides.clear();
            if (c.tests.empty())
            {
                return true;
            }
            if (!v)
            {
                PyErr_Clear();
                return false;
            }
            PyObject* values[1] = {v.ptr()};
            for (const int_expr_ptr& t : c.tests)
            {
                std::int64_t r = 0;
                if (!t || !evaluate(*t, values, r))
                {
                    return false;
                }
                sides.push_back(r != 0);
            }
            return true;
        }

        void learn_counter_tests(region_record& rec)
        {
            rec.chunk.tests_known = true;
            py::list tests = py::module_::import("specula.cell_loops")
                                 .attr("counter_tests")(rec.cell_body, rec.chunk.target);
            for (py::handle t : tests)
            {
                rec.chunk.tests.push_back(counter_expr(t, rec.chunk.target));
            }
        }

        bool in_counter_range(long long v)
        {
            return v >= converter::relaxed_int_lo && v <= converter::relaxed_int_hi;
        }

        // The largest size up to `k` the chunk graph's plan allows from the
        // target's `value` on: the iterations before the first whose
        // counter-computed slice is not the rows the graph reads (a short last
        // batch), rounded down to a multiple of the period.
        std::int64_t fit(const loop_chunk_record& c, const loop_cursor& cur, long long value,
                         std::int64_t k)
        {
            if (!c.plan)
            {
                return k;
            }
            for (std::int64_t j = 0; j < k && !c.plan->slices.empty(); ++j)
            {
                py::object v = value_at(cur, value, j);
                for (const converter::chunk_slice_check& check : c.plan->slices)
                {
                    if (!v || !converter::chunk_slice_holds(check, v.ptr()))
                    {
                        PyErr_Clear();
                        k = j;
                        break;
                    }
                }
            }
            return k - k % c.plan->period;
        }

        // The chunk graph for this situation, compiled when missing or when
        // its guards fail (a bounded number of times).
        std::shared_ptr<specialisation> chunk_graph(region_record& rec,
                                                    const std::vector<sequence_items>& items,
                                                    const frame_hook::frame_view& view,
                                                    std::vector<PyObject*>& values,
                                                    owned_refs& owned)
        {
            guard_failure failure;
            if (rec.chunk.spec && check_guards(*rec.chunk.spec, view, values, owned, failure))
            {
                return rec.chunk.spec;
            }
            if (failure.index == guards_interrupted || rec.chunk.compiles >= max_compiles)
            {
                return nullptr; // this entry runs one iteration; a later one may match
            }
            ++rec.chunk.compiles;
            engine_core& core = engine_core::instance();
            converter::loop_chunk_scope scope;
            scope.file = rec.r->file();
            scope.target = rec.chunk.target;
            scope.in_function = rec.function_loop;
            scope.names = rec.function_loop ? rec.loop_names : rec.cell_names;
            scope.bound = rec.loop_bound;
            scope.locals = rec.loop_locals;
            scope.globals = rec.cell_names;
            scope.items = items;
            scope.parts = rec.chunk.parts;
            std::string diagnostic;
            py::list sides;
            for (bool b : rec.chunk.sides)
            {
                sides.append(py::bool_(b));
            }
            // The body with its counter `if`s decided (the run checks every
            // iteration of a chunk takes these sides).
            py::object body =
                py::module_::import("specula.cell_loops")
                    .attr("resolve_counter_tests")(rec.cell_body, rec.chunk.target, sides);
            auto plan = std::make_shared<converter::loop_chunk_plan>();
            std::shared_ptr<specialisation> spec;
            {
                converter::converter conv(view, rec.prof, core.whitelist_table(), core.settings());
                spec = conv.convert_loop_chunk(body, scope, diagnostic, *plan);
            }
            if (!spec && !plan->item_writes.empty())
            {
                // Arrays updated in place through list items: carried by
                // source (converter/chunk_items.cpp), on a converter of its own.
                scope.item_sources = plan->item_writes;
                converter::converter conv(view, rec.prof, core.whitelist_table(), core.settings());
                spec = conv.convert_loop_chunk(body, scope, diagnostic, *plan);
            }
            if (!spec)
            {
                if (core.settings().dump.exits)
                {
                    std::cerr << "specula: " << rec.r->name() << ": no chunks: " << diagnostic
                              << "\n";
                }
                refuse(rec, diagnostic);
                return nullptr;
            }
            spec->globals = py::reinterpret_borrow<py::object>(view.globals);
            if (core.settings().dump.ir)
            {
                std::cerr << "specula: chunks of " << rec.r->name() << "\n"
                          << ir::print(*spec->module) << "\n";
            }
            rec.chunk.spec = spec;
            rec.chunk.plan = plan;
            if (!check_guards(*spec, view, values, owned, failure))
            {
                return nullptr;
            }
            return spec;
        }

        // Moves CPython's iterator past the chunk's other iterations: a new
        // reference to the last value it yields (null with an exception).
        PyObject* advance(PyObject* iter, std::int64_t steps)
        {
            PyObject* last = nullptr;
            for (std::int64_t i = 0; i < steps; ++i)
            {
                Py_XDECREF(last);
                last = Py_TYPE(iter)->tp_iternext(iter); // new reference
                if (last == nullptr)
                {
                    if (!PyErr_Occurred())
                    {
                        PyErr_SetString(PyExc_SystemError, "specula: loop iterator ended early");
                    }
                    return nullptr;
                }
            }
            return last;
        }

        // Binds the loop's target (and, in a function, the locals the chunk
        // rebound) after the commit. False with an exception set.
        bool bind_target(region_record& rec, PyObject* globals, loop_locals* writer,
                         PyObject* result, PyObject* last)
        {
            // The names and values CPython's `for` binds from `last`: the
            // target, or a tuple target's names unpacked left to right.
            std::vector<std::pair<py::str, PyObject*>> binds;
            const std::size_t parts = rec.chunk.parts.size();
            for (std::size_t p = 0; p < std::max<std::size_t>(parts, 1); ++p)
            {
                PyObject* v = parts > 0 ? loop_sequences::part_of(last, static_cast<int>(p), parts)
                                        : last; // borrowed
                if (v == nullptr)
                {
                    PyErr_SetString(PyExc_SystemError, "specula: loop item changed in a chunk");
                    return false;
                }
                binds.emplace_back(py::str(parts > 0 ? rec.chunk.parts[p] : rec.chunk.target), v);
            }
            if (writer == nullptr)
            {
                for (const auto& [name, v] : binds)
                {
                    if (PyDict_SetItem(globals, name.ptr(), v) != 0)
                    {
                        return false;
                    }
                }
                return true;
            }
            // (False, names, values...) + the target's names.
            py::tuple got = py::reinterpret_borrow<py::tuple>(result);
            py::list names(got[1]);
            for (const auto& bind : binds)
            {
                names.append(bind.first);
            }
            py::list items;
            items.append(got[0]);
            items.append(py::tuple(names));
            for (size_t i = 2; i < got.size(); ++i)
            {
                items.append(got[i]);
            }
            for (const auto& bind : binds)
            {
                items.append(py::handle(bind.second));
            }
            bool broke = false;
            return writer->write_back(py::tuple(items).ptr(), broke);
        }

        // The value a target name holds now (borrowed; null when unbound).
        PyObject* bound_value(const region_record& rec, PyObject* globals, PyObject* const* locals,
                              const std::string& name)
        {
            if (locals != nullptr)
            {
                const auto& names = rec.loop_locals;
                auto at = std::find(names.begin(), names.end(), name);
                return at != names.end() ? locals[at - names.begin()] : nullptr;
            }
            py::str key(name);
            return PyDict_GetItemWithError(globals, key.ptr());
        }

        // The iteration the loop is at (a range's value, or the index of a
        // list's or tuple's item), and whether its target holds the value
        // CPython gave it (the per-iteration path ran the body as is).
        bool current_value(const region_record& rec, const loop_cursor& cur, PyObject* globals,
                           PyObject* const* locals, long long& value, long long& remaining)
        {
            const Py_ssize_t left = cur.seq ? 0 : PyObject_LengthHint(cur.iter.ptr(), -1);
            if (left < 0)
            {
                PyErr_Clear();
                return false;
            }
            remaining = left;
            value = cur.start + (cur.len - remaining - 1) * cur.step;
            if (cur.seq)
            {
                std::vector<PyObject*> bound;
                const bool unpacks = !rec.chunk.parts.empty();
                for (const std::string& name :
                     unpacks ? rec.chunk.parts : std::vector<std::string>{rec.chunk.target})
                {
                    bound.push_back(bound_value(rec, globals, locals, name));
                }
                PyErr_Clear();
                return loop_sequences::position(cur, bound, unpacks, value, remaining);
            }
            PyObject* bound = bound_value(rec, globals, locals, rec.chunk.target); // borrowed
            if (bound == nullptr || !PyLong_CheckExact(bound))
            {
                PyErr_Clear();
                return false;
            }
            int overflow = 0;
            const long long seen = PyLong_AsLongLongAndOverflow(bound, &overflow);
            PyErr_Clear();
            return overflow == 0 && seen == value;
        }

        // The one-iteration graph the chunks stand for: the loop's
        // specialisation with the most graph runs (the most recent one may
        // be an exception, the first iteration or a short last batch).
        const spec_cost* steady_graph(const region_record& rec)
        {
            const spec_cost* best = nullptr;
            const auto& specs = rec.r->specialisations();
            for (std::size_t i = 0; i < specs.size(); ++i)
            {
                const spec_cost* cost = specs[i]->cost.get();
                if (cost != nullptr &&
                    (best == nullptr || cost->graph.count() > best->graph.count()))
                {
                    best = cost;
                }
            }
            return best;
        }

        // What one iteration costs without chunks: the median of whole
        // iterations the per-iteration graph ran (marker to marker: a chunk
        // saves the entry, the commit and CPython's loop step of each one, so
        // the graph's own samples would understate it), or while fewer were
        // timed, that graph's median.
        std::optional<double> one_iteration_s(const region_record& rec)
        {
            constexpr std::int64_t wall_samples = 3;
            const auto& specs = rec.r->specialisations();
            for (std::size_t i = 0; i < specs.size(); ++i)
            {
                if (specs[i]->cost && specs[i]->cost->injected_graph_s)
                {
                    return specs[i]->cost->injected_graph_s; // the tests' fixed cost
                }
            }
            if (rec.chunk.iteration_wall.count() >= wall_samples)
            {
                return rec.chunk.iteration_wall.median_s();
            }
            const spec_cost* steady = steady_graph(rec);
            return steady != nullptr ? steady->graph.median_s() : std::nullopt;
        }

        // A chunk saves the per-iteration entry, but its LOOP may cost more
        // per trip than one graph per iteration (a carried array copied each
        // trip): after a few chunks of a steady size, slower than the
        // one-iteration graph's median by the cost check's margin, chunks
        // stop for this loop. A chunk's fixed costs (guards, per-iteration
        // checks, copying the carried arrays in and out) are spread over its
        // iterations, so only chunks that stand for the loop's steady state
        // are judged: `judged_size` iterations or more, or as many as the
        // time budget lets the next one run (K no longer grows); not the
        // first small ones, nor one cut short by the loop's end.
        void judge_chunks(region_record& rec, std::int64_t k, std::int64_t next_k,
                          double per_iteration)
        {
            constexpr std::int64_t chunk_samples = 3;
            constexpr std::int64_t judged_size = 16;
            constexpr double slower = 1.25;
            if (k < judged_size && next_k > k)
            {
                return;
            }
            rec.chunk.per_iteration.add(per_iteration);
            const engine_core& core = engine_core::instance();
            if (!core.settings().cost_check || rec.chunk.per_iteration.count() < chunk_samples)
            {
                return;
            }
            const std::optional<double> chunk = rec.chunk.per_iteration.median_s();
            const std::optional<double> one = one_iteration_s(rec);
            if (!chunk || !one || *chunk <= slower * *one)
            {
                return;
            }
            char text[160];
            std::snprintf(text, sizeof text,
                          "chunks slower than one graph per iteration (%.3g ms vs %.3g ms per "
                          "iteration)",
                          *chunk * 1e3, *one * 1e3);
            refuse(rec, text);
            if (core.settings().dump.exits)
            {
                std::cerr << "specula: " << rec.r->name() << ": " << text << "\n";
            }
        }

        void chunk_failed(region_record& rec, loop_cursor& cur, std::int64_t k, const char* why)
        {
            ++rec.chunk.failures;
            cur.replay = k;
            cur.streak = 0;
            cur.next_k = first_chunk;
            rec.chunk.next_k = first_chunk;
            if (engine_core::instance().settings().dump.exits)
            {
                std::cerr << "specula: " << rec.r->name() << ": chunk of " << k
                          << " iterations failed (" << why << "), replayed one by one\n";
            }
            if (rec.chunk.failures >= max_failures)
            {
                refuse(rec, std::string("chunks failed ") + std::to_string(max_failures) +
                                " times (last: " + why + ")");
            }
        }
    } // namespace

    namespace loop_chunks
    {
        PyObject* start(loop_cursor& cur, PyObject* iterable)
        {
            PyObject* it = PyObject_GetIter(iterable); // new reference
            if (it == nullptr)
            {
                return nullptr;
            }
            cur.iter = py::object();
            cur.seq = py::object();
            cur.one_graph = false;
            cur.streak = 0;
            cur.replay = 0;
            cur.next_k = 0;
            long long start = 0, step = 1, len = 0;
            if (Py_IS_TYPE(iterable, &PyRange_Type) && Py_IS_TYPE(it, &PyRangeIter_Type) &&
                long_attr(iterable, "start", start) && long_attr(iterable, "step", step) &&
                step > -(1LL << 31) && step < (1LL << 31))
            {
                len = static_cast<long long>(PyObject_Size(iterable));
                if (len < 0)
                {
                    PyErr_Clear();
                    return it;
                }
                cur.iter = py::reinterpret_borrow<py::object>(it);
                cur.frame = PyEval_GetFrame(); // borrowed
                cur.start = start;
                cur.step = step;
                cur.len = len;
                return it;
            }
            loop_sequences::record(cur, iterable, it);
            return it;
        }

        void after_iteration(loop_cursor& cur, bool graph)
        {
            cur.one_graph = graph && !cur.chunked;
            cur.streak = graph ? cur.streak + 1 : 0;
            if (cur.replay > 0)
            {
                --cur.replay;
            }
        }

        chunk_exit run(region_record& rec, loop_cursor& cur, PyObject* globals, PyObject* builtins,
                       PyCodeObject* code, PyObject* const* locals, loop_locals* writer)
        {
            const auto now = clock::now();
            if (cur.one_graph)
            {
                rec.chunk.iteration_wall.add(
                    std::chrono::duration<double>(now - cur.entered).count());
            }
            cur.entered = now;
            cur.one_graph = false;
            cur.chunked = false;
            const std::int64_t stable =
                rec.chunk.chunks > 0 ? stable_after_chunks : stable_iterations;
            if (rec.chunk.refused || rec.chunk.target.empty() || !cur.iter || cur.streak < stable ||
                cur.replay > 0 || rec.r->state() != region_state::compiled ||
                PyEval_GetFrame() != cur.frame)
            {
                return chunk_exit::not_run;
            }
            long long value = 0, remaining = 0;
            if (!current_value(rec, cur, globals, locals, value, remaining))
            {
                return chunk_exit::not_run;
            }
            if (!rec.chunk.tests_known)
            {
                learn_counter_tests(rec);
            }
            std::vector<bool> sides;
            if (!sides_at(rec.chunk, value_at(cur, value, 0), sides) ||
                (rec.chunk.spec && sides != rec.chunk.sides))
            {
                return chunk_exit::not_run; // another side than the chunk graph's: one iteration
            }
            if (cur.next_k == 0)
            {
                cur.next_k = rec.chunk.next_k > 0 ? rec.chunk.next_k : first_chunk;
            }
            std::int64_t k = std::min<std::int64_t>(cur.next_k, remaining + 1);
            std::vector<bool> later;
            for (std::int64_t j = 1; j < k && !rec.chunk.tests.empty(); ++j)
            {
                if (!sides_at(rec.chunk, value_at(cur, value, j), later) || later != sides)
                {
                    k = j; // the chunk ends before the other side
                }
            }
            if (!rec.chunk.spec)
            {
                rec.chunk.sides = sides;
            }
            k = fit(rec.chunk, cur, value, k);
            std::vector<sequence_items> items;
            const std::size_t parts = rec.chunk.parts.size();
            if (parts > 0 && !cur.seq)
            {
                return chunk_exit::not_run; // a tuple target over a range: CPython raises
            }
            if (cur.seq)
            {
                k = loop_sequences::uniform(cur, value, k, parts, items);
                if (k == 0)
                {
                    // This run's reason; a later run may iterate over others.
                    rec.chunk.reason = std::string("item ") + std::to_string(value) +
                                       " is neither a Python float or int nor a C-contiguous "
                                       "array (a loop over a list or tuple)";
                }
            }
            if (k < 2 || !in_counter_range(value) || !in_counter_range(value + (k - 1) * cur.step))
            {
                return chunk_exit::not_run;
            }
            // The view's locals: a function loop's own, then start, trips,
            // step, rows, and a loop over a sequence's stacked items.
            owned_refs owned;
            std::vector<PyObject*> view_locals;
            if (locals != nullptr)
            {
                view_locals.assign(locals, locals + rec.loop_locals.size());
            }
            view_locals.push_back(owned.keep(PyLong_FromLongLong(value)));
            view_locals.push_back(owned.keep(PyLong_FromLongLong(k)));
            view_locals.push_back(owned.keep(PyLong_FromLongLong(cur.step)));
            // K rows the graph's buffers of per-iteration effect values take
            // their size from (converter/chunk_effects.cpp).
            npy_intp rows = static_cast<npy_intp>(k);
            view_locals.push_back(owned.keep(PyArray_ZEROS(1, &rows, NPY_INT8, 0)));
            for (size_t p = 0; p < items.size(); ++p)
            {
                const int part = parts > 0 ? static_cast<int>(p) : -1;
                view_locals.push_back(
                    owned.keep(loop_sequences::stack(cur, value, k, part, parts, items[p])));
            }
            if (PyErr_Occurred())
            {
                return chunk_exit::fail;
            }
            frame_hook::frame_view view{nullptr, globals, builtins, view_locals.data(), code};
            const auto started = clock::now();
            const std::int64_t compiles = rec.chunk.compiles;
            std::vector<PyObject*> values;
            std::shared_ptr<specialisation> spec;
            try
            {
                spec = chunk_graph(rec, items, view, values, owned);
            }
            catch (py::error_already_set& e)
            {
                if (!e.matches(PyExc_Exception))
                {
                    e.restore(); // the user's interrupt, in conversion: raised here
                    return chunk_exit::fail;
                }
                refuse(rec, std::string("no chunks: conversion raised ") + e.what());
                return chunk_exit::not_run;
            }
            if (PyErr_Occurred())
            {
                return chunk_exit::fail; // the user's interrupt, in a lookup the guards ran
            }
            // The chunk's own time, as the one-iteration graph's samples are
            // taken: without converting and compiling its graph.
            const auto ran_from = rec.chunk.compiles != compiles ? clock::now() : started;
            if (!spec || fit(rec.chunk, cur, value, k) != k)
            {
                // (A graph built just now may need another size: the next
                // entry picks one.)
                return chunk_exit::not_run;
            }
            if (cur.seq && loop_sequences::items_alias_inputs(cur, value, k, parts, values))
            {
                // The graph would read a copy of an array it writes: these
                // iterations run one by one.
                return chunk_exit::not_run;
            }
            PyObject* raw = nullptr;
            run_report rep = run_specialisation(*spec, values, &raw);
            switch (rep.outcome)
            {
            case run_outcome::done:
                break;
            case run_outcome::interrupted:
            case run_outcome::commit_error:
                return chunk_exit::fail; // nothing committed, or CPython's error
            case run_outcome::assert_exit:
                chunk_failed(rec, cur, k, spec->exit_reasons.at(rep.exit_id).c_str());
                return chunk_exit::not_run;
            case run_outcome::numpy_raises:
            case run_outcome::failed:
                chunk_failed(rec, cur, k, rep.message.c_str());
                return chunk_exit::not_run;
            }
            py::object result = py::reinterpret_steal<py::object>(raw);
            PyObject* last = advance(cur.iter.ptr(), k - 1);
            if (last == nullptr)
            {
                return chunk_exit::fail;
            }
            py::object last_owned = py::reinterpret_steal<py::object>(last);
            if (!bind_target(rec, globals, writer, result.ptr(), last))
            {
                return chunk_exit::fail;
            }
            const double seconds = std::chrono::duration<double>(clock::now() - started).count();
            ++rec.chunk.chunks;
            rec.chunk.iterations += k;
            rec.chunk.time_s += seconds;
            // graph_runs counts the iterations graphs ran.
            rec.r->record_graph_run(rep.sunk_stores);
            for (std::int64_t i = 1; i < k; ++i)
            {
                rec.r->record_graph_run();
            }
            const double per_iteration =
                std::chrono::duration<double>(clock::now() - ran_from).count() /
                static_cast<double>(k);
            const auto fits =
                static_cast<std::int64_t>(chunk_budget_s / std::max(per_iteration, 1e-9));
            cur.next_k = std::clamp<std::int64_t>(std::min(2 * k, fits), 2, max_chunk);
            rec.chunk.next_k = cur.next_k;
            judge_chunks(rec, k, cur.next_k, per_iteration);
            cur.chunked = true;
            return chunk_exit::ran;
        }
    } // namespace loop_chunks
} // namespace specula::engine
