// Dtype rules by emulating NumPy's ufunc loop search: the result is the output type of
// the first loop (in NumPy's order) that every input casts to safely.
#include "ir/infer.hpp"

#include <string_view>

namespace specula::ir
{
    namespace
    {
        // NumPy type characters on LP64 Linux, in NumPy's loop order.
        constexpr std::string_view g_order = "?bBhHiIlLqQefd";

        struct code_info
        {
            char kind; // 'b' bool, 'i' signed, 'u' unsigned, 'f' float
            int size;
        };

        code_info describe(char c)
        {
            switch (c)
            {
            case '?':
                return {'b', 1};
            case 'b':
                return {'i', 1};
            case 'B':
                return {'u', 1};
            case 'h':
                return {'i', 2};
            case 'H':
                return {'u', 2};
            case 'i':
                return {'i', 4};
            case 'I':
                return {'u', 4};
            case 'l':
            case 'q':
                return {'i', 8};
            case 'L':
            case 'Q':
                return {'u', 8};
            case 'e':
                return {'f', 2};
            case 'f':
                return {'f', 4};
            default:
                return {'f', 8};
            }
        }

        char code_of(dtype t)
        {
            switch (t)
            {
            case dtype::bool_:
                return '?';
            case dtype::int8:
                return 'b';
            case dtype::int16:
                return 'h';
            case dtype::int32:
                return 'i';
            case dtype::int64:
                return 'l';
            case dtype::uint8:
                return 'B';
            case dtype::float32:
                return 'f';
            case dtype::float64:
                return 'd';
            }
            return 'd';
        }

        std::optional<dtype> dtype_of(char c)
        {
            switch (c)
            {
            case '?':
                return dtype::bool_;
            case 'b':
                return dtype::int8;
            case 'h':
                return dtype::int16;
            case 'i':
                return dtype::int32;
            case 'l':
            case 'q':
                return dtype::int64;
            case 'B':
                return dtype::uint8;
            case 'f':
                return dtype::float32;
            case 'd':
                return dtype::float64;
            default:
                return std::nullopt; // float16, uint16..64
            }
        }

        bool can_cast_safe(char from, char to)
        {
            const code_info f = describe(from);
            const code_info t = describe(to);
            if (f.kind == 'b')
            {
                return true;
            }
            switch (t.kind)
            {
            case 'b':
                return false;
            case 'i':
                return (f.kind == 'i' && t.size >= f.size) || (f.kind == 'u' && t.size > f.size);
            case 'u':
                return f.kind == 'u' && t.size >= f.size;
            default:
                if (f.kind == 'f')
                {
                    return t.size >= f.size;
                }
                // Integers: 1 byte fits float16, 2 bytes float32, 4 and 8 float64.
                return t.size > f.size || t.size == 8;
            }
        }

        // Loops taking and returning one type: the loop types are `loops`, output is
        // the loop type (or bool when to_bool).
        std::optional<dtype> search(std::string_view loops, const std::vector<dtype>& in,
                                    bool to_bool)
        {
            for (char c : g_order)
            {
                if (loops.find(c) == std::string_view::npos)
                {
                    continue;
                }
                bool all = true;
                for (dtype t : in)
                {
                    all = all && can_cast_safe(code_of(t), c);
                }
                if (all)
                {
                    return to_bool ? std::optional<dtype>(dtype::bool_) : dtype_of(c);
                }
            }
            return std::nullopt;
        }

        constexpr std::string_view g_all = "?bBhHiIlLqQefd";
        constexpr std::string_view g_numeric = "bBhHiIlLqQefd";
        constexpr std::string_view g_floats = "efd";
        constexpr std::string_view g_bits = "?bBhHiIlLqQ";
        constexpr std::string_view g_int_only = "bBhHiIlLqQ";

        bool all_int_or_bool(const std::vector<dtype>& in)
        {
            for (dtype t : in)
            {
                if (is_float(t))
                {
                    return false;
                }
            }
            return true;
        }

        bool all_bool(const std::vector<dtype>& in)
        {
            for (dtype t : in)
            {
                if (t != dtype::bool_)
                {
                    return false;
                }
            }
            return true;
        }
    } // namespace

    std::optional<dtype> elementwise_dtype(op code, const std::vector<dtype>& in)
    {
        switch (code)
        {
        case op::NEG:
        case op::SUB:
            // NumPy's resolver rejects boolean negative/subtract outright.
            return all_bool(in) ? std::nullopt : search(g_numeric, in, false);
        case op::ABS:
        case op::ADD:
        case op::MUL:
        case op::MAXIMUM:
        case op::MINIMUM:
        case op::CLIP:
            return search(g_all, in, false);
        case op::SIGN:
            // NumPy's sign has no bool loop and refuses to cast bool to int8 for it.
            return all_bool(in) ? std::nullopt : search(g_numeric, in, false);
        case op::SQUARE:
        case op::RECIPROCAL:
        case op::FLOORDIV:
        case op::MOD:
        case op::POW:
            return search(g_numeric, in, false);
        case op::EXP:
        case op::EXPM1:
        case op::LOG:
        case op::LOG1P:
        case op::SQRT:
        case op::TANH:
        case op::SIN:
        case op::COS:
        case op::FLOOR:
        case op::CEIL:
        case op::RINT:
            return search(g_floats, in, false);
        case op::DIV:
            // Integer true division uses the double loop.
            return all_int_or_bool(in) ? std::optional<dtype>(dtype::float64)
                                       : search(g_floats, in, false);
        case op::EQ:
        case op::NE:
        case op::LT:
        case op::LE:
        case op::GT:
        case op::GE:
        case op::LOGICAL_NOT:
        case op::LOGICAL_AND:
        case op::LOGICAL_OR:
        case op::LOGICAL_XOR:
            return search(g_all, in, true);
        case op::BITWISE_AND:
        case op::BITWISE_OR:
        case op::BITWISE_XOR:
            return search(g_bits, in, false);
        case op::LEFT_SHIFT:
        case op::RIGHT_SHIFT:
            return search(g_int_only, in, false);
        case op::MATMUL:
        case op::OUTER:
            return search(g_all, in, false);
        default:
            return std::nullopt;
        }
    }

    std::optional<dtype> reduction_dtype(op code, dtype in)
    {
        switch (code)
        {
        case op::SUM:
        case op::PROD:
            if (in == dtype::uint8)
            {
                return std::nullopt; // NumPy accumulates in uint64
            }
            return is_float(in) ? in : dtype::int64;
        case op::MEAN:
        case op::VAR:
        case op::STD:
            return is_float(in) ? in : dtype::float64;
        case op::MAX:
        case op::MIN:
            return in;
        case op::ARGMAX:
        case op::ARGMIN:
            return dtype::int64;
        case op::ANY:
        case op::ALL:
            return dtype::bool_;
        default:
            return std::nullopt;
        }
    }
} // namespace specula::ir
