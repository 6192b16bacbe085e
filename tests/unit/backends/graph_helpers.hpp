#pragma once

// Small helpers for tests that build IR graphs and run them on a backend.

#include "backends/buffer.hpp"
#include "ir/dtype.hpp"

#include <cstring>
#include <vector>

namespace specula::backends::testing
{
    template <class T>
    buffer make_buffer(ir::dtype elem, std::vector<std::int64_t> shape,
                       const std::vector<T>& values)
    {
        auto b = buffer::allocate(elem, std::move(shape));
        std::memcpy(b->data(), values.data(), values.size() * sizeof(T));
        return b.value();
    }

    inline buffer f64(std::vector<std::int64_t> shape, const std::vector<double>& values)
    {
        return make_buffer(ir::dtype::float64, std::move(shape), values);
    }

    inline buffer i64(std::vector<std::int64_t> shape, const std::vector<std::int64_t>& values)
    {
        return make_buffer(ir::dtype::int64, std::move(shape), values);
    }

    inline std::vector<double> doubles(const buffer& b)
    {
        std::vector<double> out;
        for (std::int64_t i = 0; i < b.size(); ++i)
        {
            out.push_back(b.element_as_double(i));
        }
        return out;
    }
} // namespace specula::backends::testing
