// Array indexing, read and write: basic indexing with specialised ints and
// slices (SLICE / SLICE_UPDATE, a NumPy view), one boolean mask (MASK_SELECT /
// MASK_UPDATE), and integer indexing with Python ints that change between calls
// or integer arrays (GATHER / GATHER_UPDATE over the flattened leading axes).
// Indices out of range exit to CPython, which raises NumPy's IndexError.
#include "engine/converter/converter.hpp"
#include "engine/converter/view_steps.hpp"

#include "engine/numpy_api.hpp"

namespace specula::engine::converter
{
    namespace
    {
        std::vector<py::handle> index_parts(py::handle index)
        {
            std::vector<py::handle> parts;
            if (node_type(index) == "Tuple")
            {
                for (py::handle e : index.attr("elts"))
                {
                    parts.push_back(e);
                }
            }
            else
            {
                parts.push_back(index);
            }
            return parts;
        }
    } // namespace

    index_plan converter::plan_index(const cval& container, py::handle index, py::handle node)
    {
        ir::value_id x = m_arrays[static_cast<size_t>(container.arr)].value;
        const ir::shape dims = type_of(x).dims;
        std::vector<py::handle> parts = index_parts(index);
        index_plan plan;
        // Evaluated once, in order, as Python evaluates the index tuple.
        std::vector<cval> values(parts.size());
        for (size_t i = 0; i < parts.size(); ++i)
        {
            if (node_type(parts[i]) != "Slice")
            {
                values[i] = visit_expr(parts[i]);
            }
        }
        auto is_dynamic = [&](const cval& c)
        {
            if (c.k != cval::kind::array)
            {
                return false;
            }
            const array_entry& e = m_arrays[static_cast<size_t>(c.arr)];
            const ir::value_type& t = type_of(e.value);
            return e.surf == surface::py_int ||
                   (e.surf == surface::ndarray && ir::is_integer(t.elem) &&
                    t.elem != ir::dtype::bool_);
        };
        auto is_mask = [&](const cval& c)
        {
            return c.k == cval::kind::array &&
                   m_arrays[static_cast<size_t>(c.arr)].surf == surface::ndarray &&
                   type_of(value_of(c, node)).elem == ir::dtype::bool_;
        };
        bool any_dynamic = false;
        for (const cval& c : values)
        {
            any_dynamic = any_dynamic || is_dynamic(c);
        }
        if (parts.size() == 1 && is_mask(values[0]))
        {
            plan.k = index_plan::kind::mask;
            plan.mask = value_of(values[0], node);
            return plan;
        }
        if (any_dynamic)
        {
            return plan_axis_index(x, values, parts, node);
        }
        plan.k = index_plan::kind::basic;
        auto const_int = [&](py::handle e, const char* what) -> std::optional<std::int64_t>
        {
            if (e.is_none())
                return std::nullopt;
            cval c = visit_expr(e);
            if (c.k == cval::kind::constant && c.obj.is_none())
                return std::nullopt;
            if (c.k != cval::kind::constant || !PyLong_Check(c.obj.ptr()))
                fail(std::string("array index ") + what + " that is not a specialised int", node);
            int overflow = 0;
            const long long v = PyLong_AsLongLongAndOverflow(c.obj.ptr(), &overflow);
            if (overflow != 0)
                fail(std::string("array slice ") + what + " beyond 64 bits", node);
            return static_cast<std::int64_t>(v);
        };
        int axis = 0;
        bool all_indices = true;
        for (size_t i = 0; i < parts.size(); ++i)
        {
            py::handle part = parts[i];
            if (node_type(part) == "Slice")
            {
                all_indices = false;
                auto lo = const_int(part.attr("lower"), "start");
                auto hi = const_int(part.attr("upper"), "stop");
                auto st = const_int(part.attr("step"), "step");
                ir::slice_item it = ir::slice_item::all();
                it.has_start = lo.has_value();
                it.start = lo.value_or(0);
                it.has_stop = hi.has_value();
                it.stop = hi.value_or(0);
                it.step = st.value_or(1);
                if (it.step <= 0)
                    fail("slice with a non-positive step", node);
                plan.items.push_back(it);
                ++axis;
                continue;
            }
            const cval& c = values[i];
            if (c.k == cval::kind::constant && c.obj.is_none())
            {
                all_indices = false;
                plan.items.push_back(ir::slice_item::new_axis());
                continue;
            }
            if (c.k != cval::kind::constant || !PyLong_CheckExact(c.obj.ptr()))
            {
                fail("array index of this kind (an array that is neither an integer array nor one "
                     "boolean mask)",
                     node);
            }
            int overflow = 0;
            const std::int64_t at = PyLong_AsLongLongAndOverflow(c.obj.ptr(), &overflow);
            if (overflow != 0 || axis >= dims.rank() || !dims[axis].is_static() ||
                at < -dims[axis].size() || at >= dims[axis].size())
            {
                fail("array index out of range or on a symbolic dim", node);
            }
            plan.items.push_back(ir::slice_item::at(at));
            ++axis;
        }
        if (axis > dims.rank())
        {
            fail("too many indices for the array", node);
        }
        plan.element = all_indices && axis == dims.rank();
        return plan;
    }

    // Full slices `:` after the integer indices change nothing (x[i, :] is
    // x[i]); full slices before one integer index take along that axis
    // (x[:, i] is np.take(x, i, axis=1)). Other mixes keep NumPy's rules for
    // separated advanced indices and are refused in plan_integer_index.
    index_plan converter::plan_axis_index(ir::value_id x, const std::vector<cval>& values,
                                          const std::vector<py::handle>& parts, py::handle node)
    {
        auto full = [&](size_t i)
        {
            py::handle p = parts[i];
            return node_type(p) == "Slice" && p.attr("lower").is_none() &&
                   p.attr("upper").is_none() && p.attr("step").is_none();
        };
        size_t end = parts.size();
        while (end > 0 && full(end - 1))
        {
            --end;
        }
        size_t lead = 0;
        while (lead < end && full(lead))
        {
            ++lead;
        }
        if (lead == 0)
        {
            return plan_integer_index(x, std::vector<cval>(values.begin(), values.begin() + end),
                                      std::vector<py::handle>(parts.begin(), parts.begin() + end),
                                      node);
        }
        if (end - lead != 1)
        {
            fail("integer index after full slices on more than one axis", node);
        }
        index_plan plan =
            plan_integer_index(x, {values[lead]}, {parts[lead]}, node, static_cast<int>(lead));
        plan.axis = static_cast<int>(lead);
        return plan;
    }

    index_plan converter::plan_integer_index(ir::value_id x, const std::vector<cval>& values,
                                             const std::vector<py::handle>& parts, py::handle node,
                                             int first_axis)
    {
        // NumPy's integer indexing of the leading axes: x[i0, i1] takes
        // x.reshape(n0 * n1, ...)[wrap(i0) * n1 + wrap(i1)], the index arrays
        // broadcast together. Python ints count as 0-d index arrays.
        const ir::shape dims = type_of(x).dims;
        index_plan plan;
        plan.k = index_plan::kind::integer;
        plan.axes = static_cast<int>(parts.size());
        plan.scalar_ints = true;
        if (first_axis + plan.axes > dims.rank())
        {
            fail("too many indices for the array", node);
        }
        auto i64 = [&](std::int64_t v)
        { return m_builder->constant(ir::scalar::of_int(ir::dtype::int64, v)); };
        ir::value_id ok = ir::no_id;
        for (int j = 0; j < plan.axes; ++j)
        {
            const ir::dim& d = dims[first_axis + j];
            const cval& c = values[static_cast<size_t>(j)];
            // A symbolic dim (a batch size that changes): one index computed
            // at run time, checked against the dim's size read at run time.
            const bool symbolic = !d.is_static();
            if (node_type(parts[static_cast<size_t>(j)]) == "Slice" ||
                (symbolic && (plan.axes != 1 || c.k != cval::kind::array)))
            {
                fail("integer array index mixed with slices or on a symbolic dim", node);
            }
            const std::int64_t n = symbolic ? 0 : d.size();
            const ir::value_id n_value =
                symbolic ? m_builder->shape_dim(x, first_axis + j) : i64(n);
            const ir::value_id minus_n =
                symbolic ? m_builder->binary(ir::op::SUB, i64(0), n_value) : i64(-n);
            ir::value_id wrapped = ir::no_id;
            if (c.k == cval::kind::constant && PyLong_CheckExact(c.obj.ptr()))
            {
                int overflow = 0;
                long long at = PyLong_AsLongLongAndOverflow(c.obj.ptr(), &overflow);
                if (overflow != 0 || at < -n || at >= n)
                {
                    fail("array index out of range", node);
                }
                wrapped = i64(at < 0 ? at + n : at);
            }
            else if (c.k == cval::kind::array)
            {
                const array_entry& e = m_arrays[static_cast<size_t>(c.arr)];
                ir::value_id i = e.value;
                const ir::value_type t = type_of(i);
                if (e.surf != surface::py_int &&
                    (e.surf != surface::ndarray || !ir::is_integer(t.elem) ||
                     t.elem == ir::dtype::bool_))
                {
                    fail("array index of this kind (a float, bool or NumPy scalar index)", node);
                }
                plan.scalar_ints = plan.scalar_ints && e.surf == surface::py_int;
                if (t.elem != ir::dtype::int64)
                {
                    i = m_builder->cast(i, ir::dtype::int64);
                }
                ir::value_id in_range = m_builder->binary(
                    ir::op::LOGICAL_AND, m_builder->binary(ir::op::GE, i, minus_n),
                    m_builder->binary(ir::op::LT, i, n_value));
                if (type_of(in_range).dims.rank() > 0)
                {
                    in_range = m_builder->reduce_all(ir::op::ALL, in_range);
                }
                ok = ok == ir::no_id ? in_range
                                     : m_builder->binary(ir::op::LOGICAL_AND, ok, in_range);
                // GATHER wraps negative indices itself; a flat index over
                // several axes needs each one wrapped first.
                wrapped = plan.axes == 1
                              ? i
                              : m_builder->where(m_builder->binary(ir::op::LT, i, i64(0)),
                                                 m_builder->binary(ir::op::ADD, i, i64(n)), i);
            }
            else
            {
                fail("array index of this kind", node);
            }
            plan.flat =
                plan.flat == ir::no_id
                    ? wrapped
                    : m_builder->binary(ir::op::ADD,
                                        m_builder->binary(ir::op::MUL, plan.flat, i64(n)), wrapped);
        }
        if (ok != ir::no_id)
        {
            add_assert(ok, "array index in range at " + where(node));
        }
        if (plan.flat == ir::no_id || !m_builder->ok())
        {
            fail("array index (" + m_builder->state().message() + ")", node);
        }
        return plan;
    }

    ir::value_id converter::leading_flat(ir::value_id x, int axes, py::handle node)
    {
        if (axes == 1)
        {
            return x;
        }
        const ir::shape& dims = type_of(x).dims;
        std::int64_t n = 1;
        std::vector<ir::dim> out{ir::dim::fixed(0)};
        for (int j = 0; j < dims.rank(); ++j)
        {
            if (j < axes)
                n *= dims[j].size();
            else
                out.push_back(dims[j]);
        }
        out[0] = ir::dim::fixed(n);
        ir::value_id r = m_builder->reshape(x, ir::shape(out));
        if (r == ir::no_id)
        {
            fail("integer index of this array (" + m_builder->state().message() + ")", node);
        }
        return r;
    }

    cval converter::index_array(const cval& container, py::handle node)
    {
        ir::value_id x = value_of(container, node);
        index_plan plan = plan_index(container, node.attr("slice"), node);
        switch (plan.k)
        {
        case index_plan::kind::basic:
        {
            ir::value_id out = m_builder->slice(x, plan.items);
            if (plan.element)
            {
                return new_array(out, surface::np_scalar); // a copy of the element
            }
            cval view = new_view(out, surface::ndarray, container.arr,
                                 [this, items = plan.items](ir::value_id base)
                                 { return m_builder->slice(base, items); });
            // Made again by NumPy if it escapes as a view of an input.
            array_entry& e = m_arrays[static_cast<size_t>(view.arr)];
            e.view_attr = "__getitem__";
            e.view_args = py::make_tuple(basic_index_key(plan.items));
            return view;
        }
        case index_plan::kind::mask:
        {
            ir::value_id out = m_builder->mask_select(x, plan.mask);
            if (out == ir::no_id)
                fail("boolean mask index (" + m_builder->state().message() + ")", node);
            return new_array(out, surface::ndarray);
        }
        case index_plan::kind::integer:
            break;
        }
        ir::value_id out = plan.axis > 0
                               ? m_builder->gather(x, plan.flat, plan.axis)
                               : m_builder->gather(leading_flat(x, plan.axes, node), plan.flat, 0);
        if (out == ir::no_id)
            fail("integer array index (" + m_builder->state().message() + ")", node);
        const bool element = type_of(out).dims.rank() == 0;
        if (plan.axis > 0 && !element)
        {
            // NumPy's memory order: x[:, i] is a view with x's strides; x[:, idx]
            // puts the index's axes first in memory (not C order).
            note_layout(out, plan.scalar_ints && layout_of(x) != layout::other ? layout::c_like
                                                                               : layout::other);
        }
        else if (!plan.scalar_ints && !element &&
                 type_of(out).dims.rank() > type_of(plan.flat).dims.rank())
        {
            // x[idx] with axes left after the indexed ones: NumPy allocates the
            // result in C order whatever the order of idx or x (only without such
            // a subspace does the result follow the index's memory order).
            note_layout(out, layout::contiguous);
        }
        // Python ints alone are basic indexing: NumPy gives a view of x.
        return new_array(out, element ? surface::np_scalar : surface::ndarray,
                         plan.scalar_ints && !element ? container.arr : -1);
    }

    void converter::assign_array_index(const cval& container, py::handle target, const cval& value)
    {
        ir::value_id base = m_arrays[static_cast<size_t>(container.arr)].value;
        const ir::value_type base_t = type_of(base);
        index_plan plan = plan_index(container, target.attr("slice"), target);
        if (m_arrays[static_cast<size_t>(container.arr)].unwritten)
        {
            note_unwritten_write(container.arr, plan, target);
        }
        ir::value_id v = value.k == cval::kind::array ? value_of(value, target)
                                                      : scalar_constant(value, base_t.elem, target);
        ir::value_id updated = ir::no_id;
        switch (plan.k)
        {
        case index_plan::kind::basic:
            assert_broadcast(v, type_of(m_builder->slice(base, plan.items)).dims, target);
            updated = m_builder->slice_update(base, v, plan.items);
            break;
        case index_plan::kind::mask:
            if (type_of(v).dims.rank() != 0)
            {
                fail("boolean mask assignment of an array (only scalars)", target);
            }
            updated = m_builder->mask_update(base, plan.mask, v);
            break;
        case index_plan::kind::integer:
        {
            if (plan.axis > 0)
            {
                updated = m_builder->gather_update(base, plan.flat, v, plan.axis);
                break;
            }
            ir::value_id flat = leading_flat(base, plan.axes, target);
            updated = m_builder->gather_update(flat, plan.flat, v, 0);
            if (updated != ir::no_id && plan.axes > 1)
            {
                updated = m_builder->reshape(updated, base_t.dims);
            }
            break;
        }
        }
        if (updated == ir::no_id)
        {
            fail("item assignment with this index (" + m_builder->state().message() + ")", target);
        }
        write_array(container.arr, updated, target);
    }

    void converter::assert_broadcast(ir::value_id v, const ir::shape& to, py::handle node)
    {
        // The IR broadcasts a symbolic dim against a static n as n; a run where
        // it is anything but n must not compute (NumPy raises, or broadcasts a 1
        // that the graph's buffers were not planned for): exit to CPython.
        const ir::shape from = type_of(v).dims;
        const int lead = to.rank() - from.rank();
        for (int i = 0; i < from.rank() && lead >= 0; ++i)
        {
            const ir::dim& t = to[i + lead];
            if (from[i].is_symbolic() && t.is_static() && t.size() != 1)
            {
                ir::value_id size = m_builder->shape_dim(v, i);
                ir::value_id want =
                    m_builder->constant(ir::scalar::of_int(ir::dtype::int64, t.size()));
                add_assert(m_builder->binary(ir::op::EQ, size, want),
                           "broadcast of a dim that changed between calls at " + where(node));
            }
        }
    }

    cval converter::call_arange(const call_args& args, py::handle node)
    {
        // Integer aranges: an ARANGE node (count and values are exact).
        const auto& p = args.positional;
        if (p.empty() || p.size() > 3 || !args.keywords.empty())
        {
            fail("np.arange with these arguments", node);
        }
        py::tuple bounds(p.size());
        bool any_float = false;
        for (size_t i = 0; i < p.size(); ++i)
        {
            if (p[i].k == cval::kind::constant && PyFloat_CheckExact(p[i].obj.ptr()))
            {
                any_float = true;
            }
            else if (p[i].k != cval::kind::constant || !PyLong_CheckExact(p[i].obj.ptr()))
            {
                fail("np.arange of values that are not specialised ints or floats", node);
            }
            bounds[i] = p[i].obj;
        }
        if (any_float)
        {
            return float_arange(bounds, node);
        }
        py::object r = py::module_::import("builtins").attr("range")(*bounds);
        std::int64_t start = 0, step = 1, count = 0;
        try
        {
            start = r.attr("start").cast<std::int64_t>();
            step = r.attr("step").cast<std::int64_t>();
            count = static_cast<std::int64_t>(py::len(r));
        }
        catch (py::error_already_set& e)
        {
            if (!e.matches(PyExc_Exception))
            {
                throw; // the user's interrupt, not a conversion failure
            }
            fail("np.arange beyond 64 bits", node);
        }
        catch (py::cast_error&)
        {
            fail("np.arange beyond 64 bits", node);
        }
        ir::value_id out =
            m_builder->arange(ir::scalar::of_int(ir::dtype::int64, start),
                              ir::scalar::of_int(ir::dtype::int64, step), count, ir::dtype::int64);
        return new_array(out, surface::ndarray);
    }

    cval converter::call_empty_like(const call_args& args, py::handle node)
    {
        // NumPy leaves the elements undefined; the graph's zeros are only
        // transparent if no element is read before a write of the whole array.
        if (args.positional.size() != 1 || !args.keywords.empty() ||
            args.positional[0].k != cval::kind::array)
        {
            fail("np.empty_like with these arguments", node);
        }
        const ir::value_type t = type_of(value_of(args.positional[0], node));
        if (!t.dims.is_static() || t.dims.rank() == 0)
        {
            fail("np.empty_like of a symbolic or 0-d shape", node);
        }
        cval out = new_array(m_builder->zeros(t.dims, t.elem), surface::ndarray);
        m_arrays[static_cast<size_t>(out.arr)].unwritten = true;
        return out;
    }

    // np.arange with a float bound or step, all specialised: NumPy's own
    // values as a constant. NumPy takes the count as ceil((stop - start) /
    // step) and fills a[0] = start, a[1] = start + step, then a[i] = start +
    // i * (a[1] - a[0]); evaluating NumPy itself keeps every one of those
    // roundings. Long ones are refused (the graph would carry the data).
    cval converter::float_arange(const py::tuple& bounds, py::handle node)
    {
        constexpr Py_ssize_t max_elements = 1 << 16;
        py::object a;
        try
        {
            a = py::module_::import("numpy").attr("arange")(*bounds);
        }
        catch (py::error_already_set& e)
        {
            if (!e.matches(PyExc_Exception))
            {
                throw; // the user's interrupt, not a conversion failure
            }
            fail("np.arange raising on this call", node);
        }
        auto* arr = reinterpret_cast<PyArrayObject*>(a.ptr());
        if (!PyArray_CheckExact(a.ptr()) || PyArray_TYPE(arr) != NPY_DOUBLE ||
            PyArray_NDIM(arr) != 1 || !PyArray_IS_C_CONTIGUOUS(arr))
        {
            fail("np.arange of this result type", node);
        }
        if (PyArray_SIZE(arr) > max_elements)
        {
            fail("float np.arange of more than " + std::to_string(max_elements) + " elements",
                 node);
        }
        ir::constant_attr data;
        data.elem = ir::dtype::float64;
        data.dims = ir::shape({PyArray_DIM(arr, 0)});
        const auto* bytes = static_cast<const std::byte*>(PyArray_DATA(arr));
        data.bytes.assign(bytes, bytes + PyArray_NBYTES(arr));
        return new_array(m_builder->constant(std::move(data)), surface::ndarray);
    }
} // namespace specula::engine::converter
