#include "engine/sunk_slices.hpp"

#include <optional>

#include "engine/sunk_stores.hpp"
#include "ir/passes/dce.hpp"
#include "ir/slice.hpp"

namespace specula::engine
{
    namespace
    {
        const ir::node* output_node(const ir::graph& g, int index)
        {
            for (ir::node_id id : g.outputs())
            {
                const ir::node& n = g.get_node(id);
                if (n.attr_as<ir::boundary_attr>().index == index)
                {
                    return &n;
                }
            }
            return nullptr;
        }

        // Whether `v` is the graph input fed (zero-copy) from array source `src`.
        bool is_array_input_of(const ir::graph& g, ir::value_id v, const specialisation& spec,
                               int src)
        {
            const ir::value& val = g.get(v);
            if (val.def == ir::no_id || g.get_node(val.def).code != ir::op::INPUT)
            {
                return false;
            }
            const int k = g.get_node(val.def).attr_as<ir::boundary_attr>().index;
            if (k < 0 || k >= static_cast<int>(spec.inputs.size()))
            {
                return false;
            }
            const graph_input& in = spec.inputs[static_cast<std::size_t>(k)];
            return in.src == src && !in.py_float && !in.py_int && !in.np_scalar && in.tree < 0;
        }

        // The static shape `items` select of a static `base`; nothing for a
        // symbolic dim or an index out of range (NumPy would raise there, and
        // a commit must not fail).
        std::optional<ir::shape> sliced(const ir::shape& base,
                                        const std::vector<ir::slice_item>& items)
        {
            if (!base.is_static())
            {
                return std::nullopt;
            }
            std::vector<ir::dim> out;
            int axis = 0;
            for (const ir::slice_item& it : items)
            {
                if (it.what == ir::slice_item::kind::newaxis)
                {
                    out.push_back(ir::dim::fixed(1));
                    continue;
                }
                if (axis >= base.rank())
                {
                    return std::nullopt;
                }
                const ir::slice_range r = ir::normalize_slice(it, base[axis++].size());
                if (it.what == ir::slice_item::kind::index)
                {
                    if (r.count == 0)
                    {
                        return std::nullopt;
                    }
                    continue;
                }
                out.push_back(ir::dim::fixed(r.count));
            }
            for (; axis < base.rank(); ++axis)
            {
                out.push_back(base[axis]);
            }
            return ir::shape(out);
        }

        py::object optional_int(bool present, std::int64_t value)
        {
            return present ? py::object(py::int_(value)) : py::object(py::none());
        }

        // The NumPy index the items are: a tuple of slices, ints and None.
        py::object numpy_key(const std::vector<ir::slice_item>& items)
        {
            py::tuple key(items.size());
            for (std::size_t i = 0; i < items.size(); ++i)
            {
                const ir::slice_item& it = items[i];
                switch (it.what)
                {
                case ir::slice_item::kind::range:
                {
                    py::object start = optional_int(it.has_start, it.start);
                    py::object stop = optional_int(it.has_stop, it.stop);
                    py::int_ step(it.step);
                    // New reference, or NULL with an exception set.
                    PyObject* s = PySlice_New(start.ptr(), stop.ptr(), step.ptr());
                    if (s == nullptr)
                    {
                        throw py::error_already_set();
                    }
                    key[i] = py::reinterpret_steal<py::object>(s);
                    break;
                }
                case ir::slice_item::kind::index:
                    key[i] = py::int_(it.start);
                    break;
                case ir::slice_item::kind::newaxis:
                    key[i] = py::none();
                    break;
                }
            }
            return std::move(key);
        }

        // The SLICE_UPDATE of the top region that defines output `o` when it
        // may be sunk into effect `e`: it updates the target's own graph input
        // (not a value an earlier write made), nothing but the output reads
        // its result (no later read of the updated array inside the graph),
        // and the values have the target's dtype and the slice's exact static
        // shape (no cast that could warn, no broadcast that could fail at
        // commit).
        const ir::node* sinkable(const ir::graph& g, const specialisation& spec,
                                 const effect_plan& e, const std::vector<int>& uses)
        {
            const ir::node* out = output_node(g, e.value.index);
            if (out == nullptr)
            {
                return nullptr;
            }
            const ir::value& s = g.get(out->inputs[0]);
            if (s.def == ir::no_id || uses[s.id] != 1)
            {
                return nullptr;
            }
            const ir::node& su = g.get_node(s.def);
            if (su.code != ir::op::SLICE_UPDATE || su.parent != g.body() ||
                !is_array_input_of(g, su.inputs[0], spec, e.target))
            {
                return nullptr;
            }
            const ir::value_type& base = g.type_of(su.inputs[0]);
            const ir::value_type& values = g.type_of(su.inputs[1]);
            const auto shape = sliced(base.dims, su.attr_as<ir::slice_attr>().items);
            if (!shape || values.elem != base.elem || values.dims != *shape)
            {
                return nullptr;
            }
            return &su;
        }
    } // namespace

    int sink_slice_updates(ir::graph& g, specialisation& spec)
    {
        if (!spec.trees.empty())
        {
            return 0; // its node-attribute effect reads outputs outside the value plans
        }
        // Views of an updated array are made again after the write
        // (converter/escaping_views.cpp); one nothing reads is no read of the
        // update. The same dead-code pass runs before the compile anyway.
        ir::dce_options dce;
        dce.keep_signalling = true;
        ir::eliminate_dead_code(g, dce);
        const std::vector<int> uses = g.count_uses();
        int sunk = 0;
        for (effect_plan& e : spec.effects)
        {
            if (e.k != effect_plan::kind::array_write || e.value.k != value_plan::kind::output ||
                output_uses(spec, e.value.index) != 1)
            {
                continue;
            }
            const ir::node* su = sinkable(g, spec, e, uses);
            if (su == nullptr)
            {
                continue;
            }
            // The values may be the target itself or a view of it
            // (`u[1:] = u[:-1]`): the runner materialises every output in
            // an array of its own before the commit, as NumPy copies an
            // overlapping source before assigning.
            py::object key = numpy_key(su->attr_as<ir::slice_attr>().items);
            const ir::node_id id = su->id;
            g.replace_all_uses(su->outputs[0], su->inputs[1]);
            g.erase_node(id);
            e.k = effect_plan::kind::slice_write;
            e.key = std::move(key);
            ++sunk;
        }
        return sunk;
    }
} // namespace specula::engine
