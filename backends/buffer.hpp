#pragma once

// An n-d array of one dtype on one device: the unit of data a kernel reads
// and writes. Copies share the bytes and the ownership (a shared handle), so
// passing a buffer through control flow is cheap, and the executor can tell
// from use_count() whether anybody still holds memory it wants to reuse.

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

        // The same bytes seen as `elem` with C-order `shape`, keeping them alive.
        buffer view(ir::dtype elem, std::vector<std::int64_t> shape) const;
        // A copy whose bytes may not be written by whoever receives it (constants
        // shared by every run); the flag survives copies and views.
        buffer as_read_only() const;

        // Owning allocations made by allocate() since the process started: the
        // hook tests use to prove a run allocated nothing.
        static std::int64_t allocation_count();

        bool is_null() const { return m_data == nullptr; }
        bool is_read_only() const { return m_read_only; }
        // How many handles share the bytes (0 for an unowned borrow).
        long use_count() const { return m_owner.use_count(); }
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
        bool m_read_only = false;
    };
} // namespace specula::backends
