#pragma once

// The reference backend's own element-type tag. It mirrors the IR dtypes the
// reference implements so the kernels compile without the graph types, and so
// one switch (`visit_scalar`) is the only place where a runtime dtype becomes a
// C++ type.

#include <cstddef>
#include <cstdint>

namespace specula::backends::reference
{
    enum class scalar : std::uint8_t
    {
        b1,
        i8,
        i16,
        i32,
        i64,
        u8,
        u16,
        u32,
        u64,
        f32,
        f64,
    };

    inline constexpr int scalar_count = 11;

    template <class T>
    struct tag
    {
        using type = T;
    };

    template <class F>
    decltype(auto) visit_scalar(scalar s, F&& f)
    {
        switch (s)
        {
        case scalar::b1:
            return f(tag<bool>{});
        case scalar::i8:
            return f(tag<std::int8_t>{});
        case scalar::i16:
            return f(tag<std::int16_t>{});
        case scalar::i32:
            return f(tag<std::int32_t>{});
        case scalar::i64:
            return f(tag<std::int64_t>{});
        case scalar::u8:
            return f(tag<std::uint8_t>{});
        case scalar::u16:
            return f(tag<std::uint16_t>{});
        case scalar::u32:
            return f(tag<std::uint32_t>{});
        case scalar::u64:
            return f(tag<std::uint64_t>{});
        case scalar::f32:
            return f(tag<float>{});
        case scalar::f64:
            break;
        }
        return f(tag<double>{});
    }

    template <class T>
    constexpr scalar scalar_of();

    std::size_t scalar_size(scalar s);
    const char* scalar_name(scalar s);
    bool is_float(scalar s);
    bool is_signed_int(scalar s);
    bool is_unsigned_int(scalar s);

    // NumPy's array-level promotion (np.result_type on two arrays, no
    // value-based casting: the converter makes scalar operands explicit).
    scalar promote(scalar a, scalar b);

    template <>
    constexpr scalar scalar_of<bool>()
    {
        return scalar::b1;
    }
    template <>
    constexpr scalar scalar_of<std::int8_t>()
    {
        return scalar::i8;
    }
    template <>
    constexpr scalar scalar_of<std::int16_t>()
    {
        return scalar::i16;
    }
    template <>
    constexpr scalar scalar_of<std::int32_t>()
    {
        return scalar::i32;
    }
    template <>
    constexpr scalar scalar_of<std::int64_t>()
    {
        return scalar::i64;
    }
    template <>
    constexpr scalar scalar_of<std::uint8_t>()
    {
        return scalar::u8;
    }
    template <>
    constexpr scalar scalar_of<std::uint16_t>()
    {
        return scalar::u16;
    }
    template <>
    constexpr scalar scalar_of<std::uint32_t>()
    {
        return scalar::u32;
    }
    template <>
    constexpr scalar scalar_of<std::uint64_t>()
    {
        return scalar::u64;
    }
    template <>
    constexpr scalar scalar_of<float>()
    {
        return scalar::f32;
    }
    template <>
    constexpr scalar scalar_of<double>()
    {
        return scalar::f64;
    }
} // namespace specula::backends::reference
