// Array shapes with static and symbolic dimensions.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "ir/status.hpp"

namespace specula::ir
{
    // One dimension: a known size, or a symbol `?k` standing for a size fixed per run.
    // Two dims with the same symbol are equal at run time; different symbols may differ.
    class dim
    {
    public:
        dim() = default;
        static dim fixed(std::int64_t size) { return dim(size); }
        static dim symbol(std::int32_t id) { return dim(-static_cast<std::int64_t>(id) - 1); }

        bool is_static() const { return m_raw >= 0; }
        bool is_symbolic() const { return m_raw < 0; }
        // Only meaningful when is_static().
        std::int64_t size() const { return m_raw; }
        // Only meaningful when is_symbolic().
        std::int32_t symbol_id() const { return static_cast<std::int32_t>(-m_raw - 1); }
        bool is(std::int64_t size) const { return m_raw == size; }

        bool operator==(const dim& other) const { return m_raw == other.m_raw; }
        bool operator!=(const dim& other) const { return m_raw != other.m_raw; }
        std::string to_string() const;

    private:
        explicit dim(std::int64_t raw) : m_raw(raw) {}
        std::int64_t m_raw = 0;
    };

    class shape
    {
    public:
        shape() = default;
        shape(std::initializer_list<std::int64_t> sizes);
        explicit shape(std::vector<dim> dims) : m_dims(std::move(dims)) {}
        static shape scalar() { return shape(); }
        static shape of(const std::vector<std::int64_t>& sizes);

        int rank() const { return static_cast<int>(m_dims.size()); }
        const dim& operator[](int axis) const { return m_dims[static_cast<size_t>(axis)]; }
        dim& operator[](int axis) { return m_dims[static_cast<size_t>(axis)]; }
        const std::vector<dim>& dims() const { return m_dims; }
        std::vector<dim>& dims() { return m_dims; }

        bool is_static() const;
        // Product of the sizes; empty when a dim is symbolic.
        std::optional<std::int64_t> num_elements() const;
        // Sizes when all dims are static.
        std::optional<std::vector<std::int64_t>> static_sizes() const;
        // Element strides (not bytes) of a C-contiguous array of this shape.
        std::optional<std::vector<std::int64_t>> contiguous_strides() const;

        bool operator==(const shape& other) const { return m_dims == other.m_dims; }
        bool operator!=(const shape& other) const { return m_dims != other.m_dims; }
        // "[2,?0,8]"
        std::string to_string() const;

    private:
        std::vector<dim> m_dims;
    };

    // NumPy broadcasting. A symbolic dim against static 1 stays symbolic; against a
    // static n > 1 it becomes n (a run where the symbol is neither n nor 1 is an error
    // the executor reports). Two different symbols do not broadcast: the converter must
    // relax to a common symbol or keep static dims.
    result<shape> broadcast_shapes(const shape& a, const shape& b);

    // Normalise a possibly negative axis against `rank`; empty when out of range.
    std::optional<int> normalize_axis(int axis, int rank);
} // namespace specula::ir
