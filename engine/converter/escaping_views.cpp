// A view of an input array that reaches Python (`inputs = S[:, p:p + n].T`
// bound to a global, returned, stored): CPython hands out a NumPy view of
// the user's array, so `inputs.base` is the array owning the memory and a
// later write through it (`inputs[0, 0] = 7` in another cell) changes the
// user's array. The graph computes with its own view; the committed object
// is made again by NumPy from the input object the run read, step by step as
// the code made it (write_buffer.hpp, make_view): the same base, shape and
// strides, one object per run however many places hold it.
#include "engine/converter/converter.hpp"
#include "engine/converter/view_steps.hpp"

namespace specula::engine::converter
{
    py::object basic_index_key(const std::vector<ir::slice_item>& items)
    {
        py::tuple key(items.size());
        for (size_t i = 0; i < items.size(); ++i)
        {
            const ir::slice_item& s = items[i];
            switch (s.what)
            {
            case ir::slice_item::kind::index:
                key[i] = py::int_(s.start);
                break;
            case ir::slice_item::kind::newaxis:
                key[i] = py::none();
                break;
            case ir::slice_item::kind::range:
                key[i] = py::slice(s.has_start ? py::object(py::int_(s.start)) : py::none(),
                                   s.has_stop ? py::object(py::int_(s.stop)) : py::none(),
                                   py::int_(s.step));
                break;
            }
        }
        return std::move(key);
    }

    bool converter::input_view_plan(int arr, value_plan& out) const
    {
        const array_entry& e = m_arrays[static_cast<size_t>(arr)];
        if (e.src >= 0)
        {
            out.k = value_plan::kind::source;
            out.index = e.src;
            return true;
        }
        if (e.view_of < 0 || e.view_attr.empty())
        {
            return false; // a slice, reshape or index: not made again yet
        }
        value_plan parent;
        if (!input_view_plan(e.view_of, parent))
        {
            return false;
        }
        out.k = value_plan::kind::view;
        out.index = arr;
        out.constant = py::make_tuple(e.view_attr, e.view_args ? e.view_args : py::none());
        out.items = {std::move(parent)};
        return true;
    }

    // Views and in-place updates: a NumPy view shares its base's memory, so
    // an in-place update of the base (`a += 1`, `a[0] = 5`, np.copyto, out=)
    // changes every view of it, whatever names, lists or dicts hold them.
    // Entries are the objects, so the views are the entries whose view_of
    // chain reaches the written one: each is made again from its parent's
    // new value, in creation order (a parent is older than its views). A view
    // the converter cannot make again (NumPy may have copied instead) is
    // marked stale; reading it afterwards is refused at the read.
    cval converter::new_view(ir::value_id v, surface s, int of,
                             std::function<ir::value_id(ir::value_id)> remake)
    {
        cval view = new_array(v, s, of);
        m_arrays[static_cast<size_t>(view.arr)].remake = std::move(remake);
        return view;
    }

    void converter::refresh_views(int arr, py::handle node)
    {
        std::set<int> changed{arr};
        for (size_t i = static_cast<size_t>(arr) + 1; i < m_arrays.size(); ++i)
        {
            const int parent = m_arrays[i].view_of;
            if (parent < 0 || changed.count(parent) == 0)
            {
                continue;
            }
            changed.insert(static_cast<int>(i));
            const array_entry& p = m_arrays[static_cast<size_t>(parent)];
            array_entry& e = m_arrays[i];
            if (!p.stale.empty())
            {
                e.stale = p.stale;
                continue;
            }
            if (!e.remake)
            {
                e.stale = "a reshape (NumPy may have copied it) of an array, read after an "
                          "in-place update of the array";
                continue;
            }
            const ir::value_id remade = e.remake(p.value);
            if (remade == ir::no_id || type_of(remade) != type_of(e.value))
            {
                fail("a view of an array updated in place, made again (IR: " +
                         m_builder->state().message() + ")",
                     node);
            }
            e.value = remade;
        }
    }

    void converter::check_fresh(const array_entry& e, py::handle node) const
    {
        if (!e.stale.empty())
        {
            fail(e.stale, node);
        }
    }
} // namespace specula::engine::converter
