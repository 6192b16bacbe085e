#include "backends/cpu/builtin_loops.hpp"
#include "backends/cpu/dtype_switch.hpp"

#include "backends/reference/numpy_math.hpp"

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace specula::backends::cpu
{
    namespace
    {
        namespace npm = reference::npmath;

        // Contiguous operands get a typed loop the compiler can vectorise;
        // anything else (broadcast step 0, strided views) the generic one.
        template <class In, class Out, class F>
        void binary(char** args, const std::intptr_t* dims, const std::intptr_t* steps, void*)
        {
            const std::intptr_t n = dims[0];
            if (steps[0] == sizeof(In) && steps[1] == sizeof(In) && steps[2] == sizeof(Out))
            {
                const In* a = reinterpret_cast<const In*>(args[0]);
                const In* b = reinterpret_cast<const In*>(args[1]);
                Out* o = reinterpret_cast<Out*>(args[2]);
                for (std::intptr_t i = 0; i < n; ++i)
                {
                    o[i] = F::apply(a[i], b[i]);
                }
                return;
            }
            if (steps[0] == sizeof(In) && steps[1] == 0 && steps[2] == sizeof(Out))
            {
                const In* a = reinterpret_cast<const In*>(args[0]);
                const In b = *reinterpret_cast<const In*>(args[1]);
                Out* o = reinterpret_cast<Out*>(args[2]);
                for (std::intptr_t i = 0; i < n; ++i)
                {
                    o[i] = F::apply(a[i], b);
                }
                return;
            }
            char* a = args[0];
            char* b = args[1];
            char* o = args[2];
            for (std::intptr_t i = 0; i < n; ++i, a += steps[0], b += steps[1], o += steps[2])
            {
                *reinterpret_cast<Out*>(o) =
                    F::apply(*reinterpret_cast<const In*>(a), *reinterpret_cast<const In*>(b));
            }
        }

        template <class In, class Out, class F>
        void unary(char** args, const std::intptr_t* dims, const std::intptr_t* steps, void*)
        {
            const std::intptr_t n = dims[0];
            if (steps[0] == sizeof(In) && steps[1] == sizeof(Out))
            {
                const In* a = reinterpret_cast<const In*>(args[0]);
                Out* o = reinterpret_cast<Out*>(args[1]);
                for (std::intptr_t i = 0; i < n; ++i)
                {
                    o[i] = F::apply(a[i]);
                }
                return;
            }
            char* a = args[0];
            char* o = args[1];
            for (std::intptr_t i = 0; i < n; ++i, a += steps[0], o += steps[1])
            {
                *reinterpret_cast<Out*>(o) = F::apply(*reinterpret_cast<const In*>(a));
            }
        }

#define SPECULA_CPU_BIN(name, expr)                                                                \
    struct name                                                                                    \
    {                                                                                              \
        template <class T>                                                                         \
        static auto apply(T a, T b)                                                                \
        {                                                                                          \
            return expr;                                                                           \
        }                                                                                          \
    };
        SPECULA_CPU_BIN(add_op, npm::wrap_add(a, b))
        SPECULA_CPU_BIN(sub_op, npm::wrap_sub(a, b))
        SPECULA_CPU_BIN(mul_op, npm::wrap_mul(a, b))
        SPECULA_CPU_BIN(div_op, a / b)
        SPECULA_CPU_BIN(max_op, npm::maximum(a, b))
        SPECULA_CPU_BIN(min_op, npm::minimum(a, b))
        SPECULA_CPU_BIN(eq_op, a == b)
        SPECULA_CPU_BIN(ne_op, a != b)
        SPECULA_CPU_BIN(lt_op, a < b)
        SPECULA_CPU_BIN(le_op, a <= b)
        SPECULA_CPU_BIN(gt_op, a > b)
        SPECULA_CPU_BIN(ge_op, a >= b)
        SPECULA_CPU_BIN(and_op, static_cast<T>(a& b))
        SPECULA_CPU_BIN(or_op, static_cast<T>(a | b))
        SPECULA_CPU_BIN(xor_op, static_cast<T>(a ^ b))
        SPECULA_CPU_BIN(land_op, static_cast<bool>(a&& b))
        SPECULA_CPU_BIN(lor_op, static_cast<bool>(a || b))
        SPECULA_CPU_BIN(lxor_op, static_cast<bool>(a != b))
#undef SPECULA_CPU_BIN

        struct neg_op
        {
            template <class T>
            static T apply(T a)
            {
                return npm::wrap_neg(a);
            }
        };
        struct abs_op
        {
            template <class T>
            static T apply(T a)
            {
                return npm::absolute(a);
            }
        };
        struct square_op
        {
            template <class T>
            static T apply(T a)
            {
                return npm::wrap_mul(a, a);
            }
        };
        struct not_op
        {
            static bool apply(bool a) { return !a; }
        };

        template <class T>
        ufunc_loop typed_loop(ir::op code)
        {
            constexpr bool is_bool = std::is_same_v<T, bool>;
            constexpr bool is_float = std::is_floating_point_v<T>;
            switch (code)
            {
            case ir::op::ADD:
                return {binary<T, T, add_op>, nullptr};
            case ir::op::SUB:
                if constexpr (!is_bool)
                {
                    return {binary<T, T, sub_op>, nullptr};
                }
                break;
            case ir::op::MUL:
                return {binary<T, T, mul_op>, nullptr};
            case ir::op::DIV:
                if constexpr (is_float)
                {
                    return {binary<T, T, div_op>, nullptr};
                }
                break;
            case ir::op::MAXIMUM:
                return {binary<T, T, max_op>, nullptr};
            case ir::op::MINIMUM:
                return {binary<T, T, min_op>, nullptr};
            case ir::op::EQ:
                return {binary<T, bool, eq_op>, nullptr};
            case ir::op::NE:
                return {binary<T, bool, ne_op>, nullptr};
            case ir::op::LT:
                return {binary<T, bool, lt_op>, nullptr};
            case ir::op::LE:
                return {binary<T, bool, le_op>, nullptr};
            case ir::op::GT:
                return {binary<T, bool, gt_op>, nullptr};
            case ir::op::GE:
                return {binary<T, bool, ge_op>, nullptr};
            case ir::op::BITWISE_AND:
            case ir::op::BITWISE_OR:
            case ir::op::BITWISE_XOR:
                if constexpr (!is_float)
                {
                    if (code == ir::op::BITWISE_AND)
                    {
                        return {binary<T, T, and_op>, nullptr};
                    }
                    if (code == ir::op::BITWISE_OR)
                    {
                        return {binary<T, T, or_op>, nullptr};
                    }
                    return {binary<T, T, xor_op>, nullptr};
                }
                break;
            case ir::op::LOGICAL_AND:
            case ir::op::LOGICAL_OR:
            case ir::op::LOGICAL_XOR:
            case ir::op::LOGICAL_NOT:
                // Logic runs on operands cast to bool (the caller inserts the casts).
                if constexpr (is_bool)
                {
                    if (code == ir::op::LOGICAL_AND)
                    {
                        return {binary<bool, bool, land_op>, nullptr};
                    }
                    if (code == ir::op::LOGICAL_OR)
                    {
                        return {binary<bool, bool, lor_op>, nullptr};
                    }
                    if (code == ir::op::LOGICAL_XOR)
                    {
                        return {binary<bool, bool, lxor_op>, nullptr};
                    }
                    return {unary<bool, bool, not_op>, nullptr};
                }
                break;
            case ir::op::NEG:
                if constexpr (!is_bool)
                {
                    return {unary<T, T, neg_op>, nullptr};
                }
                break;
            case ir::op::ABS:
                return {unary<T, T, abs_op>, nullptr};
            case ir::op::SQUARE:
                return {unary<T, T, square_op>, nullptr};
            default:
                break;
            }
            return {};
        }

        template <class From, class To>
        void cast(char** args, const std::intptr_t* dims, const std::intptr_t* steps, void*)
        {
            const std::intptr_t n = dims[0];
            char* a = args[0];
            char* o = args[1];
            if (steps[0] == sizeof(From) && steps[1] == sizeof(To))
            {
                const From* s = reinterpret_cast<const From*>(a);
                To* d = reinterpret_cast<To*>(o);
                for (std::intptr_t i = 0; i < n; ++i)
                {
                    d[i] = static_cast<To>(s[i]);
                }
                return;
            }
            for (std::intptr_t i = 0; i < n; ++i, a += steps[0], o += steps[1])
            {
                *reinterpret_cast<To*>(o) = static_cast<To>(*reinterpret_cast<const From*>(a));
            }
        }

        // The unsigned integer of T's size (the select copies bits).
        template <class T>
        using same_size_uint = std::conditional_t<
            sizeof(T) == 1, std::uint8_t,
            std::conditional_t<sizeof(T) == 2, std::uint16_t,
                               std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;

        // A select on contiguous condition and output, each value operand
        // contiguous (step T) or one value (step 0). Bits are chosen through
        // a mask: a branch per element mispredicts on data like ReLU's sign
        // pattern, and the masked form vectorises. The bits are copied, so
        // NaN payloads and signed zeros stay as they were.
        template <class T, bool a_scalar, bool b_scalar>
        void where_contiguous(std::intptr_t n, const bool* c, const T* a, const T* b, T* o)
        {
            using bits = same_size_uint<T>;
            for (std::intptr_t i = 0; i < n; ++i)
            {
                bits x;
                bits y;
                std::memcpy(&x, a_scalar ? a : a + i, sizeof(T));
                std::memcpy(&y, b_scalar ? b : b + i, sizeof(T));
                const auto mask = static_cast<bits>(0 - static_cast<bits>(c[i]));
                const bits r = static_cast<bits>((x & mask) | (y & static_cast<bits>(~mask)));
                std::memcpy(o + i, &r, sizeof(T));
            }
        }

        template <class T>
        bool where_fast(std::intptr_t n, char** args, const std::intptr_t* steps)
        {
            constexpr auto item = static_cast<std::intptr_t>(sizeof(T));
            if constexpr (item != 1 && item != 2 && item != 4 && item != 8)
            {
                return false;
            }
            if (steps[0] != 1 || steps[3] != item || (steps[1] != item && steps[1] != 0) ||
                (steps[2] != item && steps[2] != 0))
            {
                return false;
            }
            const auto* c = reinterpret_cast<const bool*>(args[0]);
            const auto* a = reinterpret_cast<const T*>(args[1]);
            const auto* b = reinterpret_cast<const T*>(args[2]);
            auto* o = reinterpret_cast<T*>(args[3]);
            if (steps[1] == 0 && steps[2] == 0)
            {
                where_contiguous<T, true, true>(n, c, a, b, o);
            }
            else if (steps[1] == 0)
            {
                where_contiguous<T, true, false>(n, c, a, b, o);
            }
            else if (steps[2] == 0)
            {
                where_contiguous<T, false, true>(n, c, a, b, o);
            }
            else
            {
                where_contiguous<T, false, false>(n, c, a, b, o);
            }
            return true;
        }

        template <class T>
        void where(char** args, const std::intptr_t* dims, const std::intptr_t* steps, void*)
        {
            const std::intptr_t n = dims[0];
            if (where_fast<T>(n, args, steps))
            {
                return;
            }
            char* c = args[0];
            char* a = args[1];
            char* b = args[2];
            char* o = args[3];
            for (std::intptr_t i = 0; i < n;
                 ++i, c += steps[0], a += steps[1], b += steps[2], o += steps[3])
            {
                *reinterpret_cast<T*>(o) = *reinterpret_cast<const bool*>(c)
                                               ? *reinterpret_cast<const T*>(a)
                                               : *reinterpret_cast<const T*>(b);
            }
        }

        // A dtype with no C type takes the float64 loop (the IR never asks).
        template <class F>
        auto with_type(ir::dtype t, F&& f)
        {
            return with_ctype(t, f, [&] { return f(double{}); });
        }
    } // namespace

    ufunc_loop builtin_loop(ir::op code, ir::dtype loop_dtype)
    {
        return with_type(loop_dtype, [&](auto v) { return typed_loop<decltype(v)>(code); });
    }

    ufunc_loop cast_loop(ir::dtype from, ir::dtype to)
    {
        // Float -> bool is `!= 0` (NaN is true), which static_cast<bool> gives.
        return with_type(from,
                         [&](auto f)
                         {
                             return with_type(
                                 to,
                                 [&](auto t) {
                                     return ufunc_loop{cast<decltype(f), decltype(t)>, nullptr};
                                 });
                         });
    }

    ufunc_loop where_loop(ir::dtype t)
    {
        return with_type(t, [](auto v) { return ufunc_loop{where<decltype(v)>, nullptr}; });
    }
} // namespace specula::backends::cpu
