// Opcodes and their properties, generated from the one list in ir/ops.def.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "ir/attrs.hpp"

namespace specula::ir
{
    enum class op : std::uint8_t
    {
#define SPECULA_OP(name, mnemonic, nin, nout, attr_type, props) name,
#include "ir/ops.def"
#undef SPECULA_OP
    };

    inline constexpr int num_ops = 0
#define SPECULA_OP(name, mnemonic, nin, nout, attr_type, props) +1
#include "ir/ops.def"
#undef SPECULA_OP
        ;

    // Property bits. Sets, not scattered ifs: passes ask `has(op, prop::ELEMENTWISE)`.
    namespace prop
    {
        enum : std::uint32_t
        {
            NONE = 0,
            ELEMENTWISE = 1u << 0,
            UNARY = 1u << 1,
            BINARY = 1u << 2,
            REDUCTION = 1u << 3,
            MOVEMENT = 1u << 4,
            SIDE_EFFECT = 1u << 5,
            ASSERT = 1u << 6,
            COMMUTATIVE = 1u << 7,
            CONTROL_FLOW = 1u << 8,
            BOUNDARY = 1u << 9,
            CREATION = 1u << 10,
        };
    }

    struct op_info
    {
        std::string_view mnemonic;
        int num_inputs;         // -1: variadic
        int num_outputs;        // -1: variadic
        std::size_t attr_index; // index of the alternative in ir::attribute
        std::uint32_t props;
    };

    const op_info& info(op code);
    inline std::string_view mnemonic(op code)
    {
        return info(code).mnemonic;
    }
    inline bool has(op code, std::uint32_t props)
    {
        return (info(code).props & props) == props;
    }
    std::optional<op> op_from_mnemonic(std::string_view text);
    // A default-constructed attribute of the alternative `code` carries.
    attribute default_attr(op code);
} // namespace specula::ir
