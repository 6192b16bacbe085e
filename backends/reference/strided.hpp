#pragma once

// A strided n-d view over raw memory, the only array abstraction the reference
// kernels see. Fixed-capacity arrays keep views allocation-free, so kernels can
// build and broadcast them on every run.

#include "backends/reference/scalar.hpp"

#include <array>
#include <cstddef>
#include <cstdint>

namespace specula::backends::reference
{
    inline constexpr int max_rank = 16;

    using dims = std::array<std::int64_t, max_rank>;

    struct strided_view
    {
        std::byte* data = nullptr;
        scalar type = scalar::f64;
        int rank = 0;
        dims shape{};
        dims strides{}; // in bytes

        std::int64_t size() const;
        bool is_contiguous() const;
    };

    // A C-contiguous view of `data`; the rank must be at most max_rank.
    strided_view contiguous_view(void* data, scalar type, int rank, const std::int64_t* shape);

    // NumPy broadcasting of two shapes; false when they are incompatible.
    bool broadcast_shapes(int rank_a, const std::int64_t* a, int rank_b, const std::int64_t* b,
                          int& rank_out, dims& out);

    // `v` seen with shape `shape` (right-aligned, size-1 dims get stride 0);
    // false when `v` cannot be broadcast to it.
    bool broadcast_view(const strided_view& v, int rank, const std::int64_t* shape,
                        strided_view& out);

    // Calls f(ptrs) once per element in C order, advancing N operand pointers
    // by their own strides over a common shape.
    template <std::size_t N, class F>
    void for_each_element(int rank, const std::int64_t* shape, std::array<std::byte*, N> base,
                          const std::array<const std::int64_t*, N>& strides, F&& f)
    {
        for (int d = 0; d < rank; ++d)
        {
            if (shape[d] == 0)
            {
                return;
            }
        }
        if (rank == 0)
        {
            f(base);
            return;
        }
        dims idx{};
        const int inner = rank - 1;
        for (;;)
        {
            auto p = base;
            for (std::int64_t n = 0; n < shape[inner]; ++n)
            {
                f(p);
                for (std::size_t k = 0; k < N; ++k)
                {
                    p[k] += strides[k][inner];
                }
            }
            int d = inner - 1;
            for (; d >= 0; --d)
            {
                ++idx[d];
                for (std::size_t k = 0; k < N; ++k)
                {
                    base[k] += strides[k][d];
                }
                if (idx[d] < shape[d])
                {
                    break;
                }
                for (std::size_t k = 0; k < N; ++k)
                {
                    base[k] -= strides[k][d] * shape[d];
                }
                idx[d] = 0;
            }
            if (d < 0)
            {
                return;
            }
        }
    }

    template <class T>
    T load(const std::byte* p)
    {
        T v;
        __builtin_memcpy(&v, p, sizeof(T));
        return v;
    }

    template <class T>
    void store(std::byte* p, T v)
    {
        __builtin_memcpy(p, &v, sizeof(T));
    }

    // Reads one element of runtime type `from` converted to T with NumPy's
    // casting (C conversion; bool is "non-zero").
    template <class T>
    T load_as(const std::byte* p, scalar from)
    {
        return visit_scalar(from,
                            [p](auto t) -> T
                            {
                                using s = typename decltype(t)::type;
                                if constexpr (std::is_same_v<T, bool>)
                                {
                                    return load<s>(p) != s(0);
                                }
                                else
                                {
                                    return static_cast<T>(load<s>(p));
                                }
                            });
    }
} // namespace specula::backends::reference
