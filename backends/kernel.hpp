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

        // Whether run() reads input `i` in b's layout (strides, stride-0
        // broadcast, offsets, negative steps). When it answers false the
        // executor passes a C-contiguous copy of b instead (arena staging,
        // reused run after run). Default: C-contiguous inputs only, so a
        // kernel that never looked at strides stays correct.
        virtual bool reads_layout(int i, const buffer& b) const
        {
            (void)i;
            return b.is_contiguous();
        }

        // True for zero-copy views (transpose, slice, ...): output 0 is a
        // buffer::strided_view() of input 0's memory, set by run() (so the
        // kernel also allocates_outputs()). The memory plan keeps the input's
        // block live while the view is, and runs nothing in place over it.
        virtual bool aliases_input() const { return false; }

    private:
        virtual status run_impl(const kernel_io& io) const = 0;
    };
} // namespace specula::backends
