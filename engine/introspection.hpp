// What `%specula explain` and `%specula graph` show about one region: cold
// texts built on demand from the region's record, never on the hot path.
#pragma once

#include <optional>
#include <string>

#include "engine/engine_core.hpp"

namespace specula::engine
{
    // Why the region compiled or not, its counters, its specialisations (most
    // recently used first) with their guards and asserts, its last failure.
    // Locations are written "<file>:<line>" so the kernel can name cells.
    std::string explain_region(const region_record& rec);

    // One line naming the situation a specialisation was built for: the
    // values, value ranges and array types its guards assume.
    std::string situation_of(const specialisation& spec);

    // The DOT text of the graph its most recently used compiled
    // specialisation runs, or nothing (with `why`) when it has none.
    std::optional<std::string> graph_dot_of(const region_record& rec, std::string& why);
} // namespace specula::engine
