#include "backends/run_shapes.hpp"

#include "ir/infer.hpp"

#include <string>

namespace specula::backends
{
    status symbol_table::bind(const ir::value_type& want, const buffer& b)
    {
        if (b.dtype() != want.elem)
        {
            return status::invalid("dtype " + std::string(ir::dtype_name(b.dtype())) +
                                   ", graph expects " + std::string(ir::dtype_name(want.elem)));
        }
        if (b.rank() != want.dims.rank())
        {
            return status::invalid("rank " + std::to_string(b.rank()) + ", graph expects " +
                                   want.to_string());
        }
        for (int d = 0; d < b.rank(); ++d)
        {
            const ir::dim& dim = want.dims[d];
            const std::int64_t have = b.shape()[static_cast<std::size_t>(d)];
            if (dim.is_static())
            {
                if (dim.size() != have)
                {
                    return status::invalid("shape differs from " + want.to_string());
                }
                continue;
            }
            const auto id = static_cast<std::size_t>(dim.symbol_id());
            if (id >= m_sizes.size())
            {
                m_sizes.resize(id + 1, -1);
            }
            if (m_sizes[id] >= 0 && m_sizes[id] != have)
            {
                return status::invalid("symbolic dim " + dim.to_string() + " is " +
                                       std::to_string(m_sizes[id]) + " and " +
                                       std::to_string(have));
            }
            m_sizes[id] = have;
        }
        return status::ok();
    }

    std::optional<std::vector<std::int64_t>> symbol_table::sizes_of(const ir::value_type& t) const
    {
        std::vector<std::int64_t> sizes;
        sizes.reserve(static_cast<std::size_t>(t.dims.rank()));
        for (int d = 0; d < t.dims.rank(); ++d)
        {
            const ir::dim& dim = t.dims[d];
            if (dim.is_static())
            {
                sizes.push_back(dim.size());
                continue;
            }
            const auto id = static_cast<std::size_t>(dim.symbol_id());
            if (id >= m_sizes.size() || m_sizes[id] < 0)
            {
                return std::nullopt;
            }
            sizes.push_back(m_sizes[id]);
        }
        return sizes;
    }

    result<std::vector<std::int64_t>> resolve_output_shape(const ir::graph& g, const ir::node& n,
                                                           const std::vector<const buffer*>& ins)
    {
        ir::infer_request req;
        req.code = n.code;
        req.attr = &n.attr;
        for (const buffer* b : ins)
        {
            req.inputs.push_back(ir::value_type{b->dtype(), ir::shape::of(b->shape())});
        }
        std::int32_t next_symbol = g.num_symbols();
        req.fresh_symbol = [&next_symbol] { return next_symbol++; };
        auto types = ir::infer_output_types(req);
        if (!types)
        {
            return status::invalid(types.message());
        }
        auto sizes = types.value()[0].dims.static_sizes();
        if (!sizes)
        {
            return status::internal("output shape of " + std::string(ir::mnemonic(n.code)) +
                                    " still symbolic at run time");
        }
        return std::move(*sizes);
    }
} // namespace specula::backends
