// Cell mode: the body of a loop at a notebook cell's module level, converted
// as one iteration. Every name is a global of the cell (read as a global
// source, written through the write buffer), and the iteration's `break`
// becomes its result: True when the converted iteration left the loop (a
// graph bool when it leaves on data, cell_exits.cpp).
#include "engine/converter/converter.hpp"

namespace specula::engine::converter
{
    PyCodeObject* module_level_code()
    {
        static PyObject* code =
            Py_CompileString("pass", "<cell>", Py_file_input); // new reference, kept
        return reinterpret_cast<PyCodeObject*>(code);
    }

    std::shared_ptr<specialisation>
    converter::convert_cell_body(py::handle body, const std::string& file,
                                 const std::vector<std::string>& names, std::string& diagnostic)
    {
        m_spec = std::make_shared<specialisation>();
        m_spec->module = std::make_unique<ir::module>();
        p_graph = &m_spec->module->add_graph("main");
        m_builder = std::make_unique<ir::builder>(*p_graph);
        m_file = file;
        m_first_line = 1; // cell ASTs carry the cell's own line numbers
        // At module level there are no locals: declaring every name the body
        // mentions global makes reads global sources and writes buffered
        // rebinding effects, exactly as `global` does in a function.
        m_declared_globals.insert(names.begin(), names.end());
        m_cell_mode = true;
        return guarded(
            [&]
            {
                p_code = module_level_code();
                if (p_code == nullptr)
                {
                    throw py::error_already_set();
                }
                find_cell_exits(body);
                visit_body(body);
                finish_cell_exits(); // the result: whether the iteration left the loop
                m_returned = true;
                m_breaking = false;
                m_continuing = false;
                finish_graph();
            },
            diagnostic);
    }
} // namespace specula::engine::converter
