#include "engine/runner.hpp"

#include <algorithm>
#include <cfenv>
#include <iterator>
#include <map>
#include <optional>

#include "backends/interrupt.hpp"
#include "backends/thread_signals.hpp"
#include "engine/chunk_rows.hpp"
#include "engine/formatted_text.hpp"
#include "engine/numpy_api.hpp"
#include "engine/run_inputs.hpp"
#include "engine/sunk_stores.hpp"
#include "engine/thread_rules.hpp"
#include "engine/tree_commit.hpp"
#include "engine/write_buffer.hpp"

namespace specula::engine
{
    namespace
    {
        // Polled by the executor once per LOOP trip (backends/interrupt.hpp).
        // Python's own check between bytecodes: it runs the signal handlers
        // (the GIL is held during a run); true when one raised, the exception
        // (KeyboardInterrupt) then being set. A handler that returns lets the
        // run go on, as CPython's loop would.
        bool python_signal_raised()
        {
            return PyErr_CheckSignals() < 0;
        }

        void install_interrupt_check()
        {
            static const bool installed =
                (backends::set_interrupt_check(&python_signal_raised), true);
            (void)installed;
        }

        // New reference: a NumPy object with the buffer's contents, or NULL
        // with an exception set.
        PyObject* to_python(const backends::buffer& b, surface s)
        {
            if (s == surface::py_float)
            {
                return PyFloat_FromDouble(b.element_as_double(0));
            }
            if (s == surface::py_int)
            {
                return PyLong_FromLongLong(b.element_as_int(0));
            }
            if (s == surface::py_bool)
            {
                return PyBool_FromLong(b.element_as_int(0) != 0);
            }
            std::vector<npy_intp> dims(b.shape().begin(), b.shape().end());
            std::vector<npy_intp> strides(b.strides().begin(), b.strides().end());
            PyObject* view =
                PyArray_New(&PyArray_Type, b.rank(), dims.data(), type_num_of(b.dtype()),
                            strides.empty() ? nullptr : strides.data(), b.data(), 0,
                            NPY_ARRAY_ALIGNED, nullptr);
            if (view == nullptr)
            {
                return nullptr;
            }
            // A copy the array owns: the graph's buffers are not NumPy's.
            PyObject* copy = PyArray_NewCopy(reinterpret_cast<PyArrayObject*>(view), NPY_CORDER);
            Py_DECREF(view);
            if (copy == nullptr || s == surface::ndarray)
            {
                return copy;
            }
            return PyArray_Return(reinterpret_cast<PyArrayObject*>(copy)); // steals copy
        }

        // The objects a run builds once however many places they reach: the
        // lists by their index in the plans (`g = acc; log.append(acc)`),
        // views (keys below -1), and the rows of the chunk iteration `row`
        // being replayed (chunk_rows.hpp).
        struct built_lists
        {
            std::map<int, py::object> objects;
            std::map<int, py::object> rows;
            std::int64_t row = -1;
            std::int64_t last_row = -1;
            const std::vector<chunk_row>* chunk_rows = nullptr;
        };

        py::object build(const value_plan& p, const std::vector<py::object>& outputs,
                         const std::vector<PyObject*>& values, built_lists& lists)
        {
            switch (p.k)
            {
            case value_plan::kind::output:
                return outputs[static_cast<size_t>(p.index)];
            case value_plan::kind::constant:
                return p.constant;
            case value_plan::kind::source:
                return py::reinterpret_borrow<py::object>(values[static_cast<size_t>(p.index)]);
            case value_plan::kind::tuple:
            {
                py::tuple t(p.items.size());
                for (size_t i = 0; i < p.items.size(); ++i)
                {
                    t[i] = build(p.items[i], outputs, values, lists);
                }
                return std::move(t);
            }
            case value_plan::kind::list:
            {
                if (p.index >= 0)
                {
                    auto built = lists.objects.find(p.index);
                    if (built != lists.objects.end())
                    {
                        return built->second;
                    }
                }
                py::list l(p.items.size());
                if (p.index >= 0)
                {
                    lists.objects[p.index] = l; // before the items: a list inside itself is refused
                }
                for (size_t i = 0; i < p.items.size(); ++i)
                {
                    l[i] = build(p.items[i], outputs, values, lists);
                }
                return std::move(l);
            }
            case value_plan::kind::view:
            {
                // Keyed apart from the lists' indices (>= 0).
                const int key = -2 - p.index;
                auto built = lists.objects.find(key);
                if (built != lists.objects.end())
                {
                    return built->second;
                }
                py::object v = make_view(build(p.items[0], outputs, values, lists), p.constant);
                lists.objects[key] = v;
                return v;
            }
            case value_plan::kind::row:
            {
                auto built = lists.rows.find(p.index);
                if (built != lists.rows.end())
                {
                    return built->second;
                }
                py::object v = chunk_row_object((*lists.chunk_rows)[static_cast<size_t>(p.index)],
                                                outputs, lists.row, lists.row == lists.last_row);
                lists.rows[p.index] = v;
                return v;
            }
            case value_plan::kind::format:
            {
                std::vector<py::object> items;
                for (const value_plan& item : p.items)
                {
                    items.push_back(build(item, outputs, values, lists));
                }
                return formatted_text(p.constant, items);
            }
            case value_plan::kind::dict:
            {
                py::dict d;
                for (size_t i = 0; i < p.items.size(); ++i)
                {
                    d[p.constant[py::int_(i)]] = build(p.items[i], outputs, values, lists);
                }
                return std::move(d);
            }
            }
            return py::none();
        }

        // Whether effect `k` is a store the run held back (sunk_stores.hpp):
        // written into the user's array by the backend, not by the buffer.
        bool is_sunk(const effect_plan& e, std::size_t k, const std::vector<int>& store_effect,
                     const backends::deferred_stores& held)
        {
            if (held.empty() || e.k != effect_plan::kind::array_write)
            {
                return false;
            }
            const auto o = static_cast<std::size_t>(e.value.index);
            return o < store_effect.size() && store_effect[o] == static_cast<int>(k) &&
                   held.holds(o);
        }

        void add_effect(write_buffer& wb, const specialisation& spec, const effect_plan& e,
                        const std::vector<py::object>& outputs,
                        const std::vector<PyObject*>& values, PyObject* globals, built_lists& lists)
        {
            py::object value = build(e.value, outputs, values, lists);
            py::object target =
                e.target >= 0 && e.k != effect_plan::kind::tree_attrs
                    ? py::reinterpret_borrow<py::object>(values[static_cast<size_t>(e.target)])
                    : py::object();
            switch (e.k)
            {
            case effect_plan::kind::set_global:
                wb.add(write_buffer::kind::set_global, py::reinterpret_borrow<py::object>(globals),
                       e.key, value);
                break;
            case effect_plan::kind::set_attr:
                wb.add(write_buffer::kind::set_attr, target, e.key, value);
                break;
            case effect_plan::kind::set_item:
                wb.add(write_buffer::kind::set_item, target, e.key, value);
                break;
            case effect_plan::kind::set_computed_item:
            {
                // The guards evaluated the same index (in range for a list).
                std::int64_t i = 0;
                if (!evaluate(*e.index, values.data(), i))
                {
                    throw std::runtime_error("item index not computable at commit");
                }
                wb.add(write_buffer::kind::set_item, target, py::int_(i), value);
                break;
            }
            case effect_plan::kind::array_write:
                wb.add(write_buffer::kind::array_write, target, py::none(), value);
                break;
            case effect_plan::kind::slice_write:
                // NumPy's own assignment: the value is an array of the
                // target's dtype and the slice's shape (sunk_slices.cpp).
                wb.add(write_buffer::kind::set_item, target, e.key, value);
                break;
            case effect_plan::kind::list_append:
                wb.add(write_buffer::kind::list_append, target, py::none(), value);
                break;
            case effect_plan::kind::tree_attrs:
                wb.add_deferred(
                    tree_attr_commit(*spec.trees[static_cast<size_t>(e.target)], outputs, values));
                break;
            case effect_plan::kind::print:
            {
                py::tuple args(e.args.size());
                for (size_t i = 0; i < e.args.size(); ++i)
                {
                    args[i] = build(e.args[i], outputs, values, lists);
                }
                wb.add_print(args, e.sep, e.end);
                break;
            }
            }
        }

        void fill_buffer(write_buffer& wb, const specialisation& spec,
                         const std::vector<py::object>& outputs,
                         const std::vector<PyObject*>& values, PyObject* globals,
                         const std::vector<int>& store_effect,
                         const backends::deferred_stores& held, built_lists& lists)
        {
            if (!spec.trip_effects.empty())
            {
                // A chunk's iterations, each one's effects in program order,
                // as CPython would have made them one iteration after another.
                const std::int64_t trips = chunk_trip_count(spec, outputs, values);
                lists.chunk_rows = &spec.chunk_rows;
                lists.last_row = trips - 1;
                for (lists.row = 0; lists.row < trips; ++lists.row)
                {
                    lists.rows.clear();
                    for (const effect_plan& e : spec.trip_effects)
                    {
                        add_effect(wb, spec, e, outputs, values, globals, lists);
                    }
                }
                lists.rows.clear();
            }
            for (std::size_t k = 0; k < spec.effects.size(); ++k)
            {
                const effect_plan& e = spec.effects[k];
                if (is_sunk(e, k, store_effect, held) ||
                    (e.when >= 0 && outputs[static_cast<size_t>(e.when)].ptr() != Py_True))
                {
                    continue; // sunk, or past an exit the iteration took (cell_exits.cpp)
                }
                add_effect(wb, spec, e, outputs, values, globals, lists);
            }
        }
        enum class fp_verdict
        {
            ignored,     // NumPy would say nothing: the run stands
            reported,    // NumPy would warn, raise, call or log: CPython runs the call
            interrupted, // the user's interrupt raised while asking (exception set)
        };

        // What NumPy would do with the floating-point flags `raised` (anything
        // but 'ignore' in np.geterr() acts). Cold: only asked when a run raised
        // a flag. np.geterr is Python code, so the eval loop may run a pending
        // signal's handler inside it: a KeyboardInterrupt (or the SystemExit a
        // user's handler raises) is the user's and stays set (py_errors.hpp);
        // any other error answers `reported`, so CPython, which is always
        // correct, runs the call.
        fp_verdict numpy_reports(int raised)
        {
            static const std::pair<int, const char*> categories[] = {{FE_DIVBYZERO, "divide"},
                                                                     {FE_OVERFLOW, "over"},
                                                                     {FE_UNDERFLOW, "under"},
                                                                     {FE_INVALID, "invalid"}};
            try
            {
                py::dict modes = py::module_::import("numpy").attr("geterr")();
                for (const auto& [flag, name] : categories)
                {
                    if ((raised & flag) != 0 &&
                        py::str(modes[name]).cast<std::string>() != "ignore")
                    {
                        return fp_verdict::reported;
                    }
                }
                return fp_verdict::ignored;
            }
            catch (py::error_already_set& e)
            {
                if (!e.matches(PyExc_Exception))
                {
                    e.restore();
                    return fp_verdict::interrupted;
                }
                PyErr_Clear();
                return fp_verdict::reported;
            }
        }
    } // namespace

    namespace
    {
        std::uint64_t g_commits_started = 0;

        // The cyclic GC paused from a run's first read to its commit's end:
        // a collection there runs finalizers and weakref callbacks, Python
        // code at whose bytecodes another thread could take the GIL between
        // the graph's reads and the commit's writes.
        class gc_paused
        {
        public:
            gc_paused() : m_was(PyGC_Disable()) {}
            ~gc_paused()
            {
                if (m_was != 0)
                {
                    PyGC_Enable();
                }
            }
            gc_paused(const gc_paused&) = delete;
            gc_paused& operator=(const gc_paused&) = delete;

        private:
            int m_was;
        };

        bool prints_at_commit(const specialisation& spec)
        {
            const auto is_print = [](const effect_plan& e)
            { return e.k == effect_plan::kind::print; };
            return std::any_of(spec.effects.begin(), spec.effects.end(), is_print) ||
                   std::any_of(spec.trip_effects.begin(), spec.trip_effects.end(), is_print);
        }
        std::uint64_t g_fail_at_commit = 0; // tests: the commit count that throws (0: none)

        // The run's last step, after every check: the held-back kernels
        // write the users' arrays. No signal check comes before it: a
        // signal handler must not run between the graph's reads and these
        // writes, so a pending KeyboardInterrupt is raised by CPython right
        // after the call returns, with every effect committed (the state
        // CPython reaches when the signal arrives just after the return).
        bool run_sunk_stores(backends::deferred_stores& stores, run_report& report)
        {
            const auto n = static_cast<std::int64_t>(stores.size());
            if (backends::status st = stores.run(); !st)
            {
                // The held-back kernels check their operands before writing
                // (deferred_store.hpp): nothing was written.
                report.message = "sunk store: " + st.to_string();
                return false;
            }
            report.sunk_stores = n;
            return true;
        }
    } // namespace

    run_report run_specialisation(const specialisation& spec, const std::vector<PyObject*>& values,
                                  PyObject** result)
    {
        run_report report;
        if (prints_at_commit(spec) && thread_rules::other_threads_alive())
        {
            report.outcome = run_outcome::left_to_cpython;
            report.message = "left to CPython: it prints at commit while other Python threads "
                             "run (they could change what it read before the print)";
            return report;
        }
        gc_paused no_collection;
        run_scalars scalars;
        std::vector<backends::buffer> inputs;
        make_inputs(spec, values, scalars, inputs);
        // NumPy reports floating-point errors from the IEEE flags its loops
        // leave (np.seterr). The graph's kernels raise the same flags on this
        // thread (the CPU backend runs single-lane for that reason); when one
        // is up that NumPy would act on, CPython runs the call and warns or
        // raises exactly as NumPy does.
        std::vector<int> store_effect;
        std::vector<backends::buffer> targets;
        choose_sunk_stores(spec, values, store_effect, targets);
        std::vector<py::object> arrays;
        std::vector<backends::buffer> destinations;
        make_destinations(spec, inputs, targets, arrays, destinations);
        std::feclearexcept(FE_ALL_EXCEPT);
        install_interrupt_check();
        backends::run_result rr = spec.exe->run(inputs, destinations, targets);
        if (rr.state.code() == backends::status_code::interrupted)
        {
            // The handler raised (KeyboardInterrupt is set): nothing is
            // committed and the call raises as CPython would.
            std::feclearexcept(FE_ALL_EXCEPT);
            report.outcome = run_outcome::interrupted;
            return report;
        }
        int raised = std::fetestexcept(FE_DIVBYZERO | FE_OVERFLOW | FE_UNDERFLOW | FE_INVALID);
        if (raised != 0)
        {
            const fp_verdict verdict = numpy_reports(raised);
            std::feclearexcept(FE_ALL_EXCEPT);
            if (verdict == fp_verdict::interrupted)
            {
                report.outcome = run_outcome::interrupted;
                return report;
            }
            if (verdict == fp_verdict::reported)
            {
                report.outcome = run_outcome::numpy_raises;
                report.message = "a floating-point error NumPy reports (np.geterr)";
                return report;
            }
        }
        if (!rr.state)
        {
            report.message = rr.state.to_string();
            if (rr.exit)
            {
                report.outcome = run_outcome::assert_exit;
                report.exit_id = rr.exit->exit_id;
            }
            else
            {
                report.outcome = rr.state.code() == backends::status_code::runtime_error
                                     ? run_outcome::numpy_raises
                                     : run_outcome::failed;
            }
            return report;
        }
        std::vector<py::object> outputs;
        for (size_t i = 0; i < rr.outputs.size(); ++i)
        {
            if (i < arrays.size() && arrays[i])
            {
                outputs.push_back(std::move(arrays[i])); // written by the run
                continue;
            }
            if (rr.stores.holds(i))
            {
                outputs.push_back(py::none()); // only its sunk store reads it
                continue;
            }
            PyObject* o = to_python(rr.outputs[i], spec.outputs[i]);
            if (o == nullptr)
            {
                PyErr_Clear();
                report.message = "could not materialise output " + std::to_string(i);
                return report;
            }
            outputs.push_back(py::reinterpret_steal<py::object>(o));
        }
        write_buffer wb;
        built_lists lists;
        fill_buffer(wb, spec, outputs, values, spec.globals.ptr(), store_effect, rr.stores, lists);
        py::object ret = build(spec.result, outputs, values, lists);
        // Printing runs Python's stream code, where a signal handler may
        // raise between two effects of the commit; a chunk's replayed prints
        // come before its names' final values, so an interrupt there would
        // leave a state no whole number of iterations gives. Signals that
        // arrive during the commit wait for its end (CPython raises them
        // after the call or iteration); earlier ones are taken below.
        std::optional<backends::async_signals_blocked> hold_signals;
        if (wb.prints())
        {
            hold_signals.emplace();
        }
        if (!rr.stores.empty())
        {
            if (!run_sunk_stores(rr.stores, report))
            {
                return report;
            }
        }
        // An interrupt that arrived during the run: nothing is committed and
        // the call raises KeyboardInterrupt as CPython would.
        else if (PyErr_CheckSignals() < 0)
        {
            wb.drop();
            report.outcome = run_outcome::interrupted;
            return report;
        }
        ++g_commits_started; // the effects are the user's from here (the sunk stores' too)
        if (!wb.commit())
        {
            report.outcome = run_outcome::commit_error;
            return report;
        }
        if (g_commits_started == g_fail_at_commit)
        {
            throw std::runtime_error("failure injected after a commit (tests)");
        }
        *result = ret.release().ptr();
        report.outcome = run_outcome::done;
        return report;
    }

    std::uint64_t commits_started()
    {
        return g_commits_started;
    }

    void raise_after_commit(const std::string& why)
    {
        PyErr_SetString(
            PyExc_SystemError,
            ("specula: internal error after a commit (its effects stand): " + why).c_str());
    }

    void fail_after_commit(std::uint64_t n)
    {
        g_fail_at_commit = g_commits_started + n;
    }
} // namespace specula::engine
