// Calls of Python functions, inlined (JANUS §4.2): module-level functions,
// methods of plain classes, property getters and `obj(...)` through the
// class's __call__. Each callee is guarded on what the call depends on: the
// function object (through the source it was read from), its __code__, the
// defaults it used and the closure cells it reads, all re-read at every call.
// The callee's effects go into the same effect list, so they commit in
// program order with the caller's.
#include "engine/converter/converter.hpp"
#include "engine/py_errors.hpp"

#include <algorithm>

namespace specula::engine::converter
{
    namespace
    {
        // Calls nested deeper than this are not inlined (the graph would grow
        // with every level; deep chains are usually recursion in disguise).
        constexpr size_t max_inline_depth = 16;

        // Index of `name` in a tuple of names (new reference `names`, released
        // here), or -1.
        int index_in(PyObject* names, const std::string& name)
        {
            int found = -1;
            if (names != nullptr)
            {
                for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(names) && found < 0; ++i)
                {
                    const char* n = PyUnicode_AsUTF8(PyTuple_GET_ITEM(names, i));
                    if (n != nullptr && name == n)
                    {
                        found = static_cast<int>(i);
                    }
                }
                Py_DECREF(names);
            }
            PyErr_Clear();
            return found;
        }

        std::string qualname_of(PyObject* fn)
        {
            py::object q = py::getattr(py::handle(fn), "__qualname__", py::none());
            return q.is_none() ? std::string("?") : std::string(py::str(q));
        }

        bool generic_instance(PyObject* o)
        {
            PyTypeObject* t = Py_TYPE(o);
            return !PyModule_Check(o) && !PyType_Check(o) &&
                   t->tp_getattro == PyObject_GenericGetAttr && (t->tp_flags & Py_TPFLAGS_HEAPTYPE);
        }
    } // namespace

    bool python_callable(PyObject* o)
    {
        return PyFunction_Check(o) || generic_instance(o);
    }

    // A name that is not a local of the function being converted: a free
    // variable (closure cell), a local read before assignment, or a global.
    cval converter::read_name(const std::string& name, py::handle node)
    {
        int free_index = index_in(PyCode_GetFreevars(p_code), name);
        if (free_index >= 0)
        {
            return read_free_var(name, free_index, node);
        }
        if (!m_declared_globals.count(name))
        {
            bool local = index_in(PyCode_GetVarnames(p_code), name) >= 0 ||
                         index_in(PyCode_GetCellvars(p_code), name) >= 0;
            cval loop_local;
            if (local && read_loop_local(name, loop_local))
            {
                return loop_local;
            }
            if (local)
            {
                fail("local " + name + " read before assignment", node);
            }
        }
        return read_global(name, node);
    }

    // Free variables are read from the cell at every call: a cell rebound by
    // the enclosing function (nonlocal) is a new value, guarded as any source.
    cval converter::read_free_var(const std::string& name, int index, py::handle node)
    {
        if (m_inlined.empty())
        {
            source s{source_kind::closure, -1, index, py::str(name), "closure[" + name + "]"};
            int src = m_spec->sources.add(s);
            owned_refs owned;
            std::vector<PyObject*> none;
            PyObject* value = m_spec->sources.resolve(src, m_frame, none, owned);
            if (value == nullptr)
            {
                fail("free variable " + name + " that is not bound yet", node);
            }
            return read_source(src, value);
        }
        cval cells = raw_attribute(m_inlined.back(), "__closure__", false, node);
        if (cells.k != cval::kind::object || !PyTuple_CheckExact(cells.obj.ptr()))
        {
            fail("free variable " + name + " without a closure", node);
        }
        cval cell = read_item(cells, py::int_(index), node);
        if (cell.k != cval::kind::object || !PyCell_Check(cell.obj.ptr()) ||
            PyCell_GET(cell.obj.ptr()) == nullptr)
        {
            fail("free variable " + name + " that is not bound yet", node);
        }
        return raw_attribute(cell, "cell_contents", false, node);
    }

    // An object read through source `src`; the first read of a new source
    // guards the object's identity (callees, code objects, properties).
    cval converter::object_at(int src, PyObject* value, bool first_read, const std::string& path)
    {
        if (first_read)
        {
            m_spec->guards.add(make_identity_guard(src, value, path));
        }
        cval v;
        v.k = cval::kind::object;
        v.src = src;
        v.obj = py::reinterpret_borrow<py::object>(value); // new reference for the cval
        return v;
    }

    // An attribute of a function, cell or property object (no code runs to
    // read them), as a source re-read at every call. `identity`: guard the
    // object itself (a code object), else guard it as any value read.
    cval converter::raw_attribute(const cval& obj, const char* name, bool identity, py::handle node)
    {
        const std::string path = m_spec->sources[obj.src].path + "." + name;
        const int before = m_spec->sources.size();
        int src = m_spec->sources.add(source{source_kind::attr, obj.src, 0, py::str(name), path});
        owned_refs owned;
        std::vector<PyObject*> values(static_cast<size_t>(m_spec->sources.size()), nullptr);
        values[static_cast<size_t>(obj.src)] = obj.obj.ptr();
        PyObject* value = m_spec->sources.resolve(src, m_frame, values, owned);
        if (value == nullptr)
        {
            fail("missing " + path, node);
        }
        if (!identity)
        {
            return read_source(src, value);
        }
        return object_at(src, value, src == before, path);
    }

    // `obj.name(...)`: a method of a plain class (the function the class
    // holds, not shadowed by the instance), a module's function, a function
    // stored as an instance attribute, or a whitelisted NumPy function.
    cval converter::call_attribute(const cval& self, const std::string& name, py::handle node)
    {
        if (self.k == cval::kind::tree)
        {
            return tree_method(self, name, node);
        }
        if (name == "at" && self.k == cval::kind::object &&
            m_whitelist.name_of(self.obj.ptr()) == "np.add")
        {
            return call_add_at(visit_args(node), node);
        }
        if (self.k == cval::kind::object && generic_instance(self.obj.ptr()))
        {
            PyObject* in_type = _PyType_Lookup(Py_TYPE(self.obj.ptr()), py::str(name).ptr());
            if (in_type != nullptr && (Py_IS_TYPE(in_type, &PyStaticMethod_Type) ||
                                       Py_IS_TYPE(in_type, &PyClassMethod_Type)))
            {
                fail("call of static or class method ." + name, node);
            }
            if (in_type != nullptr && PyFunction_Check(in_type))
            {
                std::string path = m_spec->sources[self.src].path + "." + name + "@class";
                int src = m_spec->sources.add(
                    source{source_kind::class_attr, self.src, 0, py::str(name), path});
                owned_refs owned;
                std::vector<PyObject*> values(static_cast<size_t>(m_spec->sources.size()), nullptr);
                values[static_cast<size_t>(self.src)] = self.obj.ptr();
                PyObject* fn = m_spec->sources.resolve(src, m_frame, values, owned);
                if (fn == nullptr)
                {
                    fail("method ." + name + " shadowed by an instance attribute", node);
                }
                cval method = read_source(src, fn);
                return call_python(method, visit_args(node), node, &self);
            }
        }
        return call_value(read_attribute(self, name, node), node);
    }

    // The callee of `node` once known: a whitelisted NumPy, math or builtin
    // function (guarded on its identity), or a Python function or object
    // with __call__, inlined.
    cval converter::call_value(const cval& fn, py::handle node)
    {
        const std::string& known = fn.k == cval::kind::object ? m_whitelist.name_of(fn.obj.ptr())
                                                              : m_whitelist.name_of(nullptr);
        if (known.rfind("np.", 0) == 0)
        {
            return call_numpy(known.substr(3), visit_args(node), node);
        }
        if (known.rfind("math.", 0) == 0)
        {
            return call_math(known.substr(5), visit_args(node), node);
        }
        if (known.rfind("builtins.", 0) == 0)
        {
            cval folded;
            if (call_builtin_fold(known.substr(9), node, folded)) // builtin_folds.cpp
            {
                return folded;
            }
            return call_builtin(known.substr(9), visit_args(node), node);
        }
        if (fn.k != cval::kind::object || !python_callable(fn.obj.ptr()))
        {
            fail("call of " + std::string(py::str(
                                  py::module_::import("ast").attr("unparse")(node.attr("func")))),
                 node);
        }
        return call_python(fn, visit_args(node), node); // functions, objects with __call__
    }

    // `obj.name` where the class defines a property: its getter, inlined.
    bool converter::read_property(const cval& obj, const std::string& name, py::handle node,
                                  cval& out)
    {
        PyObject* in_type = _PyType_Lookup(Py_TYPE(obj.obj.ptr()), py::str(name).ptr());
        if (in_type == nullptr || !Py_IS_TYPE(in_type, &PyProperty_Type))
        {
            return false;
        }
        std::string path = m_spec->sources[obj.src].path + "." + name + "@class";
        const int before = m_spec->sources.size();
        int src =
            m_spec->sources.add(source{source_kind::class_attr, obj.src, 0, py::str(name), path});
        owned_refs owned;
        std::vector<PyObject*> values(static_cast<size_t>(m_spec->sources.size()), nullptr);
        values[static_cast<size_t>(obj.src)] = obj.obj.ptr();
        PyObject* prop = m_spec->sources.resolve(src, m_frame, values, owned);
        if (prop == nullptr)
        {
            if (interrupt_pending())
            {
                throw py::error_already_set(); // raised in a key's __eq__ a lookup ran
            }
            return false;
        }
        cval prop_v = object_at(src, prop, src == before, path);
        cval getter = raw_attribute(prop_v, "fget", false, node);
        if (getter.k != cval::kind::object || !PyFunction_Check(getter.obj.ptr()))
        {
            fail("property ." + name + " without a Python getter", node);
        }
        out = call_python(getter, call_args{}, node, &obj);
        return true;
    }

    cval converter::call_python(const cval& fn, const call_args& args, py::handle node,
                                const cval* self)
    {
        py::handle callee = node_type(node) == "Call" ? node.attr("func") : node;
        std::string what = py::str(py::module_::import("ast").attr("unparse")(callee));
        if (fn.k == cval::kind::object && generic_instance(fn.obj.ptr()) && self == nullptr)
        {
            // obj(...): the class's __call__, found and guarded as a method.
            PyObject* call = _PyType_Lookup(Py_TYPE(fn.obj.ptr()), py::str("__call__").ptr());
            if (call != nullptr && PyFunction_Check(call))
            {
                std::string path = m_spec->sources[fn.src].path + ".__call__@class";
                int src = m_spec->sources.add(
                    source{source_kind::class_attr, fn.src, 0, py::str("__call__"), path});
                owned_refs owned;
                std::vector<PyObject*> values(static_cast<size_t>(m_spec->sources.size()), nullptr);
                values[static_cast<size_t>(fn.src)] = fn.obj.ptr();
                PyObject* found = m_spec->sources.resolve(src, m_frame, values, owned);
                if (found != nullptr)
                {
                    return call_python(read_source(src, found), args, node, &fn);
                }
                if (interrupt_pending())
                {
                    throw py::error_already_set(); // raised in a key's __eq__ a lookup ran
                }
            }
        }
        if (fn.k != cval::kind::object || !PyFunction_Check(fn.obj.ptr()))
        {
            fail("call of " + what, node);
        }
        PyObject* f = fn.obj.ptr();
        auto* code = reinterpret_cast<PyCodeObject*>(PyFunction_GET_CODE(f));
        const std::string name = qualname_of(f);
        if (std::string(py::str(code->co_name)) == "<lambda>")
        {
            fail("call of a lambda (" + what + ")", node);
        }
        if (PyFunction_GET_GLOBALS(f) != m_frame.globals)
        {
            fail("call of " + name + " from another module", node);
        }
        if (code->co_flags &
            (CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR | CO_ITERABLE_COROUTINE))
        {
            fail("call of generator or coroutine function " + name, node);
        }
        if (code->co_flags & (CO_VARARGS | CO_VARKEYWORDS))
        {
            fail("call of " + name + " with *args/**kwargs parameters", node);
        }
        if (m_tree && code == m_tree->code && m_inlined.size() == m_tree->depth)
        {
            return tree_call(fn, args, node); // recursion.cpp
        }
        bool recursive = code == m_frame.code;
        for (const cval& outer : m_inlined)
        {
            recursive |= PyFunction_GET_CODE(outer.obj.ptr()) == reinterpret_cast<PyObject*>(code);
        }
        if (recursive)
        {
            fail("recursive call of " + name, node);
        }
        if (m_inlined.size() >= max_inline_depth)
        {
            fail("calls nested deeper than " + std::to_string(max_inline_depth), node);
        }
        raw_attribute(fn, "__code__", true, node);
        call_args bound = args;
        if (self != nullptr)
        {
            bound.positional.insert(bound.positional.begin(), *self);
        }
        std::vector<cval> arguments = bind_arguments(fn, code, std::move(bound), node);
        cval tree_result;
        if (recursion_call(fn, code, arguments, node, tree_result)) // tree_calls.cpp
        {
            return tree_result;
        }
        return inline_body(fn, code, std::move(arguments));
    }

    // Python's argument binding for a callee without *args/**kwargs:
    // positional, then keywords by name, then the defaults it needs (read
    // from __defaults__/__kwdefaults__, so a mutated default is seen).
    // Anything CPython would raise TypeError for is not converted.
    std::vector<cval> converter::bind_arguments(const cval& fn, PyCodeObject* code, call_args args,
                                                py::handle node)
    {
        const std::string name = qualname_of(fn.obj.ptr());
        const int n_positional = code->co_argcount;
        const int n = code->co_argcount + code->co_kwonlyargcount;
        std::vector<cval> slots(static_cast<size_t>(n));
        std::vector<bool> filled(static_cast<size_t>(n), false);
        if (static_cast<int>(args.positional.size()) > n_positional)
        {
            fail("call of " + name + " with too many arguments", node);
        }
        for (size_t i = 0; i < args.positional.size(); ++i)
        {
            slots[i] = args.positional[i];
            filled[i] = true;
        }
        for (const auto& [key, value] : args.keywords)
        {
            int i = index_in(PyCode_GetVarnames(code), key);
            if (i < code->co_posonlyargcount || i >= n || filled[static_cast<size_t>(i)])
            {
                fail("call of " + name + " with keyword argument " + key + " it does not take",
                     node);
            }
            slots[static_cast<size_t>(i)] = value;
            filled[static_cast<size_t>(i)] = true;
        }
        for (int i = 0; i < n; ++i)
        {
            if (filled[static_cast<size_t>(i)])
            {
                continue;
            }
            const std::string param = arg_path(code, i);
            if (i >= n_positional)
            {
                cval kwdefaults = raw_attribute(fn, "__kwdefaults__", false, node);
                if (kwdefaults.k != cval::kind::object ||
                    !PyDict_CheckExact(kwdefaults.obj.ptr()) ||
                    !PyDict_GetItemString(kwdefaults.obj.ptr(), param.c_str()))
                {
                    fail("call of " + name + " without argument " + param, node);
                }
                slots[static_cast<size_t>(i)] = read_item(kwdefaults, py::str(param), node);
                continue;
            }
            cval defaults = raw_attribute(fn, "__defaults__", false, node);
            if (defaults.k != cval::kind::object || !PyTuple_CheckExact(defaults.obj.ptr()))
            {
                fail("call of " + name + " without argument " + param, node);
            }
            // Which default belongs to which parameter depends on their count.
            if (m_length_guarded.insert(defaults.src).second)
            {
                m_spec->guards.add(make_length_guard(defaults.src,
                                                     PyTuple_GET_SIZE(defaults.obj.ptr()),
                                                     m_spec->sources[defaults.src].path));
            }
            const int first = n_positional - static_cast<int>(PyTuple_GET_SIZE(defaults.obj.ptr()));
            if (i < first)
            {
                fail("call of " + name + " without argument " + param, node);
            }
            slots[static_cast<size_t>(i)] = read_item(defaults, py::int_(i - first), node);
        }
        return slots;
    }

    py::object converter::parsed_body(PyCodeObject* code, int& first_line)
    {
        return parsed_def(code, first_line).attr("body");
    }

    py::object converter::parsed_def(PyCodeObject* code, int& first_line)
    {
        auto cached = m_parsed.find(code);
        if (cached != m_parsed.end())
        {
            first_line = cached->second.second;
            return cached->second.first;
        }
        py::tuple lines_start;
        try
        {
            lines_start = py::module_::import("inspect").attr("getsourcelines")(
                py::handle(reinterpret_cast<PyObject*>(code)));
        }
        catch (py::error_already_set& e)
        {
            if (!e.matches(PyExc_Exception))
            {
                throw; // the user's interrupt, not a conversion failure
            }
            fail("source of " + std::string(py::str(code->co_qualname)) + " not available",
                 py::handle());
        }
        py::object text = py::str("").attr("join")(lines_start[0]);
        text = py::module_::import("textwrap").attr("dedent")(text);
        py::list body = py::module_::import("ast").attr("parse")(text).attr("body");
        if (py::len(body) != 1 || node_type(body[0]) != "FunctionDef")
        {
            fail(std::string(py::str(code->co_qualname)) +
                     ": source is not a plain function definition",
                 py::handle());
        }
        first_line = lines_start[1].cast<int>();
        py::object fdef = body[0];
        m_parsed[code] = {fdef, first_line};
        return fdef;
    }

    // Converts the callee's body in its own scope (locals, `global`
    // declarations, return) and gives its return value.
    cval converter::inline_body(const cval& fn, PyCodeObject* code, std::vector<cval> arguments)
    {
        return in_callee_scope(fn, code, std::move(arguments),
                               [this](py::handle statements) { visit_body(statements); });
    }

    cval converter::in_callee_scope(const cval& fn, PyCodeObject* code, std::vector<cval> arguments,
                                    const std::function<void(py::handle statements)>& body)
    {
        int first_line = 1;
        py::object statements = parsed_body(code, first_line);
        std::map<std::string, cval> locals;
        for (size_t i = 0; i < arguments.size(); ++i)
        {
            locals[arg_path(code, static_cast<int>(i))] = std::move(arguments[i]);
        }
        std::set<std::string> declared;
        cval none;
        none.obj = py::none();
        std::swap(m_locals, locals);
        std::swap(m_declared_globals, declared);
        std::string file = py::str(code->co_filename);
        std::swap(m_file, file);
        std::swap(m_first_line, first_line);
        PyCodeObject* caller_code = p_code;
        p_code = code;
        cval caller_result = std::move(m_result);
        const bool caller_returned = m_returned;
        const bool caller_breaking = m_breaking;
        const bool caller_continuing = m_continuing;
        m_returned = m_breaking = m_continuing = false;
        m_inlined.push_back(fn);

        body(statements);
        cval result = m_returned ? std::move(m_result) : none;

        m_inlined.pop_back();
        m_returned = caller_returned;
        m_breaking = caller_breaking;
        m_continuing = caller_continuing;
        m_result = std::move(caller_result);
        p_code = caller_code;
        std::swap(m_first_line, first_line);
        std::swap(m_file, file);
        std::swap(m_declared_globals, declared);
        std::swap(m_locals, locals);
        return result;
    }

    call_args converter::visit_args(py::handle node)
    {
        call_args args;
        for (py::handle a : node.attr("args"))
        {
            if (node_type(a) == "Starred")
                fail("*args in a call", node);
            args.positional.push_back(visit_expr(a));
        }
        for (py::handle kw : node.attr("keywords"))
        {
            if (kw.attr("arg").is_none())
                fail("**kwargs in a call", node);
            std::string name = py::str(kw.attr("arg"));
            args.keywords[name] = visit_expr(kw.attr("value"));
            args.keyword_order.emplace_back(name, args.keywords[name]);
        }
        return args;
    }

    cval converter::visit_call(py::handle node)
    {
        py::handle func = node.attr("func");
        if (node_type(func) == "Attribute")
        {
            cval self = visit_expr(func.attr("value"));
            std::string name = py::str(func.attr("attr"));
            if (self.k == cval::kind::array)
            {
                return call_method(self, name, visit_args(node), node);
            }
            if (self.k == cval::kind::dict)
            {
                return dict_method(self, name, visit_args(node), node);
            }
            if (is_code_list(self) && name == "append")
            {
                return append_to_code_list(self, visit_args(node), node);
            }
            if (self.k == cval::kind::object && PyList_CheckExact(self.obj.ptr()) &&
                name == "append")
            {
                call_args args = visit_args(node);
                if (args.positional.size() != 1 || !args.keywords.empty())
                    fail("list.append with these arguments", node);
                if (m_lazily_read_sources.count(self.src))
                    fail("list.append to a list zip/enumerate/reversed read", node);
                effect_plan e;
                e.k = effect_plan::kind::list_append;
                e.target = self.src;
                e.value = plan_of(args.positional[0], node);
                m_spec->effects.push_back(e);
                cval none;
                none.obj = py::none();
                return none;
            }
            return call_attribute(self, name, node);
        }
        return call_value(visit_expr(func), node);
    }
} // namespace specula::engine::converter
