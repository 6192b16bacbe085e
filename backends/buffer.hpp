#pragma once

// An n-d array of one dtype on one device: the unit of data a kernel reads
// and writes. Copies share the bytes (SSA values are never written after
// their kernel ran), so passing a buffer through control flow is cheap.

#include "backends/device.hpp"
#include "backends/status.hpp"
#include "ir/dtype.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace specula::backends
{
    class buffer
    {
    public:
        buffer() = default;

        // Fresh C-contiguous host memory, 64-byte aligned, zero-filled.
        static result<buffer> allocate(ir::dtype elem, std::vector<std::int64_t> shape,
                                       device dev = {});
        // A view of memory someone else owns (a NumPy array, zero-copy).
        // `keep_alive` is held for as long as any copy of this buffer lives.
        // Strides are in bytes; empty strides mean C-contiguous.
        static buffer borrow(void* data, ir::dtype elem, std::vector<std::int64_t> shape,
                             std::vector<std::int64_t> strides = {}, device dev = {},
                             std::shared_ptr<void> keep_alive = {});

        bool is_null() const { return m_data == nullptr; }
        ir::dtype dtype() const { return m_dtype; }
        const device& where() const { return m_device; }
        int rank() const { return static_cast<int>(m_shape.size()); }
        const std::vector<std::int64_t>& shape() const { return m_shape; }
        const std::vector<std::int64_t>& strides() const { return m_strides; }
        std::byte* data() const { return m_data; }
        std::int64_t size() const;
        std::size_t itemsize() const;
        bool is_contiguous() const;

        // Element i (C order) widened, for tests, dumps and 0-d control values.
        double element_as_double(std::int64_t i = 0) const;
        std::int64_t element_as_int(std::int64_t i = 0) const;

    private:
        std::shared_ptr<void> m_owner;
        std::byte* m_data = nullptr;
        ir::dtype m_dtype = ir::dtype::float64;
        device m_device;
        std::vector<std::int64_t> m_shape;
        std::vector<std::int64_t> m_strides;
    };
} // namespace specula::backends
