#include "engine/run_inputs.hpp"

#include <algorithm>

#include "engine/numpy_api.hpp"

namespace specula::engine
{
    namespace
    {
        // The one layout of every 0-d input: no shape, no strides.
        const backends::layout_ref& scalar_layout()
        {
            static const backends::layout_ref empty = std::make_shared<backends::buffer_layout>();
            return empty;
        }

        // The layout of array `a`: the one kept in `slot` while the array has
        // the shape and byte strides of the last run's, else a new one kept
        // there for the next run.
        const backends::layout_ref& array_layout(backends::layout_ref& slot, PyArrayObject* a)
        {
            const auto nd = static_cast<std::size_t>(PyArray_NDIM(a));
            const npy_intp* dims = PyArray_DIMS(a);
            const npy_intp* strides = PyArray_STRIDES(a);
            if (slot && slot->shape.size() == nd &&
                std::equal(dims, dims + nd, slot->shape.begin()) &&
                std::equal(strides, strides + nd, slot->strides.begin()))
            {
                return slot;
            }
            auto l = std::make_shared<backends::buffer_layout>();
            l->shape.assign(dims, dims + nd);
            l->strides.assign(strides, strides + nd);
            slot = std::move(l);
            return slot;
        }

        // A table of the tree walked by check_guards(), borrowed (the plan
        // keeps it until the next call).
        backends::buffer tree_input(const specialisation& spec, const graph_input& in)
        {
            const tree_plan& t = *spec.trees[static_cast<size_t>(in.tree)];
            tree_walk& w = t.last;
            if (in.tree_count)
            {
                return backends::buffer::borrow(&w.nodes, ir::dtype::int64, scalar_layout());
            }
            const auto k = static_cast<size_t>(in.tree_table);
            if (t.tables[k].k == tree_table::kind::is_none)
            {
                return backends::buffer::borrow(w.bools[k].data(), ir::dtype::bool_, {w.nodes});
            }
            return backends::buffer::borrow(w.ints[k].data(), ir::dtype::int64, {w.nodes});
        }

        // Output layouts: made once when every output's type is static (no
        // symbolic dim the inputs bind), else asked of the executable per run.
        const std::vector<backends::executable::output_layout>&
        output_layouts(const specialisation& spec, const std::vector<backends::buffer>& inputs,
                       std::vector<backends::executable::output_layout>& per_run)
        {
            run_layouts& kept = spec.layouts;
            if (!kept.outputs_made)
            {
                kept.outputs_made = true;
                const ir::graph& g = *spec.exe->main().p_graph;
                kept.outputs_static = true;
                for (ir::node_id id : spec.exe->main().m_outputs)
                {
                    const ir::node& n = g.get_node(id);
                    kept.outputs_static =
                        kept.outputs_static && g.type_of(n.inputs[0]).dims.static_sizes();
                }
                if (kept.outputs_static)
                {
                    spec.exe->output_layouts(inputs, kept.outputs);
                }
            }
            if (kept.outputs_static)
            {
                return kept.outputs;
            }
            spec.exe->output_layouts(inputs, per_run);
            return per_run;
        }

        // The C-order layout of output i's destination, kept across runs.
        const backends::layout_ref& destination_layout(const specialisation& spec, std::size_t i,
                                                       const backends::executable::output_layout& l)
        {
            std::vector<backends::layout_ref>& kept = spec.layouts.destinations;
            if (kept.size() <= i)
            {
                kept.resize(i + 1);
            }
            backends::layout_ref& slot = kept[i];
            if (!slot || slot->shape != l.shape)
            {
                slot = backends::buffer::c_layout(l.elem, l.shape);
            }
            return slot;
        }
    } // namespace

    void make_inputs(const specialisation& spec, const std::vector<PyObject*>& values,
                     run_scalars& scalars, std::vector<backends::buffer>& inputs)
    {
        // NumPy memory borrowed zero-copy (the arrays are kept alive by the
        // frame for the whole call), Python floats through a local double.
        const std::size_t n = spec.inputs.size();
        scalars.floats.assign(n, 0.0);
        scalars.ints.assign(n, 0);
        inputs.clear();
        inputs.reserve(n);
        std::vector<backends::layout_ref>& layouts = spec.layouts.inputs;
        layouts.resize(n);
        for (size_t k = 0; k < n; ++k)
        {
            const graph_input& in = spec.inputs[k];
            if (in.tree >= 0)
            {
                inputs.push_back(tree_input(spec, in));
                continue;
            }
            PyObject* v = values[static_cast<size_t>(in.src)];
            if (in.py_int)
            {
                // The int_range guard passed: it fits.
                scalars.ints[k] = PyLong_AsLongLong(v);
                inputs.push_back(
                    backends::buffer::borrow(&scalars.ints[k], ir::dtype::int64, scalar_layout()));
                continue;
            }
            if (in.py_float)
            {
                scalars.floats[k] = PyFloat_AS_DOUBLE(v);
                inputs.push_back(backends::buffer::borrow(&scalars.floats[k], ir::dtype::float64,
                                                          scalar_layout()));
                continue;
            }
            if (in.np_scalar)
            {
                // The type guard passed: the scalar's C value fits the 8 bytes
                // of `ints[k]` (every supported dtype is at most 8 bytes).
                PyArray_ScalarAsCtype(v, &scalars.ints[k]);
                inputs.push_back(
                    backends::buffer::borrow(&scalars.ints[k], in.scalar_elem, scalar_layout()));
                continue;
            }
            auto* a = reinterpret_cast<PyArrayObject*>(v);
            inputs.push_back(backends::buffer::borrow(
                PyArray_DATA(a), *dtype_of_type_num(PyArray_DESCR(a)->type_num),
                array_layout(layouts[k], a)));
        }
    }

    void make_destinations(const specialisation& spec, const std::vector<backends::buffer>& inputs,
                           const std::vector<backends::buffer>& targets,
                           std::vector<py::object>& arrays,
                           std::vector<backends::buffer>& destinations)
    {
        std::vector<backends::executable::output_layout> per_run;
        const auto& layouts = output_layouts(spec, inputs, per_run);
        if (layouts.size() != spec.outputs.size())
        {
            return;
        }
        arrays.assign(layouts.size(), py::object());
        destinations.assign(layouts.size(), backends::buffer{});
        for (size_t i = 0; i < layouts.size(); ++i)
        {
            const auto& l = layouts[i];
            if (spec.outputs[i] != surface::ndarray || !l.known ||
                (i < targets.size() && !targets[i].is_null()) || l.shape.size() > NPY_MAXDIMS)
            {
                continue; // a sunk store's value lives in the user's array
            }
            npy_intp dims[NPY_MAXDIMS];
            std::copy(l.shape.begin(), l.shape.end(), dims);
            // New reference; PyArray_Empty steals the descriptor
            // PyArray_DescrFromType returns.
            PyObject* a = PyArray_Empty(static_cast<int>(l.shape.size()), dims,
                                        PyArray_DescrFromType(type_num_of(l.elem)), 0);
            if (a == nullptr)
            {
                PyErr_Clear();
                continue;
            }
            arrays[i] = py::reinterpret_steal<py::object>(a);
            auto* arr = reinterpret_cast<PyArrayObject*>(a);
            destinations[i] =
                backends::buffer::borrow(PyArray_DATA(arr), l.elem, destination_layout(spec, i, l));
        }
    }
} // namespace specula::engine
