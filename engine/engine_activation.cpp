// When the engine is switched on and what it loads: invariant 4 (cheap when
// cold). Enabling costs nothing for a program that never imports NumPy: the
// frame hook is installed when NumPy is imported (or at once if it already
// is), and NumPy's C API and the whitelist are loaded on the engine's first
// real work once the program has imported NumPy (cell loops and re-run cells
// enter the engine through their own calls, hook or not, so every entry asks;
// the engine never imports NumPy itself). Threshold 0 (profile and compile as early as possible)
// keeps the hook installed from enable() on and never parks it.
#include <pybind11/pybind11.h>

#include "engine/engine_core.hpp"
#include "engine/numpy_api.hpp"
#include "engine/py_errors.hpp"

namespace specula::engine
{
    bool engine_core::enable(bool force)
    {
        if (!m_config.enabled && !force)
        {
            return true;
        }
        try
        {
            if (m_library_prefixes.empty())
            {
                collect_library_prefixes();
            }
            m_enabled = true;
            py::dict modules = py::module_::import("sys").attr("modules");
            if (m_config.threshold == 0 || modules.contains("numpy"))
            {
                return install_hook();
            }
            m_hook_wanted = true;
            watch_numpy_import();
        }
        catch (py::error_already_set& e)
        {
            m_enabled = false;
            e.restore();
            return false;
        }
        return true;
    }

    void engine_core::disable()
    {
        frame_hook::uninstall();
        m_enabled = false;
        m_hook_wanted = false;
    }

    void engine_core::cell_starts()
    {
        if (m_enabled && !m_hook_wanted)
        {
            frame_hook::rearm();
        }
    }

    const char* engine_core::hook_state() const
    {
        if (!m_enabled)
        {
            return "off";
        }
        if (m_hook_wanted)
        {
            return "waiting for numpy";
        }
        return frame_hook::active() ? "active" : "parked";
    }

    bool engine_core::install_hook()
    {
        m_hook_wanted = false;
        frame_hook::park_policy policy;
        policy.window = m_config.threshold == 0 ? 0 : m_config.park_window;
        policy.rearm_ms = static_cast<int>(m_config.rearm_ms);
        return frame_hook::install({&engine_core::classify, &engine_core::enter,
                                    &engine_core::release, &engine_core::ran_default},
                                   policy);
    }

    bool engine_core::load()
    {
        bool ok = ensure_numpy();
        if (ok)
        {
            try
            {
                m_whitelist.load();
            }
            catch (py::error_already_set& e)
            {
                e.restore();
                ok = false;
            }
        }
        if (!ok)
        {
            if (interrupt_pending())
            {
                // The import machinery and NumPy's module run Python code,
                // where the SIGINT handler may raise: the user's interrupt,
                // raised at the call (enter_region); loaded at a later entry.
                return false;
            }
            // No NumPy (or a broken one): the program runs without speculation.
            PyErr_Clear();
            disable();
            return false;
        }
        m_loaded = true;
        return true;
    }

    bool engine_core::program_uses_numpy()
    {
        PyObject* modules = PyImport_GetModuleDict();             // borrowed
        return PyDict_GetItemString(modules, "numpy") != nullptr; // borrowed; no exception
    }

    void engine_core::collect_library_prefixes()
    {
        py::module_ sysconfig = py::module_::import("sysconfig");
        for (const char* key : {"stdlib", "platstdlib", "purelib", "platlib"})
        {
            m_library_prefixes.push_back(py::str(sysconfig.attr("get_path")(key)));
        }
        for (py::handle entry : py::module_::import("sys").attr("path"))
        {
            std::string p = py::str(entry);
            if (p.find("-packages") != std::string::npos || p.rfind("/usr/lib/python3", 0) == 0)
            {
                m_library_prefixes.push_back(p);
            }
        }
    }

    void engine_core::numpy_imported()
    {
        engine_core& self = instance();
        if (self.m_enabled && self.m_hook_wanted && !self.install_hook())
        {
            PyErr_Clear(); // the import goes on; the program runs without speculation
        }
    }

    void engine_core::watch_numpy_import()
    {
        if (m_watcher_added)
        {
            return;
        }
        // A finder first on sys.meta_path that never finds anything: it only
        // notices `import numpy` (before NumPy's own code runs, which is library
        // code the hook leaves alone). It stays in place as a no-op afterwards:
        // removing it while importlib iterates sys.meta_path would skip a finder.
        py::cpp_function find_spec(
            [](const py::object& name, const py::args&, const py::kwargs&) -> py::object
            {
                if (py::isinstance<py::str>(name) && name.cast<std::string>() == "numpy")
                {
                    numpy_imported();
                }
                return py::none();
            });
        py::dict members;
        members["find_spec"] = py::module_::import("builtins").attr("staticmethod")(find_spec);
        members["__doc__"] = "Specula: installs the engine's frame hook when NumPy is imported.";
        py::object finder = py::module_::import("builtins")
                                .attr("type")("specula_numpy_watch", py::make_tuple(), members);
        py::module_::import("sys").attr("meta_path").attr("insert")(0, finder);
        m_watcher_added = true;
    }
} // namespace specula::engine
