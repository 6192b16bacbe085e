#pragma once

// One switch from an IR dtype to its C type, shared by the CPU backend's
// typed loops and kernels.

#include <cstdint>

#include "ir/dtype.hpp"

namespace specula::backends::cpu
{
    // f(T{}) for the C type T of `t`; otherwise() for a dtype with no C type
    // here (each caller says what that means: a default loop or an error).
    template <class F, class Otherwise>
    auto with_ctype(ir::dtype t, F&& f, Otherwise&& otherwise)
    {
        switch (t)
        {
        case ir::dtype::bool_:
            return f(bool{});
        case ir::dtype::int8:
            return f(std::int8_t{});
        case ir::dtype::int16:
            return f(std::int16_t{});
        case ir::dtype::int32:
            return f(std::int32_t{});
        case ir::dtype::int64:
            return f(std::int64_t{});
        case ir::dtype::uint8:
            return f(std::uint8_t{});
        case ir::dtype::float32:
            return f(float{});
        case ir::dtype::float64:
            return f(double{});
        }
        return otherwise();
    }
} // namespace specula::backends::cpu
