#pragma once

// One oneDNN call described independently of its row count, so the kernel can
// split dim 0 across Specula's own pool: each lane executes a single-threaded
// primitive on its rows. OpenMP's team busy-waits at its barriers (see
// threading.hpp), our pool's workers block, so the split costs nothing when
// idle. Primitives are built at compile time and cached per shape
// (onednn_context.hpp); a run only sets data handles and calls execute().

#include "backends/cpu/cpu_backend.hpp"

#include <dnnl.hpp>

#include <functional>
#include <string>
#include <vector>

namespace specula::backends::cpu::onednn
{
    // A memory argument of the call: the kernel's input `index` (or output
    // `index` when `output`), seen with `dims` (all of one rank). dims[0] is
    // either the call's row count (the operand is split with the rows) or 1
    // (the same rows for every lane: a broadcast or per-column operand).
    struct operand
    {
        int arg = DNNL_ARG_SRC;
        int index = 0;
        bool output = false;
        dnnl::memory::dims dims;
        // Not an input: the constant 1.0f (dims all 1), for heads of the form
        // x * 1 (exact) that carry post-ops an eltwise primitive cannot.
        bool one = false;
        // Not an input or output: memory the kernel owns per lane (e.g. the
        // statistics a normalisation computes).
        bool scratch = false;
        // Never split with the rows (a per-channel operand whose length
        // happens to equal the row count).
        bool fixed = false;
    };

    struct call_plan
    {
        // What the primitive computes, apart from shapes (cache key prefix).
        std::string what;
        std::vector<operand> operands;
        // Rows of dim 0 are independent (eltwise, binary, row-wise softmax
        // and normalisation, reductions that keep dim 0): lanes may split them.
        bool rows_independent = true;
        // Builds the primitive from the operands' descriptors (operand order)
        // once dims[0] is set; may throw dnnl::error ("unimplemented").
        std::function<dnnl::primitive(const std::vector<dnnl::memory::desc>&)> make;
        // Run by each lane after execute() on its rows [r0, r1), or empty:
        // NumPy's semantics where oneDNN's differ (softmax's non-finite rows).
        std::function<void(const kernel_io&, std::int64_t r0, std::int64_t r1)> after;
    };

    // `pd` itself when oneDNN found a JIT-compiled implementation; its
    // reference ("ref:") implementations are scalar loops, slower than the
    // exact path (a 1000x1000 mean over axis 0 took 25 ms, NumPy 70 us), so
    // they count as "unimplemented".
    template <class pd_t>
    pd_t jit_only(pd_t pd)
    {
        if (std::string(pd.impl_info_str()).rfind("ref", 0) == 0)
        {
            throw dnnl::error(dnnl_unimplemented, "only a reference implementation");
        }
        return pd;
    }

    // Plan kernels made since the process started (tests: which path served).
    std::int64_t plan_kernels_made();

    // Plain row-major descriptor of float32 `dims`.
    dnnl::memory::desc f32_desc(const dnnl::memory::dims& dims);

    // A kernel running `plan` on `pool`'s lanes (split when the rows are
    // independent and there are at least `split_min_elements` output
    // elements); "unimplemented" when oneDNN refuses the primitive.
    result<std::unique_ptr<kernel>> make_plan_kernel(call_plan plan,
                                                     std::shared_ptr<thread_pool> pool,
                                                     std::int64_t split_min_elements);
} // namespace specula::backends::cpu::onednn
