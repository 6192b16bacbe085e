// Rank-1 update chains: `x + a_0 @ b_0 + a_1 @ b_1 + ...` where every product
// has a contracted dim of 1 (column (m,1) @ row (1,p)), as a gradient summed
// over unrolled time steps (`dW += dh @ h.T`) is written. Node by node each
// step writes an (m,p) product and reads it back for the add, and the adds
// cannot be fused with each other without holding every product. As one
// kernel the accumulator row stays in L1 and each step is one pass over it.
//
// Bits: each element gets exactly the operations of the nodes it replaces,
// in their order. The product is matmul's no-BLAS loop for a contracted dim
// of 1 (blas_kernels.cpp: `0 + a*b`), then the add with the accumulator on
// the side the graph put it. Correctly rounded IEEE operations, no FMA
// (-ffp-contract=off), so vector width does not matter.

#include "backends/cpu/cpu_backend.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <tuple>

namespace specula::backends::cpu
{
    namespace
    {
        // One step of a chain: the ADD, its product (a MATMUL of a (m,1)
        // column and a (1,p) row read by nothing else) and its accumulator
        // operand.
        struct step
        {
            const ir::node* add = nullptr;
            const ir::node* product = nullptr;
            ir::value_id acc = ir::no_id;
            bool acc_left = true; // add(acc, product), else add(product, acc)
        };

        bool is_column_times_row(const ir::graph& g, const ir::node& mm, ir::dtype elem,
                                 std::int64_t m, std::int64_t p)
        {
            if (mm.code != ir::op::MATMUL || mm.inputs.size() != 2)
            {
                return false;
            }
            const ir::value_type& ta = g.type_of(mm.inputs[0]);
            const ir::value_type& tb = g.type_of(mm.inputs[1]);
            auto sa = ta.dims.static_sizes();
            auto sb = tb.dims.static_sizes();
            return ta.elem == elem && tb.elem == elem && sa && sb &&
                   *sa == std::vector<std::int64_t>{m, 1} && *sb == std::vector<std::int64_t>{1, p};
        }

        // The step `n` is, if it is one: an ADD of two (m,p) float operands
        // of its dtype, one of them a column-times-row product read only here.
        std::optional<step> step_of(const ir::graph& g, const ir::node& n,
                                    const std::vector<int>& uses)
        {
            if (n.code != ir::op::ADD || n.inputs.size() != 2 || n.outputs.size() != 1)
            {
                return std::nullopt;
            }
            const ir::value_type& t = g.type_of(n.outputs[0]);
            auto sizes = t.dims.static_sizes();
            if ((t.elem != ir::dtype::float64 && t.elem != ir::dtype::float32) || !sizes ||
                sizes->size() != 2)
            {
                return std::nullopt;
            }
            const std::int64_t m = (*sizes)[0], p = (*sizes)[1];
            for (int side : {1, 0})
            {
                const ir::value_id prod = n.inputs[static_cast<std::size_t>(side)];
                const ir::value_id acc = n.inputs[static_cast<std::size_t>(1 - side)];
                const ir::node_id def = g.get(prod).def;
                const ir::value_type& ta = g.type_of(acc);
                if (def == ir::no_id || uses[prod] != 1 || prod == acc || ta.elem != t.elem ||
                    ta.dims != t.dims)
                {
                    continue;
                }
                const ir::node& mm = g.get_node(def);
                if (mm.parent == n.parent && is_column_times_row(g, mm, t.elem, m, p))
                {
                    return step{&n, &mm, acc, side == 1};
                }
            }
            return std::nullopt;
        }

        // The steps of a chain group, in order, from its members; nothing when
        // the members are not one chain (each step's accumulator the previous
        // step's sum).
        std::optional<std::vector<step>> steps_of(const ir::graph& g, const fused_group& fg)
        {
            const std::vector<int> uses = g.count_uses();
            std::vector<step> steps;
            std::set<const ir::node*> products;
            for (const ir::node* m : fg.members)
            {
                if (m->code == ir::op::MATMUL)
                {
                    products.insert(m);
                    continue;
                }
                auto s = step_of(g, *m, uses);
                if (!s || (!steps.empty() && s->acc != steps.back().add->outputs[0]))
                {
                    return std::nullopt;
                }
                steps.push_back(*s);
            }
            if (steps.empty() || products.size() != steps.size())
            {
                return std::nullopt;
            }
            for (const step& s : steps)
            {
                if (products.count(s.product) == 0)
                {
                    return std::nullopt;
                }
            }
            return steps;
        }

        template <class T>
        using row_steps = bool (*)(T* row, const T* const* b, const T* a, const char* left,
                                   std::size_t steps, std::int64_t p);

        // Where two different NaNs (signs, payloads) meet, the one an
        // instruction passes on depends on the order a compiler emits the
        // operands of a commutative operation in: NumPy's add passes on the
        // first operand's in its vector body and may not in its scalar
        // tail. The vector loops below ignore this (without NaN, operand
        // order never changes a bit); a row whose sum is NaN anywhere (a
        // NaN is never lost by adding or by `0 + a*b`) is redone here with
        // the rule written out, so the chain's bits never depend on the
        // compiler: the first operand's NaN (NumPy's vector loops, and
        // matmul's `a*b`), as the reference backend gives it.
        template <class T>
        T pass_nan(T first, T second, T result)
        {
            if (first != first)
            {
                return first + first; // that NaN, quieted
            }
            if (second != second)
            {
                return second + second;
            }
            return result;
        }

        template <class T>
        void chain_row_nan(T* row, const T* const* b, const T* a, const char* left,
                           std::size_t steps, std::int64_t p)
        {
            for (std::int64_t j = 0; j < p; ++j)
            {
                T acc = row[j];
                for (std::size_t t = 0; t < steps; ++t)
                {
                    const T q = T(0) + pass_nan(a[t], b[t][j], a[t] * b[t][j]);
                    acc = left[t] ? pass_nan(acc, q, acc + q) : pass_nan(q, acc, q + acc);
                }
                row[j] = acc;
            }
        }

        // Every step on one row of sums, `acc` (L1-sized scratch): acc[j] +
        // (0 + a[t]*b[t][j]) for t in order, the sum's operands swapped where
        // !left[t]. False when a sum is NaN. Inlined into each instruction
        // set's copy.
        template <class T>
        [[gnu::always_inline]] inline bool
        chain_row(T* __restrict acc, const T* const* b, const T* __restrict a,
                  const char* __restrict left, std::size_t steps, std::int64_t p)
        {
            for (std::size_t t = 0; t < steps; ++t)
            {
                const T at = a[t];
                const T* __restrict bt = b[t];
                if (left[t])
                {
                    for (std::int64_t j = 0; j < p; ++j)
                    {
                        acc[j] = acc[j] + (T(0) + at * bt[j]);
                    }
                }
                else
                {
                    for (std::int64_t j = 0; j < p; ++j)
                    {
                        acc[j] = (T(0) + at * bt[j]) + acc[j];
                    }
                }
            }
            bool nan = false;
            for (std::int64_t j = 0; j < p; ++j)
            {
                nan |= acc[j] != acc[j];
            }
            return !nan;
        }

        // The row loop compiled per instruction set; the vector width is
        // only a question of speed (see the top).
        template <class T>
        bool chain_row_sse2(T* row, const T* const* b, const T* a, const char* left,
                            std::size_t steps, std::int64_t p)
        {
            return chain_row(row, b, a, left, steps, p);
        }
        template <class T>
        [[gnu::target("avx2")]] bool chain_row_avx2(T* row, const T* const* b, const T* a,
                                                    const char* left, std::size_t steps,
                                                    std::int64_t p)
        {
            return chain_row(row, b, a, left, steps, p);
        }
        template <class T>
        [[gnu::target("avx512f")]] bool chain_row_avx512(T* row, const T* const* b, const T* a,
                                                         const char* left, std::size_t steps,
                                                         std::int64_t p)
        {
            return chain_row(row, b, a, left, steps, p);
        }

        // The widest loop this CPU runs, picked once per kernel.
        template <class T>
        row_steps<T> widest_row_steps()
        {
            if (__builtin_cpu_supports("avx512f"))
            {
                return chain_row_avx512<T>;
            }
            return __builtin_cpu_supports("avx2") ? chain_row_avx2<T> : chain_row_sse2<T>;
        }

        // Inputs: the first accumulator (m,p), then per step its column (m,1)
        // and its row (1,p), all in any layout. Output: the last sum.
        template <class T>
        class rank1_chain_kernel final : public kernel
        {
        public:
            rank1_chain_kernel(std::int64_t m, std::int64_t p, std::vector<char> acc_left)
                : m_m(m), m_p(p), m_acc_left(std::move(acc_left)), m_row(widest_row_steps<T>()),
                  m_rows(m_acc_left.size(), nullptr), m_packed(m_acc_left.size() * p),
                  m_cols(m_acc_left.size(), nullptr), m_col_strides(m_acc_left.size(), 0),
                  m_a(m_acc_left.size()), m_acc(static_cast<std::size_t>(p))
            {
            }

            bool reads_layout(int, const buffer&) const override { return true; }

        private:
            static constexpr std::int64_t item = static_cast<std::int64_t>(sizeof(T));

            // Each step's row, read in place when unit-strided, else packed
            // once per run into scratch sized at compile time; each step's
            // column, read through its stride.
            void bind_operands(const kernel_io& io) const
            {
                for (std::size_t t = 0; t < m_rows.size(); ++t)
                {
                    const buffer& a = io.in(1 + 2 * static_cast<int>(t));
                    m_cols[t] = a.data();
                    m_col_strides[t] = a.strides()[0];
                    const buffer& b = io.in(2 + 2 * static_cast<int>(t));
                    const std::int64_t s = b.strides()[1];
                    if (s == item || m_p == 1)
                    {
                        m_rows[t] = reinterpret_cast<const T*>(b.data());
                        continue;
                    }
                    T* dst = m_packed.data() + t * static_cast<std::size_t>(m_p);
                    const std::byte* src = b.data();
                    for (std::int64_t j = 0; j < m_p; ++j, src += s)
                    {
                        std::memcpy(dst + j, src, sizeof(T));
                    }
                    m_rows[t] = dst;
                }
            }

            status run_impl(const kernel_io& io) const override
            {
                bind_operands(io);
                const buffer& x = io.in(0);
                const std::int64_t xs0 = x.strides()[0], xs1 = x.strides()[1];
                T* out = reinterpret_cast<T*>(io.out(0).data());
                const std::size_t steps = m_rows.size();
                T* acc = m_acc.data();
                for (std::int64_t i = 0; i < m_m; ++i)
                {
                    const std::byte* x_row = x.data() + i * xs0;
                    load_row(acc, x_row, xs1);
                    for (std::size_t t = 0; t < steps; ++t)
                    {
                        std::memcpy(&m_a[t], m_cols[t] + i * m_col_strides[t], sizeof(T));
                    }
                    if (!m_row(acc, m_rows.data(), m_a.data(), m_acc_left.data(), steps, m_p))
                    {
                        load_row(acc, x_row, xs1);
                        chain_row_nan(acc, m_rows.data(), m_a.data(), m_acc_left.data(), steps,
                                      m_p);
                    }
                    // The output may be the accumulator's memory (a sunk
                    // store): its row i is only written once it was read.
                    std::memcpy(out + i * m_p, acc, static_cast<std::size_t>(m_p * item));
                }
                return status::ok();
            }

            // Row i of the accumulator into `acc`.
            void load_row(T* acc, const std::byte* src, std::int64_t stride) const
            {
                if (stride == item)
                {
                    std::memcpy(acc, src, static_cast<std::size_t>(m_p * item));
                    return;
                }
                for (std::int64_t j = 0; j < m_p; ++j, src += stride)
                {
                    std::memcpy(acc + j, src, sizeof(T));
                }
            }

            std::int64_t m_m, m_p;
            std::vector<char> m_acc_left;
            row_steps<T> m_row;
            // Scratch of one run (an executable runs one run at a time).
            mutable std::vector<const T*> m_rows;
            mutable std::vector<T> m_packed;
            mutable std::vector<const std::byte*> m_cols;
            mutable std::vector<std::int64_t> m_col_strides;
            mutable std::vector<T> m_a;   // row i's column entries, per step
            mutable std::vector<T> m_acc; // row i's sums
        };
    } // namespace

    std::vector<fused_group> rank1_chain_groups(const ir::graph& g, const kernel_context& ctx)
    {
        std::vector<fused_group> found;
        if (!ctx.p_options->fuse)
        {
            return found;
        }
        const std::vector<int> uses = g.count_uses();
        for (ir::region_id r = 0; r < g.num_regions(); ++r)
        {
            const ir::region& reg = g.get_region(r);
            std::map<ir::node_id, std::size_t> position;
            std::vector<std::vector<const ir::node*>> chains;
            std::map<ir::value_id, std::size_t> chain_ending_in; // last sum -> chain
            for (ir::node_id id : reg.nodes)
            {
                position[id] = position.size();
                auto s = step_of(g, g.get_node(id), uses);
                if (!s)
                {
                    continue;
                }
                auto tail = chain_ending_in.find(s->acc);
                std::size_t c = chains.size();
                if (tail != chain_ending_in.end() && uses[s->acc] == 1)
                {
                    c = tail->second;
                    chain_ending_in.erase(tail);
                }
                else
                {
                    chains.emplace_back();
                }
                chains[c].push_back(s->product);
                chains[c].push_back(s->add);
                chain_ending_in[s->add->outputs[0]] = c;
            }
            for (auto& members : chains)
            {
                std::sort(members.begin(), members.end(),
                          [&](const ir::node* a, const ir::node* b)
                          { return position.at(a->id) < position.at(b->id); });
                fused_group fg;
                fg.region = r;
                fg.group = rank1_chain_group;
                fg.members = std::move(members);
                if (finish_group(g, fg) && fg.outputs.size() == 1)
                {
                    found.push_back(std::move(fg));
                }
            }
        }
        return found;
    }

    result<group_kernel> make_rank1_chain_group(const ir::graph& g, const fused_group& fg,
                                                const kernel_context&)
    {
        auto steps = steps_of(g, fg);
        if (!steps || fg.outputs.size() != 1 || fg.outputs[0] != steps->back().add->outputs[0])
        {
            return status::unimplemented("not a chain of rank-1 updates");
        }
        const ir::value_type& t = g.type_of(fg.outputs[0]);
        const std::vector<std::int64_t> sizes = *t.dims.static_sizes();
        group_kernel gk;
        gk.m_inputs.push_back(steps->front().acc);
        std::vector<char> acc_left;
        for (const step& s : *steps)
        {
            gk.m_inputs.push_back(s.product->inputs[0]);
            gk.m_inputs.push_back(s.product->inputs[1]);
            acc_left.push_back(s.acc_left ? 1 : 0);
        }
        if (t.elem == ir::dtype::float64)
        {
            gk.m_kernel = std::make_unique<rank1_chain_kernel<double>>(sizes[0], sizes[1],
                                                                       std::move(acc_left));
        }
        else
        {
            gk.m_kernel = std::make_unique<rank1_chain_kernel<float>>(sizes[0], sizes[1],
                                                                      std::move(acc_left));
        }
        return gk;
    }
} // namespace specula::backends::cpu
