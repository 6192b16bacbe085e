#pragma once

// The reference backend: every op for every dtype as plain loops with NumPy's
// semantics. It is the oracle other backends are tested against, and the
// fallback for nodes they leave unimplemented.

#include "backends/backend.hpp"

namespace specula::backends::reference
{
    class reference_backend final : public backend
    {
    private:
        std::string_view name_impl() const override { return "reference"; }
        result<std::unique_ptr<kernel>> compile_node_impl(const ir::graph& g, const ir::node& n,
                                                          const target& t) const override;
    };

    // Kernel factories by op family; each answers unimplemented for ops
    // outside its family.
    result<std::unique_ptr<kernel>> make_elementwise_kernel(const ir::graph& g, const ir::node& n);
    result<std::unique_ptr<kernel>> make_reduction_kernel(const ir::graph& g, const ir::node& n);
    result<std::unique_ptr<kernel>> make_movement_kernel(const ir::graph& g, const ir::node& n);
    result<std::unique_ptr<kernel>> make_creation_kernel(const ir::graph& g, const ir::node& n);
} // namespace specula::backends::reference
