// On-stack replacement: one iteration of a loop inside a function (defined in
// a notebook cell), converted while the function's frame is running. The
// loop's locals are the graph's arguments (source_kind::arg, index into the
// values loop_region read from the frame); the names the function does not
// bind are globals. The iteration's result is a tuple
// (broke, names, values...): whether it took a `break`, and the locals it
// rebound with their new values, which loop_region writes back into the frame
// after the commit.
#include "engine/converter/converter.hpp"
#include "engine/converter/loop_scan.hpp"
#include "engine/loop_locals.hpp"

#include <algorithm>
#include <set>

namespace specula::engine::converter
{
    namespace
    {
        bool same_value(const cval& a, const cval& b)
        {
            return a.k == b.k && a.src == b.src && a.arr == b.arr && a.dict == b.dict &&
                   a.obj.ptr() == b.obj.ptr() && a.items.empty() && b.items.empty();
        }
    } // namespace

    bool converter::read_loop_local(const std::string& name, cval& out)
    {
        auto found = m_loop_locals.find(name);
        if (found == m_loop_locals.end() || !m_inlined.empty())
        {
            return false;
        }
        int src =
            m_spec->sources.add(source{source_kind::arg, -1, found->second, py::none(), name});
        // An unbound local: CPython raises UnboundLocalError, read_source
        // refuses (the guards of a later entry would see it unbound too).
        out = read_source(src, m_frame.locals[found->second]);
        m_locals[name] = out;
        m_loop_initial.emplace(name, out);
        return true;
    }

    namespace
    {
        // A captured local lives in a cell that nested functions and
        // comprehensions read (CPython compiles both as closures). One the
        // loop only reads is read at the iteration's entry like any local:
        // f_locals holds the cell's contents, and nothing the graph runs can
        // rebind it (`nonlocal` is not convertible). One the loop rebinds
        // would reach its cell only at the write-back, after an inlined
        // closure read the old value from the cell. Returns the first such
        // name (empty: none) and sets `at` to the statement binding it.
        std::string rebound_cell(PyCodeObject* code, const py::list& statements,
                                 const function_loop_scope& scope, py::handle& at)
        {
            for (const std::string& name : scope.bound)
            {
                if (!in_names(PyCode_GetCellvars(code), name) &&
                    !in_names(PyCode_GetFreevars(code), name))
                {
                    continue;
                }
                at = binding_statement(statements, name);
                return name;
            }
            return {};
        }
    } // namespace

    std::shared_ptr<specialisation>
    converter::convert_function_loop(py::handle body, const function_loop_scope& scope,
                                     std::string& diagnostic)
    {
        m_spec = std::make_shared<specialisation>();
        m_spec->module = std::make_unique<ir::module>();
        p_graph = &m_spec->module->add_graph("main");
        m_builder = std::make_unique<ir::builder>(*p_graph);
        p_code = m_frame.code;
        m_file = py::str(p_code->co_filename);
        m_first_line = 1; // the loop's AST carries the cell's own line numbers
        return guarded(
            [&]
            {
                py::list statements = py::reinterpret_borrow<py::list>(body);
                py::handle first = py::len(statements) > 0 ? statements[0] : py::handle();
                py::handle at;
                const std::string captured = rebound_cell(p_code, statements, scope, at);
                if (!captured.empty())
                {
                    fail("local " + captured +
                             " rebound in the loop while a nested function or comprehension "
                             "captures it (a closure would read the old value from its cell)",
                         at);
                }
                for (size_t i = 0; i < scope.locals.size(); ++i)
                {
                    m_loop_locals[scope.locals[i]] = static_cast<int>(i);
                }
                // Locals the body only reads are read up front, so a first
                // read inside one side of an `if` on array data is not a
                // name bound on one side only; the ones it binds are read
                // where first needed (a local only written needs no guard).
                cval ignored;
                for (size_t i = 0; i < scope.locals.size(); ++i)
                {
                    const std::string& name = scope.locals[i];
                    if (m_frame.locals[i] != nullptr &&
                        std::find(scope.bound.begin(), scope.bound.end(), name) ==
                            scope.bound.end())
                    {
                        read_loop_local(name, ignored);
                    }
                }
                // Every other name is a global or a builtin of the function
                // (`global` statements included): read as a global source,
                // written through the write buffer.
                m_declared_globals.insert(scope.globals.begin(), scope.globals.end());
                find_cell_exits(body); // cell_exits.cpp
                visit_body(body);
                if (m_returned)
                {
                    fail("return inside the loop", first);
                }
                cval broke = exits_taken();
                m_result = cval{};
                m_result.k = cval::kind::tuple;
                m_result.items.push_back(broke);
                py::list names;
                std::vector<cval> values;
                for (const std::string& name : scope.bound)
                {
                    auto now = m_locals.find(name);
                    auto initial = m_loop_initial.find(name);
                    if (!m_loop_locals.count(name) || now == m_locals.end() ||
                        (initial != m_loop_initial.end() &&
                         same_value(initial->second, now->second)))
                    {
                        continue; // not rebound on this path: the frame keeps its value
                    }
                    for (const auto& [exit, locals] : m_exit_locals)
                    {
                        auto there = locals.find(name);
                        if (there == locals.end() || !same_value(there->second, now->second))
                        {
                            // The write-back names are the same on every
                            // path: the exit's path would get the end's value.
                            fail("local " + name +
                                     " rebound after or inside an if that leaves the loop on data",
                                 exit);
                        }
                    }
                    names.append(py::str(name));
                    values.push_back(now->second);
                }
                cval bound;
                bound.obj = py::tuple(names);
                m_result.items.push_back(bound);
                m_result.items.insert(m_result.items.end(), values.begin(), values.end());
                m_returned = true;
                m_breaking = false;
                m_continuing = false;
                finish_graph();
            },
            diagnostic);
    }
} // namespace specula::engine::converter
