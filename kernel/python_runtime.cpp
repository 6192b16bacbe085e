#include "kernel/python_runtime.hpp"

#include <utility>
#include <vector>

namespace py = pybind11;

namespace specula::kernel
{
    namespace
    {
        // The interpreter every Python tool of ours uses; a pyenv shim first
        // on PATH must not be picked up.
        constexpr const wchar_t* program_name = L"/usr/bin/python3";
    } // namespace

    python_runtime::python_runtime(const std::string& argv0)
    {
        PyConfig config;
        PyConfig_InitPythonConfig(&config);
        // Our command line is not Python's: without this CPython eats -f.
        config.parse_argv = 0;
        // Leave PYTHONHOME unset: deriving it from our own path makes CPython
        // abort at start.
        PyConfig_SetString(&config, &config.program_name, program_name);
        const char* argv[] = {argv0.c_str()};
        // Only argv[0] reaches sys.argv; IPython would warn about the rest.
        m_interpreter = std::make_unique<py::scoped_interpreter>(&config, 1, argv, false);
        PyConfig_Clear(&config);
    }

    python_runtime::~python_runtime() = default;

    std::string python_runtime::check_required_modules() const
    {
        const std::vector<std::pair<const char*, const char*>> required = {
            {"IPython", "python3-ipython"},
            {"xeus_python_shell", "python3-xeus-python-shell"},
        };
        for (const auto& [module, package] : required)
        {
            try
            {
                py::module_::import(module);
            }
            catch (py::error_already_set& e)
            {
                return "cannot import the Python module '" + std::string(module) + "' (" +
                       std::string(py::str(e.value())) + "); install the Debian package " + package;
            }
        }
        return {};
    }
} // namespace specula::kernel
