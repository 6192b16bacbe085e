#pragma once

// Sunk stores: an output whose only use is to be stored into caller memory
// (the engine: `W -= lr * g` on a user's array) is written there by the
// kernel that defines it, with no copy. That write cannot be undone, so the
// executor holds the kernel back: the run does everything else, and the
// caller runs the held-back kernels (deferred_stores::run) once its own last
// checks have passed. Nothing of the run can fail after them.

#include "backends/buffer.hpp"
#include "backends/kernel.hpp"
#include "backends/status.hpp"
#include "ir/dtype.hpp"

#include <cstddef>
#include <vector>

namespace specula::backends
{
    struct compiled_graph;
    struct compiled_node;

    class deferred_stores
    {
    public:
        // Copies hold the same stores (run_result stays copyable): the
        // caller runs or drops one of them.
        bool empty() const { return m_stores.empty(); }
        std::size_t size() const { return m_stores.size(); }
        // Whether output `output` is held back (its value is written into its
        // target by run(), and nowhere else).
        bool holds(std::size_t output) const;

        // Runs the held-back kernels in program order, each writing its
        // target. Once; afterwards the stores are empty. The executor only
        // holds back kernels that validate their operands before writing, so
        // an error here means nothing was written by that store.
        status run();
        // Forgets them: the targets stay untouched.
        void drop() { m_stores.clear(); }

        // Used by the executor. `inputs` are the kernel's operands (handles
        // that keep arena memory alive), `target` the caller's memory.
        void add(const kernel* k, std::vector<buffer> inputs, buffer target, std::size_t output);
        // Whether `b`'s bytes overlap a target already held back.
        bool overlaps_a_target(const buffer& b) const;

    private:
        struct store
        {
            const kernel* p_kernel = nullptr;
            std::vector<buffer> inputs;
            buffer target;
            std::size_t output = 0;
        };
        std::vector<store> m_stores;
    };

    // The bytes [first, last) a buffer's elements occupy (strides of any sign).
    struct byte_extent
    {
        const std::byte* first = nullptr;
        const std::byte* last = nullptr;
    };
    byte_extent extent_of(const buffer& b);
    bool overlap(const buffer& a, const buffer& b);

    // Per value id of g's top region: the node that defines it when that node
    // may be held back as a store (an elementwise kernel of one output that
    // the executor gives its output memory: not a view, not self-allocating; a
    // planned in-place run over a dead operand is fine),
    // and the value's only use is one OUTPUT. Null elsewhere. Computed once
    // per compiled graph.
    const std::vector<const compiled_node*>& store_candidates(const compiled_graph& g);

    // Whether a candidate kernel whose output is `elem` of C-order `shape`
    // may write `target` instead, with `inputs` its operands and `held` the
    // stores already held back in this run: the exact dtype and shape,
    // C-contiguous (the executor's kernels write C order), no overlap with a
    // target held back before, and every operand that shares bytes with the
    // target reads it in the identical layout (elementwise in place, as
    // NumPy's own `out=`) and none reads a target held back before.
    bool may_store_into(ir::dtype elem, const std::vector<std::int64_t>& shape,
                        const buffer& target, const buffer* const* inputs, std::size_t num_inputs,
                        const deferred_stores& held);
} // namespace specula::backends
