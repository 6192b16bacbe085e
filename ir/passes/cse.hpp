// Common subexpression elimination: a pure node equal to an earlier one (same op,
// inputs, attribute and output types) in the same or an enclosing region is replaced by
// it. Commutative ops match with swapped inputs. Side-effect, boundary and control-flow
// ops are never merged.
#pragma once

#include "ir/graph.hpp"

namespace specula::ir
{
    // Returns the number of nodes replaced (and erased).
    int eliminate_common_subexpressions(graph& g);
} // namespace specula::ir
