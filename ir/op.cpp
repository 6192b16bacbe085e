#include "ir/op.hpp"

#include <array>

namespace specula::ir
{
    namespace
    {
        template <class T, class V>
        struct variant_index;

        template <class T, class... Ts>
        struct variant_index<T, std::variant<Ts...>>
        {
            static constexpr std::size_t value()
            {
                std::size_t i = 0;
                bool found = false;
                ((found = found || std::is_same_v<T, Ts>, i += found ? 0 : 1), ...);
                return i;
            }
        };

        template <class T>
        constexpr std::size_t attr_index_of()
        {
            return variant_index<T, attribute>::value();
        }

        using namespace prop;
        const std::array<op_info, num_ops> g_infos = {{
#define SPECULA_OP(name, mnem, nin, nout, attr_type, props)                                        \
    op_info{mnem, nin, nout, attr_index_of<attr_type>(), props},
#include "ir/ops.def"
#undef SPECULA_OP
        }};

        template <std::size_t... I>
        attribute make_default(std::size_t index, std::index_sequence<I...>)
        {
            attribute out;
            ((index == I ? (out = std::variant_alternative_t<I, attribute>{}, 0) : 0), ...);
            return out;
        }
    } // namespace

    const op_info& info(op code)
    {
        return g_infos[static_cast<std::size_t>(code)];
    }

    std::optional<op> op_from_mnemonic(std::string_view text)
    {
        for (int i = 0; i < num_ops; ++i)
        {
            if (g_infos[static_cast<std::size_t>(i)].mnemonic == text)
            {
                return static_cast<op>(i);
            }
        }
        return std::nullopt;
    }

    attribute default_attr(op code)
    {
        return make_default(info(code).attr_index,
                            std::make_index_sequence<std::variant_size_v<attribute>>{});
    }
} // namespace specula::ir
