#pragma once

// Reads the case files written by oracle_format.py and compares results with
// the tolerance each case names. Test-only code.

#include "backends/reference/strided.hpp"

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace specula::backends::testing
{
    struct oracle_array
    {
        reference::scalar type = reference::scalar::f64;
        std::vector<std::int64_t> shape;
        std::vector<std::uint64_t> storage; // 8-byte aligned element bytes

        std::byte* data() { return reinterpret_cast<std::byte*>(storage.data()); }
        std::int64_t size() const;
        std::size_t bytes() const;
        reference::strided_view view();
        static oracle_array zeros(reference::scalar type, std::vector<std::int64_t> shape);
    };

    struct oracle_case
    {
        std::string kind;
        std::string op;
        std::string tolerance;
        std::vector<std::int64_t> params;
        std::vector<oracle_array> inputs;
        std::optional<oracle_array> expected; // empty: NumPy raised
        int line = 0;
    };

    std::optional<reference::scalar> scalar_from_name(const std::string& name);

    // Parses "<dtype> <rank> <dims...> <hex>" (the rest of an in/out line).
    bool parse_array(std::istringstream& in, oracle_array& a);

    // All cases of a file; an empty vector (and a message) when unreadable.
    std::vector<oracle_case> read_cases(const std::string& path, std::string& error);

    // Empty string when `got` matches `want` under `tolerance`, else a
    // description of the first mismatch. `bound` is used by "dot".
    std::string compare(const std::string& tolerance, oracle_array& got, oracle_array& want,
                        oracle_array* bound, std::int64_t depth);
} // namespace specula::backends::testing
