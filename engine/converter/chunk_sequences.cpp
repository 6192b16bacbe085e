// The target of a chunk of a `for` loop over a list or tuple
// (loop_sequences.cpp): the engine stacks the chunk's items before the run
// (a float64 or int64 column of Python floats or ints, or the arrays as
// rows) and hands the stack over as the frame view's local after the
// chunk's start, trip count, step and effect rows (chunk_effects.cpp).
// Its first dim is the chunk's size, a symbol of its own, so one graph
// serves chunks of every size. Trip `t` of the LOOP reads row `t` as the
// target:
//
// - Python floats and ints: a 0-d value with the Python number's surface
//   (the int in the relaxed range the engine checked for every item), so
//   the body computes with it as with a float or int read from a name.
// - Arrays: a fresh row standing for the list's own array. It is marked a
//   view of the stack, so an in-place update of the target (which would
//   have to reach the list's array) is refused as for every view, and a
//   name left on it after the loop is refused (the engine binds the target
//   itself to the list's last item after the chunk).
#include "engine/converter/converter.hpp"
#include "engine/guards.hpp"
#include "engine/numpy_api.hpp"

namespace specula::engine::converter
{
    cval converter::chunk_items(int index, engine::sequence_items kind, py::handle node)
    {
        // One path per stack: sources with one path are one source.
        const std::string path = "chunk items " + std::to_string(index);
        const int src = m_spec->sources.add(source{source_kind::arg, -1, index, py::none(), path});
        PyObject* stacked = m_frame.locals[index]; // borrowed: the engine's stack
        if (stacked == nullptr || !PyArray_CheckExact(stacked))
        {
            fail("items of a loop run in chunks that are not " +
                     std::string(loop_sequences::describe(kind)),
                 node);
        }
        auto* a = reinterpret_cast<PyArrayObject*>(stacked);
        auto elem = dtype_of_type_num(PyArray_DESCR(a)->type_num);
        const bool column = kind != engine::sequence_items::arrays;
        if (!elem || (column && PyArray_NDIM(a) != 1) || (!column && PyArray_NDIM(a) < 2))
        {
            fail("items of a loop run in chunks that are not " +
                     std::string(loop_sequences::describe(kind)),
                 node);
        }
        const int symbol = p_graph->new_symbol();
        if (symbol >= max_symbols)
        {
            fail("too many symbolic dims", node);
        }
        std::vector<ir::dim> dims{ir::dim::symbol(symbol)};
        std::vector<int> symbolic{symbol};
        for (int i = 1; i < PyArray_NDIM(a); ++i)
        {
            dims.push_back(ir::dim::fixed(PyArray_DIMS(a)[i]));
            symbolic.push_back(-1);
        }
        m_spec->guards.add(make_array_guard(src, stacked, symbolic, false, path));
        ir::value_id in = hoisted_input({*elem, ir::shape(dims)}, path);
        m_input_contiguous[in] = true; // the engine allocates it in C order
        m_spec->inputs.push_back({src, false});
        cval v = new_array(in, surface::ndarray);
        m_arrays[static_cast<size_t>(v.arr)].src = src;
        return v;
    }

    cval converter::chunk_item(const cval& items, ir::value_id counter, engine::sequence_items kind)
    {
        const ir::value_id all = m_arrays[static_cast<size_t>(items.arr)].value;
        const ir::value_id row = m_builder->gather(all, counter, 0);
        switch (kind)
        {
        case engine::sequence_items::floats:
            return new_array(row, surface::py_float);
        case engine::sequence_items::ints:
        {
            cval v = new_array(row, surface::py_int);
            m_arrays[static_cast<size_t>(v.arr)].int_lo = relaxed_int_lo;
            m_arrays[static_cast<size_t>(v.arr)].int_hi = relaxed_int_hi;
            return v;
        }
        case engine::sequence_items::arrays:
        case engine::sequence_items::none:
            break;
        }
        // A row of the C-ordered stack, laid out as the list's own array
        // (the engine stacks C-contiguous items only).
        note_layout(row, layout::contiguous);
        return new_array(row, surface::ndarray, items.arr);
    }
} // namespace specula::engine::converter
