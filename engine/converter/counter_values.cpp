// Loop counters (relaxed Python ints) where the engine needs a value before
// the graph runs: an item of a list or tuple chosen by the counter
// (`hs[t + 1]`, `onehot[ix[pos + t]]`) is read through a computed_item source,
// and a branch on the counter in a loop region (`if step % 50 == 0: print()`)
// is decided under an int_predicate guard on its outcome. Both go through
// the int_expr that every relaxed int carries (its entry value, literals and
// exact arithmetic on them), so the specialisation depends on the branch
// taken and on the items' types, never on the counter's value.
#include "engine/converter/converter.hpp"
#include "engine/py_errors.hpp"

namespace specula::engine::converter
{
    namespace
    {
        const char* symbol_of(ir::op code)
        {
            switch (code)
            {
            case ir::op::ADD:
                return "+";
            case ir::op::SUB:
                return "-";
            case ir::op::MUL:
                return "*";
            case ir::op::MOD:
                return "%";
            case ir::op::FLOORDIV:
                return "//";
            case ir::op::EQ:
                return "==";
            case ir::op::NE:
                return "!=";
            case ir::op::LT:
                return "<";
            case ir::op::LE:
                return "<=";
            case ir::op::GT:
                return ">";
            case ir::op::GE:
                return ">=";
            default:
                return nullptr;
            }
        }
    } // namespace

    int_expr_ptr converter::int_expr_of(const cval& v) const
    {
        if (v.k == cval::kind::constant)
        {
            PyObject* o = v.obj.ptr();
            int overflow = 0;
            long long c = PyLong_CheckExact(o) ? PyLong_AsLongLongAndOverflow(o, &overflow) : 0;
            return PyLong_CheckExact(o) && overflow == 0 ? int_constant(c) : nullptr;
        }
        if (v.k == cval::kind::array)
        {
            return m_arrays[static_cast<size_t>(v.arr)].expr;
        }
        return nullptr;
    }

    cval converter::with_int_expr(cval out, ir::op code, const cval& a, const cval& b)
    {
        if (out.k == cval::kind::array)
        {
            m_arrays[static_cast<size_t>(out.arr)].expr =
                int_binary(symbol_of(code), int_expr_of(a), int_expr_of(b));
            // Inside a chunk's LOOP: the target's arithmetic (chunk_slices.cpp).
            int_expr_ptr ca = chunk_expr_of(a);
            int_expr_ptr cb = chunk_expr_of(b);
            if (ca && cb && symbol_of(code) != nullptr)
            {
                m_arrays[static_cast<size_t>(out.arr)].chunk_expr =
                    int_binary(symbol_of(code), ca, cb);
            }
        }
        return out;
    }

    cval converter::read_computed_item(const cval& container, const cval& key, py::handle node)
    {
        PyObject* c = container.k == cval::kind::object ? container.obj.ptr() : nullptr;
        int_expr_ptr index = int_expr_of(key);
        const bool is_dict = c != nullptr && PyDict_CheckExact(c);
        if (c == nullptr || !(PyList_CheckExact(c) || PyTuple_CheckExact(c) || is_dict) || !index)
        {
            fail("indexing with a computed key", node);
        }
        for (const effect_plan& e : m_spec->effects)
        {
            // The item is read before the run: an append earlier in the
            // iteration would not be seen. Another list appended to (`hs`
            // before `ix[pos + t]`) is kept another object by a guard.
            if (e.k != effect_plan::kind::list_append)
            {
                continue;
            }
            if (e.target == container.src)
            {
                fail("a list item at a computed index after list.append", node);
            }
            if (m_distinct_containers.insert({e.target, container.src}).second)
            {
                m_spec->guards.add(make_distinct_guard(e.target, container.src,
                                                       m_spec->sources[e.target].path + " is not " +
                                                           m_spec->sources[container.src].path));
            }
        }
        cval written;
        if (written_item(container, py::object(), index, node, written))
        {
            return written; // set earlier in this run (item_writes.cpp)
        }
        std::int64_t i = 0;
        if (!evaluate(*index, nullptr, i))
        {
            fail("a list index CPython does not compute exactly here", node);
        }
        PyObject* item = nullptr; // borrowed
        if (is_dict)
        {
            // A user key of the same hash in the dict runs its __eq__.
            item = PyDict_GetItemWithError(c, py::int_(i).ptr());
            if (item == nullptr)
            {
                clear_error_or_throw_interrupt();
                fail("dict key missing (CPython raises the KeyError)", node);
            }
        }
        else
        {
            const std::int64_t n = Py_SIZE(c);
            if (i < -n || i >= n)
            {
                fail("list index out of range (CPython raises the IndexError)", node);
            }
            item = PySequence_Fast_ITEMS(c)[i < 0 ? i + n : i];
        }
        std::string path = m_spec->sources[container.src].path + "[" + index->text + "]";
        int src = m_spec->sources.add(
            source{source_kind::computed_item, container.src, 0, py::none(), path}, index);
        // An item chosen by a counter changes with it: a Python int or float
        // there is a graph input from the start.
        m_relaxed_sources.insert(src);
        return read_source(src, item);
    }

    bool converter::counter_branch(const cval& test, bool& known)
    {
        known = false;
        // Functions keep the IR IF (both sides, no guard). A loop's graph
        // decides here inside the functions it inlines too: the expression
        // reads only graph inputs, so its outcome is fixed at entry (a chunk's
        // counter is an IR value with no expression: never decided here).
        if (!(m_cell_mode || !m_loop_locals.empty()) || test.k != cval::kind::array)
        {
            return false;
        }
        const array_entry& e = m_arrays[static_cast<size_t>(test.arr)];
        std::int64_t r = 0;
        if (!e.expr || (e.surf != surface::py_bool && e.surf != surface::py_int) ||
            !evaluate(*e.expr, nullptr, r))
        {
            return false;
        }
        m_spec->guards.add(make_int_predicate_guard(e.expr, r != 0));
        known = true;
        return r != 0;
    }
} // namespace specula::engine::converter
