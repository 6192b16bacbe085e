// Memory planning: assigns every value a buffer, reusing buffers whose values are dead
// (liveness over the pre-order walk; a value used inside a loop stays live until the
// loop ends), and marks ops that may write their result over an input in place.
//
// In place is legal only when the input has the same dtype and shape as the result, is
// dead after the op, is not a graph input/param, constant, region argument or graph
// output, and lives in the op's own region. Candidates: elementwise ops (any input;
// CLIP input 0 only) and the *_UPDATE ops (input 0). A backend's kernels for these ops
// must be correct when the output is the candidate input's memory (same dtype, shape,
// strides).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/graph.hpp"

namespace specula::ir
{
    enum class storage : std::uint8_t
    {
        none,     // no buffer (erased or unused slot)
        external, // INPUT/PARAM: owned by the engine, never written
        constant, // CONSTANT data, never written
        planned,  // a buffer of the plan
        view,     // no buffer: reads the memory of its root value (alias_of)
    };

    struct memory_plan
    {
        struct buffer
        {
            value_type type;         // the first value's type; sharers have the same size
            std::int64_t bytes = -1; // -1 when symbolic dims make it run-time sized
        };

        std::vector<storage> kind;  // per value id
        std::vector<int> buffer_of; // per value id, -1 unless planned
        std::vector<buffer> buffers;
        std::vector<int> in_place_input; // per node id: input index reused, or -1
        // Per value id: the value whose memory it reads (itself unless a view).
        std::vector<value_id> alias_of;
        // Live interval per value id over walk positions [first, last]; -1 if none.
        std::vector<std::int64_t> live_first;
        std::vector<std::int64_t> live_last;

        std::string to_string(const graph& g) const;
    };

    // `groups`: fused groups (member node ids in program order) that the
    // executor runs as one node at the last member's position. Their members'
    // inputs stay live until then, their values are defined there, values that
    // never leave a group get no buffer, and no member runs in place.
    //
    // `views`: nodes whose output 0 is a view of input 0's memory (a backend's
    // zero-copy transpose, slice, ...). A view gets no buffer (storage::view);
    // its input, and through chains of views the value that owns the memory,
    // stays live while any view of it is live; nothing runs in place over a
    // view, nor over a value that another input of the same node views.
    memory_plan plan_memory(const graph& g, const std::vector<std::vector<node_id>>& groups = {},
                            const std::vector<node_id>& views = {});
} // namespace specula::ir
