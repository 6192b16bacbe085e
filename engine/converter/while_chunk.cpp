// The `while` side of a chunk of a stable loop (loop_chunk.cpp builds the
// LOOP, engine/while_chunks.hpp runs it): the loop's test evaluated in the
// graph after every trip, the LOOP's condition, and a trip count the LOOP
// carries so the engine learns how many trips ran.
//
// After the commit CPython evaluates the test once more (the marker's
// `continue`), so the test must be free of effects and give the same answer
// twice: only expressions the converter evaluates in the graph without
// running user code are taken (comparisons, `and`/`or`/`not`, arithmetic,
// subscripts, names and constants, calls of the builtins `len`, `abs`,
// `float`, `int`, `bool`, `min`, `max` and of NumPy's functions (`np.f`,
// `np.linalg.f`), and, on a value that is an exact ndarray or a NumPy scalar
// (array_receiver), `.shape`/`.size`/`.ndim`/`.T` and the reductions
// `.max()`, `.sum()`...). Refused, located at the test: calls of anything
// else (a Python function, another object's method), other attribute reads
// (a property is user code), lambdas, comprehensions, walrus, and a test
// whose value is an object of another type than bool, int, float or None
// (its truth may be user code).
#include "engine/converter/converter.hpp"
#include "engine/numpy_api.hpp"

#include <set>

namespace specula::engine::converter
{
    namespace
    {
        const std::set<std::string>& pure_expressions()
        {
            static const std::set<std::string> kinds{"Compare", "BoolOp",   "UnaryOp",   "BinOp",
                                                     "Name",    "Constant", "Subscript", "Slice",
                                                     "Tuple",   "IfExp",    "Call"};
            return kinds;
        }

        // NumPy's reductions and conversions of an array or NumPy scalar.
        const std::set<std::string>& array_methods()
        {
            static const std::set<std::string> names{"max", "min",  "sum",  "mean", "any",
                                                     "all", "prod", "item", "std",  "var"};
            return names;
        }

        // NumPy's own attributes of an array or NumPy scalar.
        const std::set<std::string>& array_attributes()
        {
            static const std::set<std::string> names{"shape", "size", "ndim", "T"};
            return names;
        }

        const std::set<std::string>& pure_builtins()
        {
            static const std::set<std::string> names{"len",  "abs", "float", "int",
                                                     "bool", "min", "max"};
            return names;
        }
    } // namespace

    // Refuses a test the chunk could not evaluate without running user code
    // or making an effect (see above).
    void converter::check_chunk_while_test(py::handle test)
    {
        const std::string kind = node_type(test);
        if (kind == "Call")
        {
            py::handle f = test.attr("func");
            const bool builtin = node_type(f) == "Name" &&
                                 pure_builtins().count(py::str(f.attr("id")).cast<std::string>()) &&
                                 !shadowed(f);
            const bool method =
                node_type(f) == "Attribute" &&
                array_methods().count(py::str(f.attr("attr")).cast<std::string>()) &&
                array_receiver(f.attr("value"));
            if (!builtin && !method && !numpy_function(f))
            {
                fail("call in the test of a while loop run in chunks (only len, abs, float, int, "
                     "bool, min, max, NumPy's functions and reductions of arrays are evaluated "
                     "without user code)",
                     test);
            }
            for (py::handle arg : test.attr("args"))
            {
                check_chunk_while_test(arg);
            }
            for (py::handle keyword : test.attr("keywords"))
            {
                check_chunk_while_test(keyword.attr("value"));
            }
            return;
        }
        if (kind == "Attribute")
        {
            if (!array_attributes().count(py::str(test.attr("attr")).cast<std::string>()) ||
                !array_receiver(test.attr("value")))
            {
                fail("attribute read in the test of a while loop run in chunks (it may run user "
                     "code)",
                     test);
            }
            return;
        }
        py::module_ ast = py::module_::import("ast");
        if (py::isinstance(test, ast.attr("expr")) && !pure_expressions().count(kind))
        {
            fail("expression " + kind + " in the test of a while loop run in chunks", test);
        }
        for (py::handle child : ast.attr("iter_child_nodes")(test))
        {
            check_chunk_while_test(child);
        }
    }

    // `np.f`, `np.linalg.f`: a dotted name whose root names the numpy module
    // (or one of its submodules); the converter's whitelist converts the
    // call or refuses it, and none of it is user code on the arrays it takes.
    bool converter::numpy_function(py::handle func) const
    {
        if (node_type(func) != "Attribute")
        {
            return false;
        }
        py::handle root = func;
        while (node_type(root) == "Attribute")
        {
            root = root.attr("value");
        }
        PyObject* module = node_type(root) == "Name" ? chunk_name_object(py::str(root.attr("id")))
                                                     : nullptr; // borrowed
        if (module == nullptr || !PyModule_CheckExact(module))
        {
            return false;
        }
        const std::string name = py::str(py::handle(module).attr("__name__"));
        return name == "numpy" || name.rfind("numpy.", 0) == 0;
    }

    // An expression whose value is an exact ndarray or a NumPy scalar, so
    // that its attributes and reductions are NumPy's own: a name holding
    // one now (the chunk's guards and carried types keep it so), a NumPy
    // function's result, `.T`, a subscript, or arithmetic of such values and
    // Python numbers. Its parts are checked as the test's.
    bool converter::array_receiver(py::handle node)
    {
        const std::string kind = node_type(node);
        if (kind == "Name")
        {
            PyObject* v = chunk_name_object(py::str(node.attr("id"))); // borrowed
            return v != nullptr && (PyArray_CheckExact(v) || PyArray_CheckAnyScalarExact(v));
        }
        if (kind == "Call")
        {
            if (!numpy_function(node.attr("func")))
            {
                return false;
            }
            check_chunk_while_test(node);
            return true;
        }
        if (kind == "Attribute")
        {
            return py::str(node.attr("attr")).cast<std::string>() == "T" &&
                   array_receiver(node.attr("value"));
        }
        if (kind == "Subscript")
        {
            if (!array_receiver(node.attr("value")))
            {
                return false;
            }
            check_chunk_while_test(node.attr("slice"));
            return true;
        }
        if (kind == "UnaryOp")
        {
            return node_type(node.attr("op")) != "Not" && array_receiver(node.attr("operand"));
        }
        if (kind == "BinOp")
        {
            py::handle left = node.attr("left"), right = node.attr("right");
            const bool l = array_receiver(left), r = array_receiver(right);
            return (l && (r || python_number(right))) || (r && python_number(left));
        }
        return false;
    }

    // A constant or a name holding a Python int, float or bool now.
    bool converter::python_number(py::handle node) const
    {
        PyObject* v = nullptr; // borrowed
        if (node_type(node) == "Constant")
        {
            v = node.attr("value").ptr();
        }
        else if (node_type(node) == "Name")
        {
            v = chunk_name_object(py::str(node.attr("id")));
        }
        return v != nullptr && (PyLong_CheckExact(v) || PyFloat_CheckExact(v) || PyBool_Check(v));
    }

    // Whether a builtin's name in the test names something else here (a
    // global or a local of the loop's function).
    bool converter::shadowed(py::handle name) const
    {
        return chunk_name_object(py::str(name.attr("id"))) != nullptr;
    }

    // The LOOP's next condition: the test on the trip's final values (inside
    // the trip's region), checked to have made no effect.
    ir::value_id converter::chunk_while_next(py::handle test)
    {
        const size_t effects = m_spec->effects.size();
        const size_t heap_writes = m_heap_writes.size();
        cval t = loop_test(test);
        if (m_spec->effects.size() != effects || m_heap_writes.size() != heap_writes ||
            m_breaking || m_returned)
        {
            fail("effects in the test of a while loop run in chunks", test);
        }
        if (t.k == cval::kind::constant)
        {
            PyObject* o = t.obj.ptr();
            if (!PyBool_Check(o) && !PyLong_CheckExact(o) && !PyFloat_CheckExact(o) && o != Py_None)
            {
                fail(std::string("test of a while loop run in chunks on a ") + Py_TYPE(o)->tp_name +
                         " (its truth may run user code)",
                     test);
            }
            return m_builder->constant(ir::scalar::of_bool(PyObject_IsTrue(o) == 1));
        }
        return value_of(t, test);
    }

    // The trip count the LOOP carries (counter + 1 at a trip's end), after
    // the other carried values; its output is the chunk's result.
    void converter::carry_chunk_trips(ir::region_id region, std::vector<ir::value_id>& init,
                                      std::vector<ir::value_id>& results)
    {
        const ir::value_type count{ir::dtype::int64, ir::shape({})};
        {
            ir::builder::insertion_guard keep(*m_builder);
            m_builder->set_insertion_end(p_graph->body());
            init.push_back(m_builder->constant(ir::scalar::of_int(ir::dtype::int64, 0)));
        }
        m_builder->add_arg(region, count);
        const ir::value_id counter = m_builder->arg(region, 0);
        results.push_back(m_builder->binary(
            ir::op::ADD, counter, m_builder->constant(ir::scalar::of_int(ir::dtype::int64, 1))));
    }

    // The LOOP's trip count output as a Python int the engine reads from the
    // result; a chunk's per-iteration effects are replayed that many times.
    cval converter::chunk_trips_value(ir::value_id out)
    {
        cval trips = new_array(out, surface::py_int);
        m_arrays[static_cast<size_t>(trips.arr)].int_lo = 1;
        m_arrays[static_cast<size_t>(trips.arr)].int_hi = relaxed_int_hi;
        m_spec->chunk_trips_output = output_of(trips.arr);
        return trips;
    }
} // namespace specula::engine::converter
