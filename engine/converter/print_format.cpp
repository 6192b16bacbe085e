// `print(f"step {step:4d}: loss={loss:.6f}")`: an f-string printed is made at
// the commit from the values the run computed (value_plan::kind::format,
// engine/formatted_text.hpp), exactly as CPython formats them: the same
// conversions (`!r`, `!s`, `!a`), the same format() calls with the same
// specs, on the same kinds of objects. Only Python and NumPy numbers, str,
// bool, None and arrays are formatted: types whose formatting runs no user
// code, except the print formatter a user may set for arrays, which the
// commit then calls as CPython does. A spec is checked for the value's type
// at conversion, without running user code (`formats`): one the type rejects
// (`{arr:.3f}` on an ndarray, `{x:d}` on a float) raises whatever the value,
// so it is refused here rather than raised at a commit. A computed spec
// (`{x:{width}}`) is refused.
#include "engine/converter/converter.hpp"
#include "engine/numpy_api.hpp"
#include "engine/py_errors.hpp"

namespace specula::engine::converter
{
    namespace
    {
        // conversion as in ast.FormattedValue: -1 none, 's', 'r', 'a'.
        PyObject* converted(PyObject* o, int conversion) // new reference
        {
            switch (conversion)
            {
            case 's':
                return PyObject_Str(o);
            case 'r':
                return PyObject_Repr(o);
            case 'a':
                return PyObject_ASCII(o);
            default:
                Py_INCREF(o);
                return o;
            }
        }

        // Whether `spec` formats `sample`. An array's str() and repr() are
        // NumPy's Python code, which calls user code when a print formatter
        // or np.set_string_function is set: they are never tried (a try would
        // call that code where CPython does not). Their outcome needs no try:
        // a conversion makes a str, and without one an array of rank 1 or
        // more formats only with the empty spec (object.__format__); a 0-d
        // array formats as its scalar, whose formatting is NumPy's C code.
        // What else is tried runs no Python, but a KeyboardInterrupt met
        // there is still thrown on, not taken for a spec the type rejects.
        bool formats(PyObject* sample, int conversion, const py::str& spec)
        {
            if (PyArray_CheckExact(sample) &&
                (conversion != -1 || PyArray_NDIM(reinterpret_cast<PyArrayObject*>(sample)) > 0))
            {
                if (conversion == -1)
                {
                    return py::len(spec) == 0;
                }
                return formats(py::str("").ptr(), -1, spec);
            }
            py::object c = py::reinterpret_steal<py::object>(converted(sample, conversion));
            PyObject* text = c ? PyObject_Format(c.ptr(), spec.ptr()) : nullptr; // new reference
            if (text == nullptr)
            {
                clear_error_or_throw_interrupt();
                return false;
            }
            Py_DECREF(text);
            return true;
        }

        bool plain_value(PyObject* o)
        {
            return o == Py_None || PyBool_Check(o) || PyLong_CheckExact(o) ||
                   PyFloat_CheckExact(o) || PyUnicode_CheckExact(o) || PyArray_CheckExact(o) ||
                   PyArray_IsScalar(o, Number) || PyArray_IsScalar(o, Bool);
        }
    } // namespace

    void converter::visit_print_call(py::handle call)
    {
        bool formatted = false;
        for (py::handle a : call.attr("args"))
        {
            formatted = formatted || node_type(a) == "JoinedStr";
        }
        if (!formatted)
        {
            return visit_print(visit_args(call), call);
        }
        effect_plan e;
        e.k = effect_plan::kind::print;
        e.sep = py::str(" ");
        e.end = py::str("\n");
        for (py::handle a : call.attr("args"))
        {
            if (node_type(a) == "Starred")
            {
                fail("print(*args)", call);
            }
            e.args.push_back(node_type(a) == "JoinedStr" ? format_plan(a)
                                                         : plan_of(visit_expr(a), a, false));
        }
        for (py::handle kw : call.attr("keywords"))
        {
            const std::string key = kw.attr("arg").is_none() ? "**" : py::str(kw.attr("arg"));
            cval v = key == "**" ? cval{} : visit_expr(kw.attr("value"));
            if ((key != "sep" && key != "end") || v.k != cval::kind::constant)
            {
                fail("print with " + key + "=", call);
            }
            (key == "sep" ? e.sep : e.end) = v.obj;
        }
        m_spec->effects.push_back(e);
    }

    // The plan of an f-string: parts = literal strs and (item, conversion,
    // spec) tuples; items = the plans of the formatted values.
    value_plan converter::format_plan(py::handle joined)
    {
        value_plan p;
        p.k = value_plan::kind::format;
        py::list parts;
        for (py::handle piece : joined.attr("values"))
        {
            if (node_type(piece) == "Constant")
            {
                parts.append(piece.attr("value"));
                continue;
            }
            if (node_type(piece) != "FormattedValue")
            {
                fail("f-string part " + node_type(piece), joined);
            }
            const int conversion = py::int_(piece.attr("conversion"));
            py::str spec("");
            py::object spec_node = piece.attr("format_spec");
            if (!spec_node.is_none())
            {
                std::string text;
                for (py::handle s : spec_node.attr("values"))
                {
                    if (node_type(s) != "Constant")
                    {
                        fail("f-string with a computed format spec", piece);
                    }
                    text += py::str(s.attr("value")).cast<std::string>();
                }
                spec = py::str(text);
            }
            cval v = visit_expr(piece.attr("value"));
            py::object sample = format_sample(v, piece);
            if (!formats(sample.ptr(), conversion, spec))
            {
                fail("f-string format spec '" + spec.cast<std::string>() + "' on a " +
                         std::string(Py_TYPE(sample.ptr())->tp_name),
                     piece);
            }
            parts.append(py::make_tuple(p.items.size(), conversion, spec));
            p.items.push_back(plan_of(v, piece, false));
        }
        p.constant = py::tuple(parts);
        return p;
    }

    // An object of the type `v` has at the commit (its value aside), to try
    // a format spec on; fails for objects whose formatting may run user code.
    py::object converter::format_sample(const cval& v, py::handle node)
    {
        if ((v.k == cval::kind::constant || v.k == cval::kind::object) && plain_value(v.obj.ptr()))
        {
            return v.obj;
        }
        if (v.k != cval::kind::array)
        {
            fail("f-string of this value (an object whose formatting may run user code)", node);
        }
        const array_entry& e = m_arrays[static_cast<size_t>(v.arr)];
        const ir::value_type& type = p_graph->type_of(e.value);
        switch (e.surf)
        {
        case surface::py_float:
            return py::float_(0.0);
        case surface::py_int:
            return py::int_(0);
        case surface::py_bool:
            return py::bool_(false);
        case surface::np_scalar:
        case surface::ndarray:
            break;
        }
        std::vector<npy_intp> dims(static_cast<size_t>(type.dims.rank()), 1);
        PyObject* a = PyArray_ZEROS(type.dims.rank(), dims.data(), type_num_of(type.elem), 0);
        if (a == nullptr)
        {
            throw py::error_already_set();
        }
        if (e.surf == surface::np_scalar)
        {
            return py::reinterpret_steal<py::object>(
                PyArray_Return(reinterpret_cast<PyArrayObject*>(a)));
        }
        return py::reinterpret_steal<py::object>(a);
    }
} // namespace specula::engine::converter
