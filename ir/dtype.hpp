// Element types of IR values and NumPy's promotion rules over them.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace specula::ir
{
    // The dtypes Specula converts. Anything else (float16, uint16..64, complex, object)
    // makes a conversion fail, so every promotion function can answer "unsupported".
    enum class dtype : std::uint8_t
    {
        bool_,
        int8,
        int16,
        int32,
        int64,
        uint8,
        float32,
        float64,
    };

    inline constexpr int num_dtypes = 8;
    inline constexpr dtype all_dtypes[num_dtypes] = {
        dtype::bool_, dtype::int8,  dtype::int16,   dtype::int32,
        dtype::int64, dtype::uint8, dtype::float32, dtype::float64,
    };

    // NumPy's names: "bool", "int8", ..., "float64".
    std::string_view dtype_name(dtype t);
    // Short form used by the text printer: b1 i8 i16 i32 i64 u8 f32 f64.
    std::string_view dtype_short_name(dtype t);
    std::optional<dtype> dtype_from_name(std::string_view name);

    // Inline: the executor and the kernels ask it per op and per block.
    inline int itemsize(dtype t)
    {
        constexpr int sizes[num_dtypes] = {1, 1, 2, 4, 8, 1, 4, 8};
        return sizes[static_cast<int>(t)];
    }
    bool is_bool(dtype t);
    bool is_integer(dtype t); // signed or unsigned, not bool
    bool is_signed_integer(dtype t);
    bool is_unsigned_integer(dtype t);
    bool is_float(dtype t);

    // np.promote_types / np.result_type over arrays of these dtypes. Always defined:
    // the supported set is closed under array-array promotion.
    dtype promote_types(dtype a, dtype b);

    // An operand of result_type with NumPy 1.24 legacy value-based casting. Python
    // scalars and 0-d arrays are "scalars"; their value matters when arrays are present.
    struct promotion_operand
    {
        enum class kind : std::uint8_t
        {
            array,        // an array of rank >= 1
            zero_dim,     // a 0-d array or NumPy scalar of `elem`
            python_bool,  // a Python bool
            python_int,   // a Python int, value in `ival`
            python_float, // a Python float, value in `fval`
        };
        kind what = kind::array;
        dtype elem = dtype::float64; // for array and zero_dim
        std::int64_t ival = 0;       // for python_int, and integer/bool zero_dim values
        double fval = 0.0;           // for python_float and float zero_dim values
        bool has_value = true;       // a zero_dim whose value is unknown counts as an array

        static promotion_operand array_of(dtype t);
        static promotion_operand zero_dim_int(dtype t, std::int64_t v);
        static promotion_operand zero_dim_float(dtype t, double v);
        static promotion_operand py_bool(bool v);
        static promotion_operand py_int(std::int64_t v);
        static promotion_operand py_float(double v);
    };

    // np.result_type(*operands) under NumPy 1.24 (value-based casting for scalars).
    // Empty optional when the result is outside the supported dtypes (e.g. uint8 + 300
    // gives uint16 in NumPy) or the operand list is empty.
    std::optional<dtype> result_type(const std::vector<promotion_operand>& operands);
} // namespace specula::ir
