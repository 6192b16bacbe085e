// `np.add.at(a, idx, b)`: NumPy's unbuffered scatter-add (an embedding's
// gradient, `np.add.at(dE, inputs, dx)`). NumPy adds one row of `b` at a time
// into `a[idx[k]]`, k in C order, so a repeated index accumulates in that
// order. The graph does exactly that: an IR LOOP over the flattened indices
// carrying `a`, each trip reading the row, adding, and writing it back (one-row
// GATHER / GATHER_UPDATE, which the executor moves in place). An index out of
// range is the kernels' bounds error: the call runs in CPython, which raises.
#include "engine/converter/converter.hpp"

namespace specula::engine::converter
{
    namespace
    {
        ir::shape flat_rows(std::int64_t n, const ir::shape& row)
        {
            std::vector<ir::dim> dims{ir::dim::fixed(n)};
            for (int i = 0; i < row.rank(); ++i)
            {
                dims.push_back(row[i]);
            }
            return ir::shape(dims);
        }
    } // namespace

    cval converter::call_add_at(const call_args& args, py::handle node)
    {
        const auto& p = args.positional;
        if (p.size() != 3 || !args.keywords.empty() || p[0].k != cval::kind::array ||
            p[1].k != cval::kind::array || p[2].k != cval::kind::array)
        {
            fail("np.add.at with these arguments (arrays a, idx, b only)", node);
        }
        const ir::value_id a = value_of(p[0], node);
        const ir::value_id idx = value_of(p[1], node);
        const ir::value_id b = value_of(p[2], node);
        const ir::value_type at = type_of(a);
        const ir::value_type it = type_of(idx);
        const ir::value_type bt = type_of(b);
        if (!at.dims.is_static() || !it.dims.is_static() || !bt.dims.is_static() ||
            at.dims.rank() == 0 || !ir::is_integer(it.elem))
        {
            fail("np.add.at with a symbolic shape, a 0-d array or a non-integer index", node);
        }
        // b must be exactly idx.shape + a.shape[1:] in a's dtype: NumPy would
        // broadcast or cast, which the loop below does not reproduce.
        std::vector<ir::dim> row_dims;
        for (int i = 1; i < at.dims.rank(); ++i)
        {
            row_dims.push_back(at.dims[i]);
        }
        const ir::shape row(row_dims);
        std::vector<ir::dim> want;
        std::int64_t n = 1;
        for (int i = 0; i < it.dims.rank(); ++i)
        {
            want.push_back(it.dims[i]);
            n *= it.dims[i].size();
        }
        want.insert(want.end(), row_dims.begin(), row_dims.end());
        if (bt.elem != at.elem || !(bt.dims == ir::shape(want)))
        {
            fail("np.add.at whose values are not idx.shape + a.shape[1:] in a's dtype", node);
        }
        ir::value_id flat_idx = m_builder->reshape(idx, ir::shape::of({n}));
        if (it.elem != ir::dtype::int64)
        {
            flat_idx = m_builder->cast(flat_idx, ir::dtype::int64);
        }
        const ir::value_id flat_b = m_builder->reshape(b, flat_rows(n, row));
        ir::region_id body =
            m_builder->new_region({ir::value_type{ir::dtype::int64, ir::shape()}, at});
        {
            ir::builder::insertion_guard keep(*m_builder);
            m_builder->set_insertion_end(body);
            const ir::value_id k = m_builder->arg(body, 0);
            const ir::value_id acc = m_builder->arg(body, 1);
            const ir::value_id i = m_builder->gather(flat_idx, k, 0);
            const ir::value_id sum = m_builder->binary(ir::op::ADD, m_builder->gather(acc, i, 0),
                                                       m_builder->gather(flat_b, k, 0));
            m_builder->set_results(body, {m_builder->gather_update(acc, i, sum, 0)});
        }
        const ir::value_id trips = m_builder->constant(ir::scalar::of_int(ir::dtype::int64, n));
        std::vector<ir::value_id> outs =
            m_builder->loop(ir::loop_attr{true, false}, trips, ir::no_id, {a}, body);
        if (!m_builder->ok() || outs.size() != 1)
        {
            fail("np.add.at as a loop (IR: " + m_builder->state().message() + ")", node);
        }
        write_array(p[0].arr, outs[0], node);
        cval none;
        none.obj = py::none();
        return none;
    }
} // namespace specula::engine::converter
