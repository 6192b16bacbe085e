#include "backends/reference/reduce.hpp"

#include <array>

namespace specula::backends::reference
{
    namespace
    {
#define SPECULA_REF_NAME(name) std::string_view{#name},
        constexpr std::array reduce_names{SPECULA_REF_REDUCE_OPS(SPECULA_REF_NAME)};
#undef SPECULA_REF_NAME
    } // namespace

    std::optional<reduce_op> reduce_op_from_name(std::string_view name)
    {
        for (std::size_t i = 0; i < reduce_names.size(); ++i)
        {
            if (reduce_names[i] == name)
            {
                return static_cast<reduce_op>(i);
            }
        }
        return std::nullopt;
    }

    std::string_view name_of(reduce_op op)
    {
        return reduce_names[static_cast<int>(op)];
    }
} // namespace specula::backends::reference
