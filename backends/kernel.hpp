#pragma once

// A kernel is one compiled node: everything that can be decided from the
// graph (dtypes, attributes, static shapes, primitive descriptors) is decided
// when it is built; run() only moves data.

#include "backends/buffer.hpp"
#include "backends/status.hpp"

namespace specula::backends
{
    struct kernel_io
    {
        const buffer* const* inputs = nullptr;
        int num_inputs = 0;
        // Allocated by the executor with the node's output shapes, unless the
        // kernel allocates its outputs itself (allocates_outputs()).
        buffer* const* outputs = nullptr;
        int num_outputs = 0;

        const buffer& in(int i) const { return *inputs[i]; }
        buffer& out(int i) const { return *outputs[i]; }
    };

    class kernel
    {
    public:
        kernel() = default;
        virtual ~kernel() = default;
        kernel(const kernel&) = delete;
        kernel& operator=(const kernel&) = delete;

        status run(const kernel_io& io) const { return run_impl(io); }

        // True for kernels whose output shape depends on data (x[mask]) or
        // that hand out a buffer they already hold (constants).
        virtual bool allocates_outputs() const { return false; }

    private:
        virtual status run_impl(const kernel_io& io) const = 0;
    };
} // namespace specula::backends
