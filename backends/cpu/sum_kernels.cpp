// sum / mean of float32 and float64 in NumPy 1.24's order: the reduced
// trailing run of each output element is cut into 8192-element chunks (the
// iterator's buffer), each chunk summed pairwise (pairwise.hpp), and the chunk
// sums added in order to an accumulator that starts at 0. Two lanes split the
// rows, or for a single row the chunks: the chunk sums are independent tree
// nodes, only their in-order accumulation is sequential, so the split cannot
// change a bit.

#include "backends/cpu/cpu_backend.hpp"
#include "backends/cpu/threading.hpp"
#include "backends/reference/pairwise.hpp"

#include <vector>

namespace specula::backends::cpu
{
    namespace
    {
        using reference::numpy_buffer_size;
        using reference::pairwise_sum;

        template <class T>
        class sum_kernel final : public kernel
        {
        public:
            sum_kernel(std::int64_t rows, std::int64_t len, bool mean,
                       std::shared_ptr<thread_pool> pool)
                : m_rows(rows), m_len(len), m_mean(mean), m_pool(std::move(pool)),
                  m_partials(
                      static_cast<std::size_t>((len + numpy_buffer_size - 1) / numpy_buffer_size))
            {
            }

        private:
            T row_sum(const T* a) const
            {
                T acc = T(0);
                for (std::int64_t s = 0; s < m_len; s += numpy_buffer_size)
                {
                    acc += pairwise_sum(a + s, std::min(numpy_buffer_size, m_len - s));
                }
                return acc;
            }

            T finish(T acc) const
            {
                return m_mean ? static_cast<T>(acc / static_cast<T>(m_len)) : acc;
            }

            status run_impl(const kernel_io& io) const override
            {
                const buffer& in = io.in(0);
                if (!in.is_contiguous())
                {
                    return status::unimplemented("strided sum input");
                }
                const T* a = reinterpret_cast<const T*>(in.data());
                T* out = reinterpret_cast<T*>(io.out(0).data());
                const bool big = m_rows * m_len >= parallel_min_elements && m_pool->lanes() > 1;
                if (!big)
                {
                    for (std::int64_t r = 0; r < m_rows; ++r)
                    {
                        out[r] = finish(row_sum(a + r * m_len));
                    }
                    return status::ok();
                }
                if (m_rows >= m_pool->lanes())
                {
                    m_pool->run_split(m_rows, m_len,
                                      [&](int, std::int64_t r0, std::int64_t r1)
                                      {
                                          for (std::int64_t r = r0; r < r1; ++r)
                                          {
                                              out[r] = finish(row_sum(a + r * m_len));
                                          }
                                      });
                    return status::ok();
                }
                for (std::int64_t r = 0; r < m_rows; ++r)
                {
                    const T* row = a + r * m_len;
                    const auto chunks = static_cast<std::int64_t>(m_partials.size());
                    // Each 8192-element chunk is one of NumPy's buffers,
                    // summed pairwise by whichever lane claims it; the
                    // partials are then added in order, as NumPy does.
                    m_pool->run_split(
                        chunks, numpy_buffer_size,
                        [&](int, std::int64_t c0, std::int64_t c1)
                        {
                            for (std::int64_t c = c0; c < c1; ++c)
                            {
                                const std::int64_t s = c * numpy_buffer_size;
                                m_partials[static_cast<std::size_t>(c)] =
                                    pairwise_sum(row + s, std::min(numpy_buffer_size, m_len - s));
                            }
                        });
                    T acc = T(0);
                    for (T part : m_partials)
                    {
                        acc += part;
                    }
                    out[r] = finish(acc);
                }
                return status::ok();
            }

            std::int64_t m_rows;
            std::int64_t m_len;
            bool m_mean;
            std::shared_ptr<thread_pool> m_pool;
            mutable std::vector<T> m_partials; // one per chunk, sized at compile time
        };
    } // namespace

    result<std::unique_ptr<kernel>> make_sum_kernel(const ir::graph& g, const ir::node& n,
                                                    const kernel_context& ctx)
    {
        if (n.code != ir::op::SUM && n.code != ir::op::MEAN)
        {
            return status::unimplemented("not sum/mean");
        }
        const auto& tin = g.type_of(n.inputs[0]);
        const ir::dtype t = g.type_of(n.outputs[0]).elem;
        auto sizes = tin.dims.static_sizes();
        if (!ir::is_float(t) || tin.elem != t || !sizes)
        {
            return status::unimplemented("pairwise path: float in, same dtype out, static shape");
        }
        const auto& attr = n.attr_as<ir::reduce_attr>();
        const int rank = static_cast<int>(sizes->size());
        std::vector<bool> reduced(static_cast<std::size_t>(rank), attr.all_axes);
        for (std::int64_t ax : attr.axes)
        {
            reduced[static_cast<std::size_t>(((ax % rank) + rank) % rank)] = true;
        }
        // After dropping size-1 dims the reduced dims must be one trailing run.
        std::int64_t rows = 1;
        std::int64_t len = 1;
        bool in_tail = false;
        for (int d = 0; d < rank; ++d)
        {
            const std::int64_t size = (*sizes)[static_cast<std::size_t>(d)];
            if (size == 1)
            {
                continue;
            }
            if (reduced[static_cast<std::size_t>(d)])
            {
                in_tail = true;
                len *= size;
            }
            else if (in_tail)
            {
                return status::unimplemented("pairwise path: reduced dims not trailing");
            }
            else
            {
                rows *= size;
            }
        }
        if (len == 0 || rows == 0)
        {
            return status::unimplemented("empty reduction");
        }
        const bool mean = n.code == ir::op::MEAN;
        if (t == ir::dtype::float64)
        {
            return std::unique_ptr<kernel>(new sum_kernel<double>(rows, len, mean, ctx.pool));
        }
        return std::unique_ptr<kernel>(new sum_kernel<float>(rows, len, mean, ctx.pool));
    }
} // namespace specula::backends::cpu
