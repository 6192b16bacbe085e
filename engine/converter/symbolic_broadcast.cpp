#include "engine/converter/symbolic_broadcast.hpp"

#include "ir/op.hpp"

namespace specula::engine::converter
{
    std::string symbolic_broadcast_problem(const ir::graph& g)
    {
        for (std::size_t n = 0; n < g.num_nodes(); ++n)
        {
            const ir::node& nd = g.get_node(static_cast<ir::node_id>(n));
            if (nd.erased || !ir::has(nd.code, ir::prop::ELEMENTWISE) || nd.outputs.empty())
            {
                continue;
            }
            const ir::shape& out = g.type_of(nd.outputs[0]).dims;
            for (ir::value_id in : nd.inputs)
            {
                const ir::shape& dims = g.type_of(in).dims;
                const int shift = out.rank() - dims.rank();
                for (int axis = 0; axis < dims.rank() && shift >= 0; ++axis)
                {
                    const ir::dim& d = dims[axis];
                    const ir::dim& o = out[axis + shift];
                    if (d.is_symbolic() && o.is_static())
                    {
                        return "broadcasting a varying dim " + dims.to_string() +
                               " against a fixed one " + out.to_string() + " (" +
                               std::string(ir::mnemonic(nd.code)) + ")";
                    }
                }
            }
        }
        return {};
    }
} // namespace specula::engine::converter
