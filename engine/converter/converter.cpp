// The converter's frame: reading sources into values, the graph boundary,
// value plans for effects and the return value, and the alias guards.
#include "engine/converter/converter.hpp"

#include <sstream>

#include "engine/backend_choice.hpp"
#include "engine/converter/symbolic_broadcast.hpp"
#include "engine/numpy_api.hpp"
#include "engine/py_errors.hpp"
#include "engine/sunk_slices.hpp"
#include "ir/verifier.hpp"
#include <algorithm>

namespace specula::engine::converter
{
    namespace
    {
        bool is_plain_instance(PyObject* obj)
        {
            PyTypeObject* t = Py_TYPE(obj);
            return t->tp_getattro == PyObject_GenericGetAttr &&
                   t->tp_setattro == PyObject_GenericSetAttr &&
                   (t->tp_flags & Py_TPFLAGS_HEAPTYPE) && _PyObject_GetDictPtr(obj) != nullptr;
        }
    } // namespace

    converter::converter(const frame_hook::frame_view& frame, const profile& prof,
                         const whitelist& wl, const config& cfg)
        : m_frame(frame), m_profile(prof), m_whitelist(wl), m_config(cfg)
    {
    }

    void converter::fail(const std::string& construct, py::handle node) const
    {
        if (interrupt_pending())
        {
            // A lookup ran user code (a key's __eq__) that raised the user's
            // interrupt: raised now, before another Python call could clear
            // it (CPython's type lookups clear errors they did not raise).
            throw py::error_already_set();
        }
        throw not_convertible("not convertible: " + construct + " at " + where(node));
    }

    std::string converter::where(py::handle node) const
    {
        int line = m_first_line;
        if (node && py::hasattr(node, "lineno"))
        {
            line = m_first_line + node.attr("lineno").cast<int>() - 1;
        }
        return m_file + ":" + std::to_string(line);
    }

    std::shared_ptr<specialisation> converter::convert(std::string& diagnostic)
    {
        m_spec = std::make_shared<specialisation>();
        m_spec->module = std::make_unique<ir::module>();
        p_graph = &m_spec->module->add_graph("main");
        m_builder = std::make_unique<ir::builder>(*p_graph);
        PyCodeObject* code = m_frame.code;
        m_file = py::str(code->co_filename);
        m_first_line = code->co_firstlineno;
        return guarded(
            [&]
            {
                if (code->co_flags & (CO_VARARGS | CO_VARKEYWORDS))
                {
                    fail("*args/**kwargs parameters", py::handle());
                }
                // Free variables are read through the closure cells (calls.cpp);
                // nested functions, lambdas and comprehensions that capture
                // locals are refused where they occur.
                p_code = code;
                py::module_ inspect = py::module_::import("inspect");
                py::tuple lines_start;
                try
                {
                    lines_start = inspect.attr("getsourcelines")(
                        py::handle(reinterpret_cast<PyObject*>(code)));
                }
                catch (py::error_already_set& e)
                {
                    if (!e.matches(PyExc_Exception))
                    {
                        throw; // the user's interrupt, not a conversion failure
                    }
                    fail("source not available", py::handle());
                }
                py::object text = py::str("").attr("join")(lines_start[0]);
                m_first_line = lines_start[1].cast<int>();
                text = py::module_::import("textwrap").attr("dedent")(text);
                py::object tree = py::module_::import("ast").attr("parse")(text);
                py::list body = tree.attr("body");
                if (py::len(body) != 1 || node_type(body[0]) != "FunctionDef")
                {
                    fail("source is not a plain function definition", py::handle());
                }
                if (code->co_argcount > 0 && calls_itself(body[0]) &&
                    python_callable(m_frame.locals[0]) && !PyFunction_Check(m_frame.locals[0]))
                {
                    // f(node, ...) calling itself on a node's children.
                    convert_recursion(body[0]);
                    return;
                }
                convert_function_body(body[0]);
                finish_graph();
            },
            diagnostic);
    }

    void converter::convert_function_body(py::handle fdef)
    {
        PyCodeObject* code = m_frame.code;
        int nargs = code->co_argcount + code->co_kwonlyargcount;
        for (int i = 0; i < nargs; ++i)
        {
            source s{source_kind::arg, -1, i, py::none(), arg_path(code, i)};
            int src = m_spec->sources.add(s);
            m_locals[s.path] = read_source(src, m_frame.locals[i]);
        }
        m_whole_function = true;
        visit_body(fdef.attr("body"));
    }

    std::shared_ptr<specialisation> converter::guarded(const std::function<void()>& convert_body,
                                                       std::string& diagnostic)
    {
        try
        {
            convert_body();
        }
        catch (const not_convertible& e)
        {
            if (interrupt_pending())
            {
                // Refused after user code it ran (a key's __eq__) raised the
                // user's interrupt: raised, not a conversion failure.
                throw py::error_already_set();
            }
            diagnostic = e.what();
            return nullptr;
        }
        catch (py::error_already_set& e)
        {
            if (!e.matches(PyExc_Exception))
            {
                throw; // the user's interrupt is not a conversion failure
            }
            diagnostic =
                std::string("not convertible: conversion raised ") + e.what() + " in " + m_file;
            return nullptr;
        }
        return m_spec;
    }

    cval converter::new_array(ir::value_id v, surface s, int view_of)
    {
        if (v == ir::no_id || !m_builder->ok())
        {
            throw not_convertible("not convertible: IR rejected an operation (" +
                                  m_builder->state().message() + ") in " + m_file);
        }
        array_entry e;
        e.value = v;
        e.surf = s;
        e.view_of = view_of;
        m_arrays.push_back(e);
        cval out;
        out.k = cval::kind::array;
        out.arr = static_cast<int>(m_arrays.size()) - 1;
        return out;
    }

    const ir::value_type& converter::type_of(ir::value_id v) const
    {
        return p_graph->type_of(v);
    }

    ir::value_id converter::value_of(const cval& v, py::handle node)
    {
        if (v.k == cval::kind::array)
        {
            if (m_arrays[static_cast<size_t>(v.arr)].unwritten)
            {
                fail("np.empty_like array read before all of it was written", node);
            }
            check_fresh(m_arrays[static_cast<size_t>(v.arr)], node);
            return m_arrays[static_cast<size_t>(v.arr)].value;
        }
        fail("a non-array value used as an array", node);
    }

    cval converter::read_global(const std::string& name, py::handle node)
    {
        std::string path = global_path(name);
        auto written = m_heap_writes.find(path);
        if (written != m_heap_writes.end())
        {
            return written->second;
        }
        py::str key(name);
        source s{source_kind::global, -1, 0, key, path};
        int src = m_spec->sources.add(s);
        owned_refs owned;
        std::vector<PyObject*> none;
        PyObject* obj = m_spec->sources.resolve(src, m_frame, none, owned);
        if (obj == nullptr)
        {
            fail("unbound global " + name, node);
        }
        return read_source(src, obj);
    }

    cval converter::read_attribute(const cval& obj, const std::string& name, py::handle node)
    {
        if (obj.k == cval::kind::tree)
        {
            return tree_attribute(obj, name, node);
        }
        if (obj.k != cval::kind::object)
        {
            fail("attribute ." + name + " of this value", node);
        }
        const source& parent = m_spec->sources[obj.src];
        std::string path = parent.path + "." + name;
        auto written = m_heap_writes.find(path);
        if (written != m_heap_writes.end())
        {
            return written->second;
        }
        cval from_site;
        if (tree_site_attribute(obj, name, node, from_site)) // tree_calls.cpp
        {
            return from_site;
        }
        PyObject* o = obj.obj.ptr();
        source s{PyModule_CheckExact(o) ? source_kind::module_attr : source_kind::attr, obj.src, 0,
                 py::str(name), path};
        if (s.kind == source_kind::attr && !is_plain_instance(o))
        {
            fail("attribute ." + name + " of a " + std::string(Py_TYPE(o)->tp_name) + " object",
                 node);
        }
        if (s.kind == source_kind::attr)
        {
            // Descriptors (properties, methods) would run code: only plain
            // instance attributes are graph inputs.
            PyObject* in_type = _PyType_Lookup(Py_TYPE(o), s.key.ptr());
            cval getter_result;
            if (in_type != nullptr && read_property(obj, name, node, getter_result))
            {
                return getter_result;
            }
            if (in_type != nullptr && Py_TYPE(in_type)->tp_descr_get != nullptr)
            {
                fail("attribute ." + name + " defined by the class (method or property)", node);
            }
        }
        int src = m_spec->sources.add(s);
        owned_refs owned;
        std::vector<PyObject*> values(static_cast<size_t>(m_spec->sources.size()), nullptr);
        values[static_cast<size_t>(obj.src)] = o;
        PyObject* value = m_spec->sources.resolve(src, m_frame, values, owned);
        if (value == nullptr)
        {
            fail("missing attribute ." + name, node);
        }
        return read_source(src, value);
    }

    int converter::add_assert(ir::value_id cond, const std::string& why)
    {
        auto exit_id = static_cast<std::uint32_t>(m_spec->exit_reasons.size());
        m_spec->exit_reasons.push_back(why);
        if (m_live != ir::no_id)
        {
            // Past a cell loop's exit on data (cell_exits.cpp): it holds
            // unless the iteration still runs here.
            cond = m_builder->binary(ir::op::LOGICAL_OR,
                                     m_builder->unary(ir::op::LOGICAL_NOT, m_live), cond);
        }
        m_builder->assert_true(cond, exit_id, why);
        return static_cast<int>(exit_id);
    }

    int converter::output_of(int arr)
    {
        auto found = m_output_of_array.find(arr);
        if (found != m_output_of_array.end())
        {
            return found->second;
        }
        // Values are added to the graph at finish, so the output holds the
        // entry's final value (entries do not change once escaped).
        int slot = static_cast<int>(m_spec->outputs.size());
        m_spec->outputs.push_back(m_arrays[static_cast<size_t>(arr)].surf);
        m_output_of_array[arr] = slot;
        return slot;
    }

    value_plan converter::plan_of(const cval& v, py::handle node, bool identity_visible)
    {
        value_plan p;
        switch (v.k)
        {
        case cval::kind::constant:
            p.k = value_plan::kind::constant;
            p.constant = v.obj;
            return p;
        case cval::kind::object:
            p.k = value_plan::kind::source;
            p.index = v.src;
            return p;
        case cval::kind::tuple:
            if (v.list >= 0)
            {
                // A list literal or comprehension: a new list (code_lists.cpp).
                return code_list_plan(v, node, identity_visible);
            }
            p.k = value_plan::kind::tuple;
            for (const cval& item : v.items)
            {
                p.items.push_back(plan_of(item, node, identity_visible));
            }
            return p;
        case cval::kind::dict:
            return dict_plan(v, node, identity_visible);
        case cval::kind::tree:
            fail("a tree node used as a value", node);
        case cval::kind::array:
            break;
        }
        array_entry& e = m_arrays[static_cast<size_t>(v.arr)];
        if (e.unwritten)
        {
            fail("np.empty_like array escaping before all of it was written", node);
        }
        check_fresh(e, node);
        if (e.src >= 0)
        {
            p.k = value_plan::kind::source;
            p.index = e.src;
            return p;
        }
        for (int base = v.arr; base >= 0; base = m_arrays[static_cast<size_t>(base)].view_of)
        {
            if (base != v.arr && m_arrays[static_cast<size_t>(base)].src >= 0)
            {
                if (!input_view_plan(v.arr, p))
                {
                    fail("a view of an input array escaping (not made by .T or .transpose)", node);
                }
                e.escaped = true;
                e.bound_only = false;
                return p;
            }
            if (identity_visible && tree_site_read(base))
            {
                // CPython hands out the object stored on the node.
                fail("an attribute a recursion set on a tree node escaping", node);
            }
        }
        if (m_in_chunk)
        {
            // Computed by a chunk's trip: one row per iteration (chunk_effects.cpp).
            return chunk_row_plan(v.arr, node, identity_visible);
        }
        if (identity_visible)
        {
            check_escape_layout(e, node);
        }
        e.escaped = true;
        e.bound_only = false; // a global binding sets it again (statements.cpp)
        p.k = value_plan::kind::output;
        p.index = output_of(v.arr);
        return p;
    }

    void converter::refuse_overlapping_writes()
    {
        std::string pairs;
        for (int w : m_written_sources)
        {
            auto written = m_seen_arrays.find(w);
            if (written == m_seen_arrays.end())
            {
                continue;
            }
            for (const auto& [r, seen] : m_seen_arrays)
            {
                if (r != w && arrays_overlap(written->second.ptr(), seen.ptr()))
                {
                    const std::string what =
                        m_spec->sources[w].path + " / " + m_spec->sources[r].path;
                    m_spec->guards.add(make_overlap_guard(w, r, what));
                    pairs += (pairs.empty() ? "" : ", ") + what;
                }
            }
        }
        if (!pairs.empty())
        {
            // NumPy reads a written array's new contents through every
            // overlapping view, element by element; the graph reads its inputs
            // once. Calls like this one stay in CPython (the guards above),
            // calls on separate arrays still convert.
            m_situational = true;
            throw not_convertible("not convertible: written array shares memory with another (" +
                                  pairs + ") in " + m_file);
        }
    }

    void converter::add_alias_guards()
    {
        refuse_overlapping_writes();
        std::vector<int> array_sources;
        for (const auto& [src, arr] : m_array_of_source)
        {
            array_sources.push_back(src);
        }
        for (int w : m_written_sources)
        {
            for (int r : array_sources)
            {
                if (r != w)
                {
                    m_spec->guards.add(make_no_overlap_guard(
                        w, r, m_spec->sources[w].path + " / " + m_spec->sources[r].path));
                }
            }
            for (auto& g : m_spec->guards.per_source[static_cast<size_t>(w)])
            {
                if (g.kind == guard_kind::array_meta)
                {
                    g.writeable = true;
                }
            }
        }
        for (int w : m_setattr_sources)
        {
            for (int i = 0; i < m_spec->sources.size(); ++i)
            {
                if (i != w && !m_spec->guards.per_source[static_cast<size_t>(i)].empty() &&
                    m_spec->guards.per_source[static_cast<size_t>(i)][0].kind ==
                        guard_kind::type_is)
                {
                    m_spec->guards.add(make_distinct_guard(
                        w, i, m_spec->sources[w].path + " / " + m_spec->sources[i].path));
                }
            }
        }
    }

    void converter::finish_graph()
    {
        if (!m_returned)
        {
            m_result = cval{};
            m_result.obj = py::none();
        }
        m_spec->result = plan_of(m_result, py::handle());
        fill_code_lists(); // lists that reached Python, with their final items
        std::vector<std::pair<int, int>> slots(m_output_of_array.begin(), m_output_of_array.end());
        std::sort(slots.begin(), slots.end(), [](auto a, auto b) { return a.second < b.second; });
        for (const auto& [arr, slot] : slots)
        {
            m_builder->output(m_arrays[static_cast<size_t>(arr)].value,
                              "out" + std::to_string(slot));
        }
        if (!m_builder->ok())
        {
            throw not_convertible("not convertible: IR builder: " + m_builder->state().message());
        }
        add_alias_guards();
        sink_slice_updates(*p_graph, *m_spec);
        auto problems = ir::verify(*p_graph);
        if (!problems.empty())
        {
            throw not_convertible("not convertible: IR verifier: " + ir::format(problems));
        }
        std::string broadcast = symbolic_broadcast_problem(*p_graph);
        if (!broadcast.empty())
        {
            throw not_convertible("not convertible: " + broadcast + " in " + m_file);
        }
        std::string refused;
        auto exe = compile_for_engine(*p_graph, refused);
        if (!exe)
        {
            throw not_convertible("not convertible: backend: " + exe.error().to_string());
        }
        if (!refused.empty())
        {
            throw not_convertible("not convertible: " + refused + " in " + m_file);
        }
        m_spec->exe = std::move(exe.value());
    }
} // namespace specula::engine::converter
