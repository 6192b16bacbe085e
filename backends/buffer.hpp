#pragma once

// An n-d array of one dtype on one device: the unit of data a kernel reads
// and writes. Copies share the bytes and the ownership (a shared handle), so
// passing a buffer through control flow is cheap, and the executor can tell
// from use_count() whether anybody still holds memory it wants to reuse.
// Shape and strides live in an immutable shared layout, so copying a buffer
// never allocates. The arena's views of its own blocks hold no reference at
// all (no atomic counting per op, which costs ~20 ns a count here): a copy of
// such a view takes real references, so only the value table holds them.

#include "backends/device.hpp"
#include "backends/status.hpp"
#include "ir/dtype.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace specula::backends
{
    // Sizes and byte strides of a buffer; immutable once shared.
    struct buffer_layout
    {
        std::vector<std::int64_t> shape;
        std::vector<std::int64_t> strides;
    };
    using layout_ref = std::shared_ptr<const buffer_layout>;

    class buffer
    {
    public:
        buffer() = default;
        buffer(const buffer& other);
        buffer& operator=(const buffer& other);
        buffer(buffer&& other) noexcept;
        buffer& operator=(buffer&& other) noexcept;
        ~buffer() = default;

        // Fresh C-contiguous host memory, 64-byte aligned, zero-filled.
        static result<buffer> allocate(ir::dtype elem, std::vector<std::int64_t> shape,
                                       device dev = {});
        // A view of memory someone else owns (a NumPy array, zero-copy).
        // `keep_alive` is held for as long as any copy of this buffer lives.
        // Strides are in bytes; empty strides mean C-contiguous.
        static buffer borrow(void* data, ir::dtype elem, std::vector<std::int64_t> shape,
                             std::vector<std::int64_t> strides = {}, device dev = {},
                             std::shared_ptr<void> keep_alive = {});

        // The same through a layout the caller keeps across calls (the engine's
        // runner caches one per input): no allocation.
        static buffer borrow(void* data, ir::dtype elem, layout_ref layout, device dev = {});

        // The same bytes seen as `elem` with C-order `shape`, keeping them alive.
        buffer view(ir::dtype elem, std::vector<std::int64_t> shape) const;
        // The same bytes seen through a layout made by c_layout() (the arena
        // caches them so a run's views allocate nothing).
        buffer view(ir::dtype elem, layout_ref layout) const;
        static layout_ref c_layout(ir::dtype elem, std::vector<std::int64_t> shape);
        // A view of these bytes starting `byte_offset` in, through `layout`
        // (any strides: transposed, sliced, broadcast). It holds a real
        // reference, so the memory it reads stays put while it lives, and it
        // is marked is_view() (an output that is a view is copied out).
        buffer strided_view(std::int64_t byte_offset, layout_ref layout) const;
        // For the arena only: a view of `block` through `layout` that holds no
        // reference. Both must stay put (and `block` keep its bytes) while the
        // view lives; copies of it hold real references.
        static buffer arena_view(const buffer& block, ir::dtype elem, const layout_ref& layout);
        // The same, made in place (the executor's per-op path).
        void set_arena_view(const buffer& block, ir::dtype elem, const layout_ref& layout);
        // Back to the null buffer; free of atomic counts for an arena view.
        void reset();
        // Whether this buffer already is what `*this = other` would make it
        // (the same bytes, layout, flags and owner, holding real references):
        // the executor then skips the assignment and its four atomic counts.
        // A loop's carried table updated in place is handed back to itself
        // at every trip, a branch's constant result at every node.
        bool is_copy_of(const buffer& other) const;
        // `*this = other`, skipped when it would change nothing.
        void assign(const buffer& other)
        {
            if (!is_copy_of(other))
            {
                *this = other;
            }
        }
        bool is_arena_view() const { return p_block != nullptr; }
        // A copy whose bytes may not be written by whoever receives it (constants
        // shared by every run); the flag survives copies and views.
        buffer as_read_only() const;

        // Owning allocations made by allocate() since the process started: the
        // hook tests use to prove a run allocated nothing.
        static std::int64_t allocation_count();

        bool is_null() const { return m_data == nullptr; }
        bool is_read_only() const { return m_read_only; }
        // Made by strided_view(): it reads memory another value owns.
        bool is_view() const { return m_view; }
        // How many handles share the bytes (0 for an unowned borrow).
        long use_count() const { return m_owner.use_count(); }
        ir::dtype dtype() const { return m_dtype; }
        const device& where() const { return m_device; }
        int rank() const { return static_cast<int>(shape().size()); }
        const std::vector<std::int64_t>& shape() const
        {
            return p_layout != nullptr ? p_layout->shape : empty_dims();
        }
        const std::vector<std::int64_t>& strides() const
        {
            return p_layout != nullptr ? p_layout->strides : empty_dims();
        }
        std::byte* data() const { return m_data; }
        std::int64_t size() const
        {
            std::int64_t n = 1;
            for (auto d : shape())
            {
                n *= d;
            }
            return n;
        }
        std::size_t itemsize() const { return static_cast<std::size_t>(ir::itemsize(m_dtype)); }
        bool is_contiguous() const;

        // Element i (C order) widened, for tests, dumps and 0-d control values.
        double element_as_double(std::int64_t i = 0) const;
        std::int64_t element_as_int(std::int64_t i = 0) const;

    private:
        static const std::vector<std::int64_t>& empty_dims();

        std::shared_ptr<void> m_owner;
        std::byte* m_data = nullptr;
        ir::dtype m_dtype = ir::dtype::float64;
        device m_device;
        layout_ref m_layout;                      // null: rank 0, or an arena view
        const buffer_layout* p_layout = nullptr;  // what shape()/strides() read
        const buffer* p_block = nullptr;          // arena view: the block it views
        const layout_ref* p_layout_ref = nullptr; // arena view: its layout's owner
        bool m_read_only = false;
        bool m_view = false;
    };
} // namespace specula::backends
