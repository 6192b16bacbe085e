// Counter `if`s of a loop run in chunks (loop_chunks.hpp): the body's `if`s
// whose test reads only names taking ints from the loop (a range's target,
// an enumerate's count, a list's int items), literals, `+ - * % //` and one
// comparison (cell_loops.counter_tests). Each is an int_expr over the
// names' values, evaluated exactly for every iteration of a chunk before it
// runs: the chunk ends before the first iteration that takes another side.
#include "engine/engine_core.hpp"
#include "engine/loop_chunks.hpp"

#include <algorithm>

namespace specula::engine
{
    namespace
    {
        namespace py = pybind11;

        // A counter test as an int_expr whose leaf p is the value of
        // `names[p]`; null when it has no such form.
        int_expr_ptr counter_expr(py::handle node, const std::vector<std::string>& names)
        {
            const std::string kind = py::str(node.get_type().attr("__name__"));
            if (kind == "Name")
            {
                const std::string id = py::str(node.attr("id"));
                auto at = std::find(names.begin(), names.end(), id);
                return at != names.end()
                           ? int_leaf(static_cast<int>(at - names.begin()), Py_None, id)
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
                int_expr_ptr a = counter_expr(node.attr("left"), names);
                int_expr_ptr b = counter_expr(node.attr("right"), names);
                return op && a && b ? int_binary(op, a, b) : nullptr;
            }
            if (kind == "Compare" && py::len(node.attr("ops")) == 1)
            {
                const char* op = op_text(py::list(node.attr("ops"))[0]);
                int_expr_ptr a = counter_expr(node.attr("left"), names);
                int_expr_ptr b = counter_expr(py::list(node.attr("comparators"))[0], names);
                return op && a && b ? int_binary(op, a, b) : nullptr;
            }
            return nullptr;
        }

        std::vector<std::string> target_names(const loop_chunk_record& c)
        {
            return c.parts.empty() ? std::vector<std::string>{c.target} : c.parts;
        }
    } // namespace

    namespace loop_chunks
    {
        void learn_counter_tests(region_record& rec, const loop_cursor& cur)
        {
            loop_chunk_record& c = rec.chunk;
            c.tests_known = true;
            // The names whose values are ints (the others keep their `if`s
            // for the converter); a leaf of another name never matches.
            std::vector<std::string> names = target_names(c);
            c.counters.clear();
            for (std::size_t p = 0; p < names.size(); ++p)
            {
                if (cur.streams.empty() || loop_sequences::counts(cur, p))
                {
                    c.counters.push_back(names[p]);
                }
                else
                {
                    names[p].clear();
                }
            }
            py::list counters;
            for (const std::string& name : c.counters)
            {
                counters.append(py::str(name));
            }
            py::list tests = py::module_::import("specula.cell_loops")
                                 .attr("counter_tests")(rec.cell_body, counters);
            for (py::handle t : tests)
            {
                c.tests.push_back(counter_expr(t, names));
            }
        }

        std::vector<py::object> values_at(const region_record& rec, const loop_cursor& cur,
                                          long long value, std::int64_t j)
        {
            if (cur.streams.empty())
            {
                return {py::reinterpret_steal<py::object>(
                    PyLong_FromLongLong(value + j * cur.step))}; // new reference
            }
            std::vector<py::object> values;
            for (std::size_t p = 0; p < target_names(rec.chunk).size(); ++p)
            {
                // (Only names that count: the others' values are no leaves.)
                values.push_back(loop_sequences::counts(cur, p) ? loop_sequences::value(cur, p, j)
                                                                : py::object());
            }
            return values;
        }

        bool sides_at(const loop_chunk_record& c, const std::vector<py::object>& values,
                      std::vector<bool>& sides)
        {
            sides.clear();
            if (c.tests.empty())
            {
                return true;
            }
            std::vector<PyObject*> raw;
            for (const py::object& v : values)
            {
                raw.push_back(v.ptr());
            }
            PyErr_Clear();
            for (const int_expr_ptr& t : c.tests)
            {
                std::int64_t r = 0;
                if (!t || !evaluate(*t, raw.data(), r))
                {
                    return false;
                }
                sides.push_back(r != 0);
            }
            return true;
        }
    } // namespace loop_chunks
} // namespace specula::engine
