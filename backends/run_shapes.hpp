#pragma once

// Run-time shapes: binding the IR's symbolic dims (?k) to the sizes of the
// actual inputs, and output shapes of nodes whose IR type is not static,
// obtained from the IR's own type rules applied to the concrete input shapes
// (so backends and IR can never disagree on NumPy's shape semantics).

#include "backends/buffer.hpp"
#include "backends/status.hpp"
#include "ir/graph.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace specula::backends
{
    class symbol_table
    {
    public:
        void reset(std::int32_t count) { m_sizes.assign(static_cast<std::size_t>(count), -1); }
        // Unbinds one symbol: a loop-carried symbol at each iteration head.
        void forget(std::int32_t id)
        {
            if (static_cast<std::size_t>(id) < m_sizes.size())
            {
                m_sizes[static_cast<std::size_t>(id)] = -1;
            }
        }
        // Checks `b` against `want` (dtype, rank, static dims) and binds or
        // checks each symbolic dim.
        status bind(const ir::value_type& want, const buffer& b);
        // The sizes of `t` when every symbolic dim of it is bound.
        std::optional<std::vector<std::int64_t>> sizes_of(const ir::value_type& t) const;

    private:
        std::vector<std::int64_t> m_sizes; // -1: not bound yet
    };

    result<std::vector<std::int64_t>> resolve_output_shape(const ir::graph& g, const ir::node& n,
                                                           const std::vector<const buffer*>& ins);
} // namespace specula::backends
