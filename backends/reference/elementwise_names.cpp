#include "backends/reference/elementwise.hpp"

#include <array>

namespace specula::backends::reference
{
    namespace
    {
        struct op_info
        {
            std::string_view name;
            bool exact;
        };

#define SPECULA_REF_INFO(name, exact) op_info{#name, exact},
        constexpr std::array unary_infos{SPECULA_REF_UNARY_OPS(SPECULA_REF_INFO)};
        constexpr std::array binary_infos{SPECULA_REF_BINARY_OPS(SPECULA_REF_INFO)};
#undef SPECULA_REF_INFO

        template <class Op, std::size_t N>
        std::optional<Op> find(const std::array<op_info, N>& infos, std::string_view name)
        {
            for (std::size_t i = 0; i < N; ++i)
            {
                if (infos[i].name == name)
                {
                    return static_cast<Op>(i);
                }
            }
            return std::nullopt;
        }
    } // namespace

    std::optional<unary_op> unary_op_from_name(std::string_view name)
    {
        return find<unary_op>(unary_infos, name);
    }

    std::optional<binary_op> binary_op_from_name(std::string_view name)
    {
        return find<binary_op>(binary_infos, name);
    }

    std::string_view name_of(unary_op op)
    {
        return unary_infos[static_cast<int>(op)].name;
    }
    std::string_view name_of(binary_op op)
    {
        return binary_infos[static_cast<int>(op)].name;
    }
    bool is_exact(unary_op op)
    {
        return unary_infos[static_cast<int>(op)].exact;
    }
    bool is_exact(binary_op op)
    {
        return binary_infos[static_cast<int>(op)].exact;
    }

    bool is_predicate(unary_op op)
    {
        switch (op)
        {
        case unary_op::logical_not:
        case unary_op::isnan:
        case unary_op::isinf:
        case unary_op::isfinite:
        case unary_op::signbit:
            return true;
        default:
            return false;
        }
    }

    bool is_predicate(binary_op op)
    {
        return op >= binary_op::equal && op <= binary_op::logical_xor;
    }
} // namespace specula::backends::reference
