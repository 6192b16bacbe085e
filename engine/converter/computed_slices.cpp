// A slice of an input array along one axis (full slices before and after
// it) whose bounds a loop counter computes: the minibatch
// `X[k * bs:(k + 1) * bs]` of a training loop, the window `S[:, p:p + n]`
// of a language model's token streams. It
// becomes a computed_slice source (sources.hpp): NumPy makes the view before
// every run from the counter's value, the view is a zero-copy graph input
// guarded as any array (its shape changes on a short last batch: a guard
// miss), and when the view escapes (`xb = X[...]` in a cell) the committed
// object is that view, a new one per run as CPython makes one per iteration.
#include "engine/converter/converter.hpp"
#include "engine/py_errors.hpp"

namespace specula::engine::converter
{
    namespace
    {
        bool absent(py::handle bound)
        {
            return bound.is_none();
        }

        bool full_slice(py::handle item)
        {
            return node_type(item) == "Slice" && absent(item.attr("lower")) &&
                   absent(item.attr("upper")) && absent(item.attr("step"));
        }

        // The one bounded slice of an index and its axis: `X[a:b]` (axis 0),
        // `S[:, a:b]` or `S[:, a:b, :]` (full slices around it); false for
        // any other index.
        bool bounded_slice(py::handle index, py::handle& slice, int& axis)
        {
            if (node_type(index) == "Slice")
            {
                slice = index;
                axis = 0;
                return true;
            }
            if (node_type(index) != "Tuple")
            {
                return false;
            }
            py::list items = index.attr("elts");
            const int n = static_cast<int>(items.size());
            axis = 0;
            while (axis < n && full_slice(items[static_cast<size_t>(axis)]))
            {
                ++axis;
            }
            if (axis == n || node_type(items[static_cast<size_t>(axis)]) != "Slice")
            {
                return false;
            }
            for (int i = axis + 1; i < n; ++i)
            {
                if (!full_slice(items[static_cast<size_t>(i)]))
                {
                    return false;
                }
            }
            slice = items[static_cast<size_t>(axis)];
            return true;
        }

        // An index made only of names, int literals and arithmetic: reading
        // it twice (here, then again by indexing.cpp when it is no counter
        // expression) adds nothing Python would see.
        bool plain_int_index(py::handle node)
        {
            const std::string kind = node_type(node);
            if (kind == "Name")
            {
                return true;
            }
            if (kind == "Constant")
            {
                return PyLong_CheckExact(node.attr("value").ptr());
            }
            if (kind == "UnaryOp")
            {
                return plain_int_index(node.attr("operand"));
            }
            if (kind == "BinOp")
            {
                return plain_int_index(node.attr("left")) && plain_int_index(node.attr("right"));
            }
            return false;
        }
    } // namespace

    // The value of source `src` as conversion sees it: every source up to it
    // resolved in order, parents first (as the runner resolves them).
    PyObject* converter::seen_source(int src, owned_refs& owned)
    {
        std::vector<PyObject*> values(static_cast<size_t>(m_spec->sources.size()), nullptr);
        for (int i = 0; i <= src; ++i)
        {
            values[static_cast<size_t>(i)] = m_spec->sources.resolve(i, m_frame, values, owned);
            if (interrupt_pending())
            {
                throw py::error_already_set(); // raised in a key's __eq__ a lookup ran
            }
        }
        return values[static_cast<size_t>(src)];
    }

    bool converter::read_computed_slice(const cval& container, py::handle index, py::handle node,
                                        cval& out)
    {
        py::handle slice_node;
        int axis = 0;
        if (container.k != cval::kind::array || !bounded_slice(index, slice_node, axis))
        {
            return false;
        }
        index = slice_node;
        const int parent = m_arrays[static_cast<size_t>(container.arr)].src;
        if (axis >= type_of(m_arrays[static_cast<size_t>(container.arr)].value).dims.rank())
        {
            return false; // NumPy raises: CPython's basic indexing path says so
        }
        py::handle lower = index.attr("lower");
        py::handle upper = index.attr("upper");
        if ((parent < 0 && !m_in_chunk) || (absent(lower) && absent(upper)))
        {
            return false;
        }
        cval lo;
        cval hi;
        lo.obj = py::none();
        hi.obj = py::none();
        if (!absent(lower))
        {
            lo = visit_expr(lower);
        }
        if (!absent(upper))
        {
            hi = visit_expr(upper);
        }
        if (axis == 0 && chunk_slice(container, lo, hi, index, node, out))
        {
            return true; // first-axis bounds from a chunk's target (chunk_slices.cpp)
        }
        if (parent < 0 || (lo.k != cval::kind::array && hi.k != cval::kind::array))
        {
            return false; // specialised bounds: a basic slice of the input (indexing.cpp)
        }
        int_expr_ptr start = absent(lower) ? nullptr : int_expr_of(lo);
        int_expr_ptr stop = absent(upper) ? nullptr : int_expr_of(hi);
        if ((!absent(lower) && !start) || (!absent(upper) && !stop))
        {
            fail("array slice bound that is neither a specialised int nor computed from a loop "
                 "counter",
                 node);
        }
        py::object step = py::none();
        if (!absent(index.attr("step")))
        {
            cval s = visit_expr(index.attr("step"));
            if (s.k != cval::kind::constant || !PyLong_CheckExact(s.obj.ptr()) ||
                PyObject_RichCompareBool(s.obj.ptr(), py::int_(0).ptr(), Py_GT) != 1)
            {
                fail("computed array slice whose step is not a positive specialised int", node);
            }
            step = s.obj;
        }
        if (m_written_sources.count(parent) != 0)
        {
            // The view is made before the run, from the array's old contents.
            fail("computed slice of an array updated in place earlier in the call", node);
        }
        std::string leading;
        for (int i = 0; i < axis; ++i)
        {
            leading += ":, ";
        }
        const std::string path = m_spec->sources[parent].path + "[" + leading +
                                 (start ? start->text : std::string()) + ":" +
                                 (stop ? stop->text : std::string()) + "]";
        source s{source_kind::computed_slice, parent, axis, step, path};
        const int src = m_spec->sources.add(s, start, stop);
        owned_refs owned;
        PyObject* view = seen_source(src, owned); // borrowed, kept by `owned`
        if (view == nullptr)
        {
            fail("computed slice " + path + " that NumPy does not make here", node);
        }
        out = read_source(src, view);
        return true;
    }

    // `x = X[i]` in a cell loop (X of 2 or more dims, i a loop counter or an
    // int computed from one): NumPy's row view, which the user's name holds after the
    // iteration (`x.base is X`). A computed_item source: NumPy makes the view
    // before every run from the counter's value, and the graph reads it as a
    // zero-copy input. Inside a chunk the rows are read by the graph (the
    // view would be the first iteration's), as every other index is.
    bool converter::read_computed_row(const cval& container, py::handle index, cval& out)
    {
        // Cell loops only: an index out of range fails the source's guard,
        // which CPython's IndexError then ends at once; a function called
        // again and again with such indices would recompile at every one.
        if (!m_cell_mode || m_in_chunk || container.k != cval::kind::array ||
            !plain_int_index(index))
        {
            return false;
        }
        const array_entry& e = m_arrays[static_cast<size_t>(container.arr)];
        const int parent = e.src;
        if (parent < 0 || type_of(e.value).dims.rank() < 2 || m_written_sources.count(parent) != 0)
        {
            return false; // no input, a scalar item, or contents only the graph knows
        }
        cval at = visit_expr(index);
        if (at.k != cval::kind::array ||
            m_arrays[static_cast<size_t>(at.arr)].surf != surface::py_int)
        {
            return false; // a specialised int: a basic index (indexing.cpp)
        }
        int_expr_ptr i = int_expr_of(at);
        if (!i)
        {
            return false;
        }
        const std::string path = m_spec->sources[parent].path + "[" + i->text + "]";
        const int src =
            m_spec->sources.add(source{source_kind::computed_item, parent, 0, py::none(), path}, i);
        owned_refs owned;
        PyObject* view = seen_source(src, owned); // borrowed, kept by `owned`
        if (view == nullptr)
        {
            return false; // out of range here: the gather's bounds assert exits to CPython
        }
        out = read_source(src, view);
        return true;
    }
} // namespace specula::engine::converter
