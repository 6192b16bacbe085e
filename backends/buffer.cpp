#include "backends/buffer.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace specula::backends
{
    std::string device::to_string() const
    {
        return (kind == device_kind::cpu ? "cpu:" : "cuda:") + std::to_string(index);
    }

    namespace
    {
        std::vector<std::int64_t> c_strides(const std::vector<std::int64_t>& shape,
                                            std::int64_t item)
        {
            std::vector<std::int64_t> strides(shape.size());
            std::int64_t s = item;
            for (std::size_t d = shape.size(); d-- > 0;)
            {
                strides[d] = s;
                s *= shape[d];
            }
            return strides;
        }

        struct aligned_free
        {
            void operator()(void* p) const { std::free(p); }
        };

        std::atomic<std::int64_t> g_allocations{0};
    } // namespace

    std::int64_t buffer::allocation_count()
    {
        return g_allocations.load(std::memory_order_relaxed);
    }

    buffer buffer::view(ir::dtype elem, std::vector<std::int64_t> shape) const
    {
        buffer b = *this;
        b.m_dtype = elem;
        b.m_strides = c_strides(shape, ir::itemsize(elem));
        b.m_shape = std::move(shape);
        return b;
    }

    buffer buffer::as_read_only() const
    {
        buffer b = *this;
        b.m_read_only = true;
        return b;
    }

    result<buffer> buffer::allocate(ir::dtype elem, std::vector<std::int64_t> shape, device dev)
    {
        if (dev.kind != device_kind::cpu)
        {
            return status::unimplemented("allocation on " + dev.to_string());
        }
        std::int64_t count = 1;
        for (auto d : shape)
        {
            if (d < 0)
            {
                return status::invalid("negative dimension");
            }
            count *= d;
        }
        const auto item = static_cast<std::size_t>(ir::itemsize(elem));
        // Round up to the alignment; never allocate 0 bytes so data() is valid.
        const std::size_t bytes = (static_cast<std::size_t>(count) * item + 64) / 64 * 64;
        void* raw = std::aligned_alloc(64, bytes);
        if (raw == nullptr)
        {
            return status(status_code::out_of_memory, std::to_string(bytes) + " bytes");
        }
        std::memset(raw, 0, bytes);
        g_allocations.fetch_add(1, std::memory_order_relaxed);
        buffer b;
        b.m_owner = std::shared_ptr<void>(raw, aligned_free{});
        b.m_data = static_cast<std::byte*>(raw);
        b.m_dtype = elem;
        b.m_device = dev;
        b.m_strides = c_strides(shape, static_cast<std::int64_t>(item));
        b.m_shape = std::move(shape);
        return b;
    }

    buffer buffer::borrow(void* data, ir::dtype elem, std::vector<std::int64_t> shape,
                          std::vector<std::int64_t> strides, device dev,
                          std::shared_ptr<void> keep_alive)
    {
        buffer b;
        b.m_owner = std::move(keep_alive);
        b.m_data = static_cast<std::byte*>(data);
        b.m_dtype = elem;
        b.m_device = dev;
        b.m_strides = strides.empty() ? c_strides(shape, ir::itemsize(elem)) : std::move(strides);
        b.m_shape = std::move(shape);
        return b;
    }

    std::int64_t buffer::size() const
    {
        std::int64_t n = 1;
        for (auto d : m_shape)
        {
            n *= d;
        }
        return n;
    }

    std::size_t buffer::itemsize() const
    {
        return static_cast<std::size_t>(ir::itemsize(m_dtype));
    }

    bool buffer::is_contiguous() const
    {
        auto expect = static_cast<std::int64_t>(itemsize());
        for (std::size_t d = m_shape.size(); d-- > 0;)
        {
            if (m_shape[d] != 1 && m_strides[d] != expect)
            {
                return false;
            }
            expect *= m_shape[d];
        }
        return true;
    }

    namespace
    {
        template <class T>
        T read(const std::byte* p)
        {
            T v;
            std::memcpy(&v, p, sizeof(T));
            return v;
        }

        // Byte offset of element i in C order.
        std::int64_t offset_of(const buffer& b, std::int64_t i)
        {
            std::int64_t off = 0;
            for (int d = b.rank() - 1; d >= 0; --d)
            {
                const auto extent = b.shape()[static_cast<std::size_t>(d)];
                off += (i % extent) * b.strides()[static_cast<std::size_t>(d)];
                i /= extent;
            }
            return off;
        }
    } // namespace

    double buffer::element_as_double(std::int64_t i) const
    {
        const std::byte* p = m_data + offset_of(*this, i);
        switch (m_dtype)
        {
        case ir::dtype::bool_:
            return read<bool>(p) ? 1.0 : 0.0;
        case ir::dtype::int8:
            return read<std::int8_t>(p);
        case ir::dtype::int16:
            return read<std::int16_t>(p);
        case ir::dtype::int32:
            return read<std::int32_t>(p);
        case ir::dtype::int64:
            return static_cast<double>(read<std::int64_t>(p));
        case ir::dtype::uint8:
            return read<std::uint8_t>(p);
        case ir::dtype::float32:
            return read<float>(p);
        case ir::dtype::float64:
            break;
        }
        return read<double>(p);
    }

    std::int64_t buffer::element_as_int(std::int64_t i) const
    {
        if (ir::is_float(m_dtype))
        {
            return static_cast<std::int64_t>(element_as_double(i));
        }
        if (m_dtype == ir::dtype::int64)
        {
            return read<std::int64_t>(m_data + offset_of(*this, i));
        }
        return static_cast<std::int64_t>(element_as_double(i));
    }
} // namespace specula::backends
