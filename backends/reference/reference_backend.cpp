#include "backends/reference/reference_backend.hpp"

#include "backends/reference/strided.hpp"

#include <string>

namespace specula::backends::reference
{
    namespace
    {
        bool ranks_fit(const ir::graph& g, const ir::node& n)
        {
            for (ir::value_id v : n.inputs)
            {
                if (g.type_of(v).dims.rank() > max_rank)
                {
                    return false;
                }
            }
            for (ir::value_id v : n.outputs)
            {
                if (g.type_of(v).dims.rank() > max_rank)
                {
                    return false;
                }
            }
            return true;
        }
    } // namespace

    result<std::unique_ptr<kernel>> reference_backend::compile_node_impl(const ir::graph& g,
                                                                         const ir::node& n,
                                                                         const target& t) const
    {
        if (t.where.kind != device_kind::cpu)
        {
            return status::unimplemented("the reference backend runs on the host only");
        }
        if (!ranks_fit(g, n))
        {
            return status::unimplemented("rank above " + std::to_string(max_rank));
        }
        using factory = result<std::unique_ptr<kernel>> (*)(const ir::graph&, const ir::node&);
        for (factory make : {make_elementwise_kernel, make_reduction_kernel, make_movement_kernel,
                             make_creation_kernel})
        {
            auto k = make(g, n);
            if (k || k.error().code() != status_code::unimplemented)
            {
                return k;
            }
        }
        return status::unimplemented(std::string(ir::mnemonic(n.code)));
    }
} // namespace specula::backends::reference
