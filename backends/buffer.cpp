#include "backends/buffer.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>

#include <sys/mman.h>

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

        // NumPy (1.24, alloc.c) advises data of 4 MiB and more into transparent
        // huge pages; with THP in `madvise` mode (Debian's default) memory
        // without the advice gets 4 KiB pages, and a kernel streaming over a
        // 16M-element buffer pays TLB misses NumPy does not. Large blocks are
        // aligned to the huge page, so the whole block can be huge.
        constexpr std::size_t huge_from = std::size_t(1) << 22;
        constexpr std::size_t huge_page = std::size_t(1) << 21;

        // The bytes of an owning allocation, 64-byte aligned (huge-page aligned
        // and advised from huge_from); nullptr when out of memory.
        void* allocate_bytes(std::size_t& bytes)
        {
            if (bytes < huge_from)
            {
                return std::aligned_alloc(64, bytes);
            }
            bytes = (bytes + huge_page - 1) / huge_page * huge_page;
            void* raw = std::aligned_alloc(huge_page, bytes);
            if (raw != nullptr)
            {
                // A hint: a kernel without THP answers an error, which changes
                // nothing (NumPy ignores it too). Before the first touch, so
                // the pages faulted in are huge ones.
                madvise(raw, bytes, MADV_HUGEPAGE);
            }
            return raw;
        }
    } // namespace

    std::int64_t buffer::allocation_count()
    {
        return g_allocations.load(std::memory_order_relaxed);
    }

    const std::vector<std::int64_t>& buffer::empty_dims()
    {
        static const std::vector<std::int64_t> none;
        return none;
    }

    layout_ref buffer::c_layout(ir::dtype elem, std::vector<std::int64_t> shape)
    {
        auto l = std::make_shared<buffer_layout>();
        l->strides = c_strides(shape, ir::itemsize(elem));
        l->shape = std::move(shape);
        return l;
    }

    buffer buffer::view(ir::dtype elem, std::vector<std::int64_t> shape) const
    {
        return view(elem, c_layout(elem, std::move(shape)));
    }

    buffer buffer::view(ir::dtype elem, layout_ref layout) const
    {
        buffer b = *this;
        b.m_dtype = elem;
        b.m_layout = std::move(layout);
        b.p_layout = b.m_layout.get();
        return b;
    }

    buffer buffer::strided_view(std::int64_t byte_offset, layout_ref layout) const
    {
        buffer b = *this; // an arena view's copy takes real references
        b.m_data += byte_offset;
        b.m_layout = std::move(layout);
        b.p_layout = b.m_layout.get();
        b.m_view = true;
        return b;
    }

    buffer buffer::arena_view(const buffer& block, ir::dtype elem, const layout_ref& layout)
    {
        buffer b;
        b.set_arena_view(block, elem, layout);
        return b;
    }

    void buffer::set_arena_view(const buffer& block, ir::dtype elem, const layout_ref& layout)
    {
        reset();
        m_data = block.m_data;
        m_dtype = elem;
        m_device = block.m_device;
        p_layout = layout.get();
        p_block = &block;
        p_layout_ref = &layout;
    }

    void buffer::reset()
    {
        if (m_owner)
        {
            m_owner.reset();
        }
        if (m_layout)
        {
            m_layout.reset();
        }
        m_data = nullptr;
        p_layout = nullptr;
        p_block = nullptr;
        p_layout_ref = nullptr;
        m_read_only = false;
        m_view = false;
    }

    buffer::buffer(const buffer& other)
        : m_owner(other.m_owner), m_data(other.m_data), m_dtype(other.m_dtype),
          m_device(other.m_device), m_layout(other.m_layout), p_layout(other.p_layout),
          m_read_only(other.m_read_only), m_view(other.m_view)
    {
        if (other.p_block == nullptr)
        {
            return;
        }
        // A copy of an arena view owns what it shows. A view that outlived
        // its block would be an executor bug: the copy is then null, which
        // every reader reports as an internal error instead of reading freed
        // bytes.
        if (other.p_block->m_data != other.m_data || other.p_layout_ref->get() != other.p_layout)
        {
            *this = buffer{};
            return;
        }
        m_owner = other.p_block->m_owner;
        m_layout = *other.p_layout_ref;
    }

    bool buffer::is_copy_of(const buffer& other) const
    {
        if (p_block != nullptr || m_data != other.m_data || p_layout != other.p_layout ||
            m_dtype != other.m_dtype || m_read_only != other.m_read_only ||
            m_view != other.m_view || m_device != other.m_device)
        {
            return false;
        }
        if (other.p_block == nullptr)
        {
            return !m_owner.owner_before(other.m_owner) && !other.m_owner.owner_before(m_owner);
        }
        // A copy of an arena view owns its block (or is null when the view
        // outlived it, see the copy constructor).
        const std::shared_ptr<void>& owner = other.p_block->m_owner;
        return other.p_block->m_data == other.m_data &&
               other.p_layout_ref->get() == other.p_layout && !m_owner.owner_before(owner) &&
               !owner.owner_before(m_owner);
    }

    buffer& buffer::operator=(const buffer& other)
    {
        if (this != &other)
        {
            buffer copy(other);
            *this = std::move(copy);
        }
        return *this;
    }

    buffer::buffer(buffer&& other) noexcept
        : m_owner(std::move(other.m_owner)), m_data(other.m_data), m_dtype(other.m_dtype),
          m_device(other.m_device), m_layout(std::move(other.m_layout)), p_layout(other.p_layout),
          p_block(other.p_block), p_layout_ref(other.p_layout_ref), m_read_only(other.m_read_only),
          m_view(other.m_view)
    {
        other.m_data = nullptr;
        other.p_layout = nullptr;
        other.p_block = nullptr;
        other.p_layout_ref = nullptr;
    }

    buffer& buffer::operator=(buffer&& other) noexcept
    {
        if (this != &other)
        {
            // Arena views have empty handles: skip them without touching counts.
            if (m_owner || other.m_owner)
            {
                m_owner = std::move(other.m_owner);
            }
            if (m_layout || other.m_layout)
            {
                m_layout = std::move(other.m_layout);
            }
            m_data = other.m_data;
            m_dtype = other.m_dtype;
            m_device = other.m_device;
            p_layout = other.p_layout;
            p_block = other.p_block;
            p_layout_ref = other.p_layout_ref;
            m_read_only = other.m_read_only;
            m_view = other.m_view;
            other.m_data = nullptr;
            other.p_layout = nullptr;
            other.p_block = nullptr;
            other.p_layout_ref = nullptr;
        }
        return *this;
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
        std::size_t bytes = (static_cast<std::size_t>(count) * item + 64) / 64 * 64;
        void* raw = allocate_bytes(bytes);
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
        b.m_layout = c_layout(elem, std::move(shape));
        b.p_layout = b.m_layout.get();
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
        if (strides.empty())
        {
            b.m_layout = c_layout(elem, std::move(shape));
        }
        else
        {
            auto l = std::make_shared<buffer_layout>();
            l->shape = std::move(shape);
            l->strides = std::move(strides);
            b.m_layout = std::move(l);
        }
        b.p_layout = b.m_layout.get();
        return b;
    }

    buffer buffer::borrow(void* data, ir::dtype elem, layout_ref layout, device dev)
    {
        buffer b;
        b.m_data = static_cast<std::byte*>(data);
        b.m_dtype = elem;
        b.m_device = dev;
        b.m_layout = std::move(layout);
        b.p_layout = b.m_layout.get();
        return b;
    }

    bool buffer::is_contiguous() const
    {
        auto expect = static_cast<std::int64_t>(itemsize());
        const auto& sizes = shape();
        const auto& steps = strides();
        for (std::size_t d = sizes.size(); d-- > 0;)
        {
            if (sizes[d] != 1 && steps[d] != expect)
            {
                return false;
            }
            expect *= sizes[d];
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
