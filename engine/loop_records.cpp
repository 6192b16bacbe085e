#include "engine/loop_records.hpp"

#include <pybind11/pybind11.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>

#include "engine/engine_core.hpp"
#include "engine/loop_locals.hpp"
#include "engine/loop_region.hpp"
#include "engine/sources.hpp"

namespace specula::engine::loop_records
{
    namespace py = pybind11;

    void hold_first_run(region& r)
    {
        if (r.m_slot.countdown < 1)
        {
            r.m_slot.countdown = 1;
        }
    }

    region_record* describe(long id)
    {
        py::tuple d = py::module_::import("specula.cell_loops").attr("describe")(id);
        std::string file = "<cell>";
        const std::string kind = py::str(d[4]);
        PyFrameObject* frame = PyEval_GetFrame(); // borrowed
        // New reference (null without a frame); the code the loop runs in.
        py::object code = py::reinterpret_steal<py::object>(
            frame != nullptr ? reinterpret_cast<PyObject*>(PyFrame_GetCode(frame)) : nullptr);
        if (code)
        {
            file = py::str(code.attr("co_filename"));
        }
        engine_core& core = engine_core::instance();
        auto rec = std::make_unique<region_record>();
        rec->r = std::make_unique<region>(py::str(d[0]).cast<std::string>(), file, d[1].cast<int>(),
                                          loop_region::loop_config(core.settings()));
        const bool cell = kind == "cell";
        rec->kind = cell ? "cell" : "loop";
        rec->cell_body = d[2];
        for (py::handle name : d[3])
        {
            rec->cell_names.push_back(py::str(name));
        }
        if (kind == "function_loop")
        {
            if (!code)
            {
                throw std::runtime_error("a loop in a function entered without a frame");
            }
            // CPython's compiler decided each name's scope: the function's
            // fast locals are read from the frame, the rest are globals.
            rec->function_loop = true;
            // The target is read from the frame too (where a chunk
            // starts), also when the body does not mention it.
            for (py::handle name : d[6])
            {
                const std::string target = py::str(name);
                if (std::find(rec->cell_names.begin(), rec->cell_names.end(), target) ==
                    rec->cell_names.end())
                {
                    rec->cell_names.push_back(target);
                }
            }
            rec->loop_names = rec->cell_names;
            loop_names split =
                split_loop_names(reinterpret_cast<PyCodeObject*>(code.ptr()), rec->cell_names);
            rec->loop_locals = std::move(split.locals);
            rec->cell_names = std::move(split.globals);
        }
        for (py::handle name : d[5])
        {
            rec->loop_bound.push_back(py::str(name));
        }
        for (py::handle name : d[6])
        {
            const std::string target = py::str(name);
            rec->loop_targets.push_back(rec->function_loop ? target : global_path(target));
        }
        py::list targets(d[6]);
        if (!cell && targets.size() == 1)
        {
            rec->chunk.target = py::str(targets[0]);
        }
        else if (!cell && d.size() > 7 && py::len(d[7]) > 1)
        {
            // A tuple target (cell_loops._chunk_target): its names in order.
            std::string label;
            for (py::handle name : d[7])
            {
                rec->chunk.parts.push_back(py::str(name));
                label += (label.empty() ? "" : ", ") + rec->chunk.parts.back();
            }
            rec->chunk.target = "(" + label + ")";
        }
        if (!cell && d.size() > 8 && !d[8].is_none())
        {
            rec->chunk.while_test = d[8]; // while_chunks.hpp
        }
        if (cell)
        {
            hold_first_run(*rec->r);
        }
        return &core.adopt(std::move(rec));
    }
} // namespace specula::engine::loop_records
