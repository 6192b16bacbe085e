#include "backends/cpu/ew_runner.hpp"

#include "backends/cpu/threading.hpp"

#include <cstring>

namespace specula::backends::cpu
{
    namespace
    {
        // Slots are spaced by a gap: NumPy's SIMD loops treat operands whose
        // ranges merely touch as overlapping and take their scalar path,
        // which rounds differently from the SIMD path NumPy itself runs.
        constexpr std::size_t slot_bytes = block_elements * 8 + 128;
        constexpr int max_dims = 16;

        // L1 data cache bytes one block's registers may fill together: half of
        // the 48 KiB per core here, the rest for the loops' own lines and
        // hardware prefetches. Blocks of 2048 float64 with five registers
        // (80 KiB) spilled to L2 and ran the fused x*y+x*y*x at 16M elements
        // ~1.5x slower than blocks of 512.
        constexpr std::int64_t l1_budget_bytes = 24 * 1024;
        // Below this a block pays more for its per-instruction calls than
        // staying in L1 saves.
        constexpr std::int64_t min_block = 256;
        // Rows at least this long are read in place by blocks cut at the row
        // ends; shorter ones would make blocks too short, and are gathered.
        constexpr std::int64_t min_direct_row = 256;

        // Every register (inputs read in place too) streams through L1.
        std::int64_t block_for(const ew_program& prog)
        {
            std::int64_t bytes = 0;
            for (const ew_reg& r : prog.m_regs)
            {
                bytes += static_cast<std::int64_t>(ir::itemsize(r.elem));
            }
            std::int64_t block = block_elements;
            while (block > min_block && block * bytes > l1_budget_bytes)
            {
                block /= 2;
            }
            return block;
        }

        template <class T>
        std::byte* copy_strided(std::byte* dst, const std::byte* p, std::int64_t n,
                                std::int64_t stride)
        {
            T* out = reinterpret_cast<T*>(dst);
            for (std::int64_t i = 0; i < n; ++i, p += stride)
            {
                std::memcpy(out + i, p, sizeof(T));
            }
            return dst + n * static_cast<std::int64_t>(sizeof(T));
        }

        // One run along the innermost dim: a view's rows are often unit-strided
        // (slices), a broadcast row has stride 0.
        std::byte* copy_run(std::byte* dst, const std::byte* p, std::int64_t n, std::int64_t stride,
                            std::size_t itemsize)
        {
            const auto item = static_cast<std::int64_t>(itemsize);
            if (stride == item)
            {
                std::memcpy(dst, p, static_cast<std::size_t>(n * item));
                return dst + n * item;
            }
            switch (itemsize)
            {
            case 8:
                return copy_strided<std::uint64_t>(dst, p, n, stride);
            case 4:
                return copy_strided<std::uint32_t>(dst, p, n, stride);
            default:
                for (std::int64_t i = 0; i < n; ++i, p += stride, dst += item)
                {
                    std::memcpy(dst, p, itemsize);
                }
                return dst;
            }
        }

        // Copies `count` elements starting at flat output index `start` of an
        // operand viewed through byte strides `strides` over `shape`.
        void gather(std::byte* dst, const std::byte* base, const std::int64_t* strides,
                    const std::vector<std::int64_t>& shape, std::int64_t start, std::int64_t count,
                    std::size_t itemsize)
        {
            const int rank = static_cast<int>(shape.size());
            std::int64_t idx[max_dims] = {};
            std::int64_t rem = start;
            for (int d = rank - 1; d >= 0; --d)
            {
                idx[d] = rem % shape[static_cast<std::size_t>(d)];
                rem /= shape[static_cast<std::size_t>(d)];
            }
            const std::int64_t inner = rank > 0 ? shape.back() : 1;
            const std::int64_t inner_stride = rank > 0 ? strides[rank - 1] : 0;
            while (count > 0)
            {
                const std::byte* p = base;
                for (int d = 0; d < rank; ++d)
                {
                    p += idx[d] * strides[d];
                }
                const std::int64_t run = std::min(count, inner - (rank > 0 ? idx[rank - 1] : 0));
                dst = copy_run(dst, p, run, inner_stride, itemsize);
                count -= run;
                // Carry into the outer dims.
                if (rank > 0)
                {
                    idx[rank - 1] = 0;
                    for (int d = rank - 2; d >= 0; --d)
                    {
                        if (++idx[d] < shape[static_cast<std::size_t>(d)])
                        {
                            break;
                        }
                        idx[d] = 0;
                    }
                }
            }
        }
    } // namespace

    namespace
    {
        // The address of flat output index `start` in an operand viewed
        // through byte strides `strides` over `shape`.
        const std::byte* element_at(const std::byte* base, const std::int64_t* strides,
                                    const std::vector<std::int64_t>& shape, std::int64_t start)
        {
            std::int64_t rem = start;
            for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d)
            {
                const std::int64_t size = shape[static_cast<std::size_t>(d)];
                base += (rem % size) * strides[d];
                rem /= size;
            }
            return base;
        }
    } // namespace

    ew_runner::ew_runner(ew_program prog, std::shared_ptr<thread_pool> pool)
        : m_prog(std::move(prog)), m_pool(std::move(pool)), m_block(block_for(m_prog))
    {
        const std::size_t slots =
            static_cast<std::size_t>(m_prog.m_num_temps) + m_prog.m_inputs.size();
        for (int lane = 0; lane < m_pool->lanes(); ++lane)
        {
            m_scratch.emplace_back(new std::byte[slots * slot_bytes + 64]);
        }
        m_operands.resize(m_prog.m_inputs.size());
    }

    // The operand's byte strides against the output's dims (0 where it
    // broadcasts), for gather().
    void ew_runner::set_strides(operand& op, const buffer& b,
                                const std::vector<std::int64_t>& shape)
    {
        const int rank = static_cast<int>(shape.size());
        const int lead = rank - b.rank();
        for (int d = 0; d < rank; ++d)
        {
            const std::int64_t size = d < lead ? 1 : b.shape()[static_cast<std::size_t>(d - lead)];
            op.strides[d] = size == 1 ? 0 : b.strides()[static_cast<std::size_t>(d - lead)];
        }
    }

    status ew_runner::run(const buffer* const* inputs, buffer* const* outputs) const
    {
        const buffer& out0 = *outputs[0];
        p_shape = &out0.shape();
        const std::vector<std::int64_t>& shape = *p_shape;
        const int rank = out0.rank();
        if (rank > max_dims)
        {
            return status::unimplemented("rank above 16");
        }
        const std::int64_t n = out0.size();
        const std::int64_t inner = rank > 0 ? shape.back() : 0;
        m_row = 0;
        for (std::size_t i = 0; i < m_operands.size(); ++i)
        {
            const buffer& b = *inputs[i];
            operand& op = m_operands[i];
            op.base = b.data();
            op.gather = false;
            op.row_direct = false;
            if (b.rank() > rank)
            {
                return status::invalid("input rank above the output's");
            }
            // Per-dim strides only matter when the operand is gathered; the
            // common cases (a scalar, an operand of the output's own C-order
            // layout) skip them: this runs once per op of a graph.
            if (b.size() == 1)
            {
                // A broadcast scalar steps 0; for a one-element result NumPy
                // calls its loop with unit steps (np.log(p[3, 0])), and its
                // SIMD loops take another path for step 0 (the last bit of
                // log differs).
                op.step = n == 1 ? static_cast<std::intptr_t>(b.itemsize()) : 0;
            }
            else if (b.shape() == shape && b.is_contiguous())
            {
                op.step = static_cast<std::intptr_t>(b.itemsize());
            }
            else
            {
                op.gather = true;
                set_strides(op, b, shape);
                // A view whose rows are unit-strided (a slice of a matrix:
                // u[1:-1, 2:]) is read in place one row at a time, as NumPy's
                // own iterator hands its loops a row, instead of being copied
                // block by block into scratch. Blocks are then cut at the row
                // ends.
                op.row_direct = rank >= 2 && inner >= min_direct_row &&
                                op.strides[rank - 1] == static_cast<std::int64_t>(b.itemsize());
                if (op.row_direct)
                {
                    m_row = inner;
                }
            }
        }
        if (n == 0)
        {
            return status::ok();
        }
        if (n < parallel_min_elements || m_pool->lanes() == 1)
        {
            run_range(0, 0, n, m_operands.data(), outputs);
            return status::ok();
        }
        // Chunks of whole blocks, claimed by whichever lane is free.
        const std::int64_t blocks = (n + m_block - 1) / m_block;
        m_pool->run_split(blocks, m_block,
                          [&](int lane, std::int64_t b0, std::int64_t b1) {
                              run_range(lane, b0 * m_block, std::min(n, b1 * m_block),
                                        m_operands.data(), outputs);
                          });
        return status::ok();
    }

    std::byte* ew_runner::lane_scratch(int lane) const
    {
        return reinterpret_cast<std::byte*>(
            (reinterpret_cast<std::uintptr_t>(m_scratch[static_cast<std::size_t>(lane)].get()) +
             63) &
            ~std::uintptr_t(63));
    }

    void ew_runner::run_range(int lane, std::int64_t begin, std::int64_t end, const operand* ops,
                              buffer* const* outputs) const
    {
        std::byte* scratch = lane_scratch(lane);
        const std::size_t nregs = m_prog.m_regs.size();
        char* ptr[max_registers]; // build_program refuses larger programs
        std::intptr_t step[max_registers];
        std::int64_t len = 0;
        for (std::int64_t s = begin; s < end; s += len)
        {
            len = std::min(m_block, end - s);
            if (m_row > 0)
            {
                len = std::min(len, m_row - s % m_row);
            }
            for (std::size_t r = 0; r < nregs; ++r)
            {
                const ew_reg& reg = m_prog.m_regs[r];
                const auto item = static_cast<std::intptr_t>(ir::itemsize(reg.elem));
                switch (reg.kind)
                {
                case reg_kind::input:
                {
                    const operand& op = ops[reg.index];
                    if (op.row_direct)
                    {
                        ptr[r] = const_cast<char*>(reinterpret_cast<const char*>(
                            element_at(op.base, op.strides, *p_shape, s)));
                        step[r] = item;
                    }
                    else if (op.gather)
                    {
                        std::byte* dst = scratch + (static_cast<std::size_t>(m_prog.m_num_temps) +
                                                    static_cast<std::size_t>(reg.index)) *
                                                       slot_bytes;
                        gather(dst, op.base, op.strides, *p_shape, s, len,
                               static_cast<std::size_t>(item));
                        ptr[r] = reinterpret_cast<char*>(dst);
                        step[r] = item;
                    }
                    else
                    {
                        ptr[r] = const_cast<char*>(reinterpret_cast<const char*>(op.base)) +
                                 (op.step == 0 ? 0 : s * item);
                        step[r] = op.step;
                    }
                    break;
                }
                case reg_kind::temp:
                    ptr[r] = reinterpret_cast<char*>(scratch + static_cast<std::size_t>(reg.index) *
                                                                   slot_bytes);
                    step[r] = item;
                    break;
                case reg_kind::output:
                    ptr[r] = reinterpret_cast<char*>(outputs[reg.index]->data()) + s * item;
                    step[r] = item;
                    break;
                }
            }
            const std::intptr_t dims[1] = {static_cast<std::intptr_t>(len)};
            for (const ew_instr& ins : m_prog.m_code)
            {
                char* args[4];
                std::intptr_t steps[4];
                for (int a = 0; a < ins.num_args; ++a)
                {
                    args[a] = ptr[ins.args[static_cast<std::size_t>(a)]];
                    steps[a] = step[ins.args[static_cast<std::size_t>(a)]];
                }
                ins.loop.fn(args, dims, steps, ins.loop.data);
            }
        }
    }
} // namespace specula::backends::cpu
