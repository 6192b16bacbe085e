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
// `float`, `int`, `bool`, `min`, `max`). Refused, located at the test:
// calls of anything else (a Python function, a method), attribute reads (a
// property is user code), lambdas, comprehensions, walrus, and a test whose
// value is an object of another type than bool, int, float or None (its
// truth may be user code).
#include "engine/converter/converter.hpp"

#include <set>

namespace specula::engine::converter
{
    namespace
    {
        std::string node_type(py::handle node)
        {
            return py::str(node.get_type().attr("__name__"));
        }

        const std::set<std::string>& pure_expressions()
        {
            static const std::set<std::string> kinds{"Compare", "BoolOp",   "UnaryOp",   "BinOp",
                                                     "Name",    "Constant", "Subscript", "Slice",
                                                     "Tuple",   "IfExp",    "Call"};
            return kinds;
        }

        const std::set<std::string>& pure_builtins()
        {
            static const std::set<std::string> names{"len",  "abs", "float", "int",
                                                     "bool", "min", "max"};
            return names;
        }
    } // namespace

    // Refuses a test the chunk could not evaluate without running user code
    // or making an effect (see above); `what` names the construct.
    void converter::check_chunk_while_test(py::handle test)
    {
        py::module_ ast = py::module_::import("ast");
        py::object expr = ast.attr("expr");
        std::vector<py::object> todo{py::reinterpret_borrow<py::object>(test)};
        while (!todo.empty())
        {
            py::object n = todo.back();
            todo.pop_back();
            if (py::isinstance(n, expr))
            {
                const std::string kind = node_type(n);
                if (!pure_expressions().count(kind))
                {
                    fail((kind == "Attribute" ? std::string("attribute read")
                                              : "expression " + kind) +
                             " in the test of a while loop run in chunks (it may run user code)",
                         n);
                }
                if (kind == "Call")
                {
                    py::handle f = n.attr("func");
                    const bool builtin =
                        node_type(f) == "Name" &&
                        pure_builtins().count(py::str(f.attr("id")).cast<std::string>());
                    if (!builtin || py::len(n.attr("keywords")) != 0 || shadowed(f))
                    {
                        fail("call in the test of a while loop run in chunks (only len, abs, "
                             "float, int, bool, min and max are evaluated without user code)",
                             n);
                    }
                }
            }
            for (py::handle child : ast.attr("iter_child_nodes")(n))
            {
                todo.push_back(py::reinterpret_borrow<py::object>(child));
            }
        }
    }

    // Whether a builtin's name in the test names something else here (a
    // global or a local of the loop's function).
    bool converter::shadowed(py::handle name) const
    {
        const std::string id = py::str(name.attr("id"));
        if (m_loop_locals.count(id))
        {
            return true;
        }
        py::str key(id);
        PyObject* found = PyDict_GetItemWithError(m_frame.globals, key.ptr()); // borrowed
        if (found == nullptr && PyErr_Occurred())
        {
            throw py::error_already_set();
        }
        return found != nullptr;
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
