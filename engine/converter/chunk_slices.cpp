// Minibatch slices inside a chunk: `xb = X[i:i + bs]` in a loop run in
// chunks (loop_chunk.cpp), where the bounds come from the loop's target and
// so change on every trip of the chunk's IR LOOP. Outside a LOOP such a
// slice is a computed_slice source NumPy makes before the run
// (computed_slices.cpp); inside, the rows are read by the graph:
//
// - In the trip: a GATHER of `length` rows of the carried array from the
//   raw start (a fresh C-ordered array holding what the view would show, as
//   `X[t]` with a counter is read). It is NumPy's slice exactly while
//   0 <= start <= size and NumPy's clipped slice has `length` rows; the
//   engine checks that for every iteration of a chunk before running it
//   (chunk_slice_holds), and the chunk ends before an iteration where it
//   fails (the short last batch runs through the per-iteration graph).
//   The array stands for a view: it is never updated in place, and its
//   parent is neither rebound nor updated in place in the body.
// - After the LOOP: a name left on such a slice gets the view CPython leaves,
//   `X[a:b]` made by NumPy before the run from the last iteration's bounds
//   (a computed_slice source over the chunk's start and trip count), so
//   `xb.base is X` after the loop as in CPython.
#include "engine/converter/converter.hpp"
#include "ir/slice.hpp"

#include <algorithm>

namespace specula::engine::converter
{
    namespace
    {
        const char* op_text(int_expr::kind k)
        {
            switch (k)
            {
            case int_expr::kind::add:
                return "+";
            case int_expr::kind::sub:
                return "-";
            case int_expr::kind::mul:
                return "*";
            case int_expr::kind::mod:
                return "%";
            case int_expr::kind::floordiv:
                return "//";
            default:
                return nullptr;
            }
        }

        // `e` with the target's leaf (source 0) replaced by `target`; null
        // when `e` holds another kind of node.
        int_expr_ptr substitute(const int_expr_ptr& e, const int_expr_ptr& target)
        {
            if (!e)
            {
                return nullptr;
            }
            switch (e->k)
            {
            case int_expr::kind::leaf:
                return target;
            case int_expr::kind::constant:
                return e;
            default:
                break;
            }
            return int_binary(op_text(e->k), substitute(e->a, target), substitute(e->b, target));
        }

        bool bound_at(const int_expr_ptr& e, PyObject* target, std::int64_t& out)
        {
            PyObject* values[1] = {target};
            return evaluate(*e, values, out);
        }
    } // namespace

    bool chunk_slice_holds(const chunk_slice_check& c, PyObject* target)
    {
        std::int64_t start = 0;
        std::int64_t stop = c.size;
        if ((c.start && !bound_at(c.start, target, start)) ||
            (c.stop && !bound_at(c.stop, target, stop)))
        {
            return false;
        }
        if (start < 0 || start > c.size)
        {
            return false; // NumPy would count it from the end, or clip it
        }
        ir::slice_item item = ir::slice_item::range(start, stop);
        return ir::normalize_slice(item, c.size).count == c.length;
    }

    int_expr_ptr converter::chunk_expr_of(const cval& v) const
    {
        if (!m_in_chunk)
        {
            return nullptr;
        }
        if (v.k == cval::kind::constant)
        {
            return int_expr_of(v); // an exact int literal or specialised int
        }
        return v.k == cval::kind::array ? m_arrays[static_cast<size_t>(v.arr)].chunk_expr : nullptr;
    }

    bool converter::chunk_slice(const cval& container, const cval& lo, const cval& hi,
                                py::handle index, py::handle node, cval& out)
    {
        const bool lower = !index.attr("lower").is_none();
        const bool upper = !index.attr("upper").is_none();
        int_expr_ptr start = lower ? chunk_expr_of(lo) : nullptr;
        int_expr_ptr stop = upper ? chunk_expr_of(hi) : nullptr;
        const bool computed = (lower && lo.k == cval::kind::array && start) ||
                              (upper && hi.k == cval::kind::array && stop);
        if (!m_in_chunk || !computed)
        {
            return false;
        }
        if ((lower && !start) || (upper && !stop))
        {
            fail("array slice bound that is neither a specialised int nor computed from the "
                 "target of a loop run in chunks",
                 node);
        }
        py::handle step = index.attr("step");
        if (!step.is_none())
        {
            cval s = visit_expr(step);
            if (s.k != cval::kind::constant || !PyLong_CheckExact(s.obj.ptr()) ||
                PyLong_AsLongLong(s.obj.ptr()) != 1)
            {
                PyErr_Clear();
                fail("slice computed from the target with a step other than 1 in a loop run in "
                     "chunks",
                     node);
            }
        }
        int parent = -1;
        for (size_t k = 0; p_chunk_loop != nullptr && k < p_chunk_loop->slots.size(); ++k)
        {
            if (container.k == cval::kind::array && p_chunk_loop->slots[k].fresh == container.arr)
            {
                parent = static_cast<int>(k);
            }
        }
        if (parent < 0 || p_chunk_loop->slots[static_cast<size_t>(parent)].orig < 0)
        {
            fail("slice computed from the target of an array the loop run in chunks computes",
                 node);
        }
        const ir::value_id x = m_arrays[static_cast<size_t>(container.arr)].value;
        const ir::value_type xt = type_of(x);
        if (xt.dims.rank() < 1 || !xt.dims[0].is_static() || layout_of(x) != layout::contiguous)
        {
            fail("slice computed from the target of an array that is not C-contiguous with a "
                 "fixed first dim, in a loop run in chunks",
                 node);
        }
        chunk_slice_check check{start, stop, xt.dims[0].size(), 0};
        // The length the graph reads: the slice at the chunk's first value
        // of the target, its start (every iteration run in a chunk is
        // checked to have that length).
        owned_refs owned;
        PyObject* first = seen_source(m_chunk_start_src, owned); // borrowed, kept by `owned`
        std::int64_t a = 0;
        std::int64_t b = check.size;
        if (first == nullptr || (start && !bound_at(start, first, a)) ||
            (stop && !bound_at(stop, first, b)))
        {
            fail("slice bound computed from the target that Python does not give exactly here",
                 node);
        }
        check.length = ir::normalize_slice(ir::slice_item::range(a, b), check.size).count;
        if (!chunk_slice_holds(check, first))
        {
            fail("slice computed from the target that NumPy clips at the chunk's start", node);
        }
        ir::value_id rows = m_builder->arange(ir::scalar::of_int(ir::dtype::int64, 0),
                                              ir::scalar::of_int(ir::dtype::int64, 1), check.length,
                                              ir::dtype::int64);
        if (lower)
        {
            const ir::value_id from =
                lo.k == cval::kind::array
                    ? m_arrays[static_cast<size_t>(lo.arr)].value
                    : m_builder->constant(ir::scalar::of_int(ir::dtype::int64, a));
            rows = m_builder->binary(ir::op::ADD, rows, from);
        }
        const ir::value_id got = m_builder->gather(x, rows, 0);
        if (got == ir::no_id)
        {
            fail("slice computed from the target (IR: " + m_builder->state().message() + ")", node);
        }
        // NumPy's view of a C-contiguous array's rows is C-contiguous too.
        note_layout(got, layout::contiguous);
        out = new_array(got, surface::ndarray, container.arr);
        m_chunk_checks.push_back(check);
        m_chunk_views[out.arr] = chunk_view{parent, start, stop};
        return true;
    }

    // After a trip's statements: the carried names left on a slice of the
    // chunk (by slot: the array entry of the view, or -1). Such a name's
    // value is handed to the next trip as a plain array (the rows it holds;
    // its parent is not written in the body), and after the LOOP it becomes
    // the view (chunk_view_after).
    std::vector<int> converter::settle_chunk_views(const carried_loop& loop,
                                                   const loop_chunk_scope& scope, py::handle node)
    {
        std::vector<int> views(loop.slots.size(), -1);
        for (const auto& [arr, view] : m_chunk_views)
        {
            const carried_slot& parent = loop.slots[static_cast<size_t>(view.parent_slot)];
            const bool rebound =
                std::find(scope.bound.begin(), scope.bound.end(), parent.name) != scope.bound.end();
            if (rebound || m_arrays[static_cast<size_t>(parent.fresh)].value != parent.arg)
            {
                fail("array " + parent.name +
                         " rebound or updated in place in a loop run in chunks that slices it "
                         "with the target",
                     node);
            }
        }
        for (size_t k = 0; k < loop.slots.size(); ++k)
        {
            auto now = m_locals.find(loop.slots[k].name);
            if (now == m_locals.end() || now->second.k != cval::kind::array ||
                m_chunk_views.count(now->second.arr) == 0)
            {
                continue;
            }
            views[k] = now->second.arr;
            const array_entry& e = m_arrays[static_cast<size_t>(now->second.arr)];
            m_locals[loop.slots[k].name] = new_array(e.value, e.surf);
        }
        return views;
    }

    // The view a name left on a slice of the chunk names after the LOOP:
    // NumPy's `parent[start:stop]` at the chunk's last value of the target,
    // start + (trips - 1) * step.
    cval converter::chunk_view_after(int view, py::handle node)
    {
        const chunk_view& v = m_chunk_views.at(view);
        const carried_slot& parent = p_chunk_loop->slots[static_cast<size_t>(v.parent_slot)];
        const int parent_src = m_arrays[static_cast<size_t>(parent.orig)].src;
        if (parent_src < 0)
        {
            fail("slice computed from the target of an array that is not read from a name", node);
        }
        owned_refs owned;
        int_expr_ptr start =
            int_leaf(m_chunk_start_src, seen_source(m_chunk_start_src, owned), "chunk start");
        int_expr_ptr trips =
            int_leaf(m_chunk_trips_src, seen_source(m_chunk_trips_src, owned), "chunk trips");
        int_expr_ptr last = int_binary(
            "+", start,
            int_binary("*", int_binary("-", trips, int_constant(1)), int_constant(m_chunk_step)));
        int_expr_ptr lo = v.start ? substitute(v.start, last) : nullptr;
        int_expr_ptr hi = v.stop ? substitute(v.stop, last) : nullptr;
        if ((v.start && !lo) || (v.stop && !hi))
        {
            fail("slice bound computed from the target with other operators than + - * % // in a "
                 "loop run in chunks",
                 node);
        }
        const std::string path = m_spec->sources[parent_src].path + "[" +
                                 (lo ? lo->text : std::string()) + ":" +
                                 (hi ? hi->text : std::string()) + "]";
        const int src = m_spec->sources.add(
            source{source_kind::computed_slice, parent_src, 0, py::none(), path}, lo, hi);
        PyObject* seen = seen_source(src, owned); // borrowed, kept by `owned`
        if (seen == nullptr)
        {
            fail("computed slice " + path + " that NumPy does not make here", node);
        }
        cval out;
        out.k = cval::kind::object;
        out.obj = py::reinterpret_borrow<py::object>(seen);
        out.src = src;
        return out;
    }
} // namespace specula::engine::converter
