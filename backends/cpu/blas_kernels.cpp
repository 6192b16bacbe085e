// matmul on float32 and float64 through OpenBLAS's cblas, making the call
// NumPy 1.24 makes for the same operands and the same memory layout (so
// results are bit-identical in the same process). The shape picks the family
// at compile time: gemm (syrk for A @ A.T), gemv for matrix @ vector in
// NumPy's order/transpose form, `0 + ?dot` for vector @ vector, and NumPy's
// no-BLAS loop when the contracted dim is 1. The operands' strides pick the
// call at run time, as NumPy does:
// - matmul (umath/matmul.c.src): a 2-D operand whose rows or columns are
//   unit-strided goes to BLAS as is, with a transpose flag and its leading
//   dimension (so `A.T @ x` passes Trans, never a copy); syrk when both
//   operands are the same memory seen transposed; any other layout runs
//   NumPy's strided no-BLAS loop.
// np.dot copies what BLAS can not read and has its own calls: dot_kernels.cpp.

#include "backends/cpu/cpu_backend.hpp"

#include <cblas.h>
#include <climits>

#include "backends/cpu/blas_calls.hpp"

namespace specula::backends::cpu
{
    namespace
    {
        enum class form
        {
            gemm,    // (m,n) @ (n,p); syrk when b is a's memory transposed
            gemv_mv, // (m,n) @ (n,) or (n,1)
            gemv_vm, // (n,) or (1,n) @ (n,p)
            dot,     // vector @ vector
            noblas,  // contracted dim 1: acc = 0; acc += a*b
        };

        // One matmul operand as NumPy's loop sees it: byte strides of its
        // two core dims (0 for a dim a 1-D operand lacks).
        struct operand
        {
            const std::byte* p = nullptr;
            std::int64_t s_row = 0;
            std::int64_t s_col = 0;
        };

        // NumPy's is_blasable2d: unit stride along d2, and the other stride
        // a whole number of items, at least d2, at most BLAS's int.
        bool blasable(std::int64_t s1, std::int64_t s2, std::int64_t d2, std::int64_t item)
        {
            return s2 == item && s1 % item == 0 && s1 / item >= d2 && s1 / item <= INT_MAX;
        }

        // NumPy's blas_stride: a positive whole number of items, else 0.
        int blas_stride(std::int64_t s, std::int64_t item)
        {
            return s > 0 && s % item == 0 && s / item <= INT_MAX ? static_cast<int>(s / item) : 0;
        }

        operand operand_of(const buffer& b, bool second)
        {
            operand o{b.data(), 0, 0};
            if (b.rank() == 2)
            {
                o.s_row = b.strides()[0];
                o.s_col = b.strides()[1];
            }
            else if (second)
            {
                o.s_row = b.strides()[0]; // (n,): the contracted dim
            }
            else
            {
                o.s_col = b.strides()[0];
            }
            return o;
        }

        template <class T>
        class blas_kernel final : public kernel
        {
        public:
            blas_kernel(form f, bool graph_syrk, int m, int n, int p)
                : m_form(f), m_graph_syrk(graph_syrk), m_m(m), m_n(n), m_p(p)
            {
            }

            // Any layout: BLAS with flags or the strided loop, never a copy.
            bool reads_layout(int, const buffer&) const override { return true; }

        private:
            static constexpr std::int64_t item = static_cast<std::int64_t>(sizeof(T));

            static const T* at(const operand& o, std::int64_t i, std::int64_t j)
            {
                return reinterpret_cast<const T*>(o.p + i * o.s_row + j * o.s_col);
            }

            status run_impl(const kernel_io& io) const override
            {
                const operand a = operand_of(io.in(0), false);
                const operand b = operand_of(io.in(1), true);
                T* c = reinterpret_cast<T*>(io.out(0).data());
                switch (m_form)
                {
                case form::gemm:
                    matrix_matrix(a, b, c);
                    break;
                case form::gemv_mv:
                    if (blasable_2d(a, m_m, m_n) && blas_stride(b.s_row, item) != 0)
                    {
                        gemv(a, m_m, m_n, b.p, b.s_row, c);
                        break;
                    }
                    noblas(a, b, c);
                    break;
                case form::gemv_vm:
                {
                    // NumPy swaps the operands: b seen as (p, n) times a.
                    const operand bt{b.p, b.s_col, b.s_row};
                    if (blasable_2d(bt, m_p, m_n) && blas_stride(a.s_col, item) != 0)
                    {
                        gemv(bt, m_p, m_n, a.p, a.s_col, c);
                        break;
                    }
                    noblas(a, b, c);
                    break;
                }
                case form::dot:
                    dot(a, b, c);
                    break;
                case form::noblas:
                    noblas(a, b, c);
                    break;
                }
                return status::ok();
            }

            static bool blasable_2d(const operand& o, std::int64_t rows, std::int64_t cols)
            {
                return blasable(o.s_row, o.s_col, cols, item) ||
                       blasable(o.s_col, o.s_row, rows, item);
            }

            // NumPy's gemv(): A (m, n) times x (n,), y contiguous.
            static void gemv(const operand& a, int m, int n, const std::byte* x, std::int64_t sx,
                             T* y)
            {
                const T* pa = reinterpret_cast<const T*>(a.p);
                const T* px = reinterpret_cast<const T*>(x);
                const int incx = blas_stride(sx, item);
                if (blasable(a.s_row, a.s_col, n, item))
                {
                    blas<T>::gemv(CblasColMajor, CblasTrans, n, m, T(1), pa,
                                  static_cast<int>(a.s_row / item), px, incx, T(0), y, 1);
                    return;
                }
                blas<T>::gemv(CblasRowMajor, CblasTrans, n, m, T(1), pa,
                              static_cast<int>(a.s_col / item), px, incx, T(0), y, 1);
            }

            void matrix_matrix(const operand& a, const operand& b, T* c) const
            {
                const int m = m_m, n = m_n, p = m_p;
                if (!blasable_2d(a, m, n) || !blasable_2d(b, n, p))
                {
                    noblas(a, b, c);
                    return;
                }
                const bool a_c = blasable(a.s_row, a.s_col, n, item);
                const bool b_c = blasable(b.s_row, b.s_col, p, item);
                const int lda = static_cast<int>((a_c ? a.s_row : a.s_col) / item);
                const int ldb = static_cast<int>((b_c ? b.s_row : b.s_col) / item);
                const CBLAS_TRANSPOSE ta = a_c ? CblasNoTrans : CblasTrans;
                const CBLAS_TRANSPOSE tb = b_c ? CblasNoTrans : CblasTrans;
                // NumPy's test: the same memory, seen transposed.
                const bool same =
                    a.p == b.p && m == p && a.s_row == b.s_col && a.s_col == b.s_row && ta != tb;
                if (same || (m_graph_syrk && a_c && b_c))
                {
                    // b == a.T: a copy of it when the transpose was not a
                    // view (NumPy would have seen the view).
                    blas<T>::syrk(CblasRowMajor, CblasUpper, ta, m, n, T(1),
                                  reinterpret_cast<const T*>(a.p), lda, T(0), c, m);
                    mirror_upper(c, m);
                    return;
                }
                blas<T>::gemm(CblasRowMajor, ta, tb, m, p, n, T(1), reinterpret_cast<const T*>(a.p),
                              lda, reinterpret_cast<const T*>(b.p), ldb, T(0), c, p);
            }

            // NumPy mirrors syrk's upper triangle into the lower one.
            static void mirror_upper(T* c, int m)
            {
                for (int i = 0; i < m; ++i)
                {
                    for (int j = i + 1; j < m; ++j)
                    {
                        c[static_cast<std::ptrdiff_t>(j) * m + i] =
                            c[static_cast<std::ptrdiff_t>(i) * m + j];
                    }
                }
            }

            // NumPy's @TYPE@_dot: BLAS for positive strides (summed from 0),
            // else a plain loop.
            void dot(const operand& a, const operand& b, T* c) const
            {
                const int ia = blas_stride(a.s_col, item);
                const int ib = blas_stride(b.s_row, item);
                if (ia != 0 && ib != 0)
                {
                    T sum = T(0);
                    sum += blas<T>::dot(m_n, reinterpret_cast<const T*>(a.p), ia,
                                        reinterpret_cast<const T*>(b.p), ib);
                    *c = sum;
                    return;
                }
                T sum = T(0);
                for (int k = 0; k < m_n; ++k)
                {
                    sum += *at(a, 0, k) * *at(b, k, 0);
                }
                *c = sum;
            }

            // NumPy's matmul_inner_noblas, in its order.
            void noblas(const operand& a, const operand& b, T* c) const
            {
                if (m_n == 1)
                {
                    outer(a, b, c);
                    return;
                }
                for (int i = 0; i < m_m; ++i)
                {
                    for (int j = 0; j < m_p; ++j)
                    {
                        T acc = T(0);
                        for (int k = 0; k < m_n; ++k)
                        {
                            acc += *at(a, i, k) * *at(b, k, j);
                        }
                        c[static_cast<std::ptrdiff_t>(i) * m_p + j] = acc;
                    }
                }
            }

            // The contracted dim is 1 (column @ row, as in the RNN's dW += dy @ h.T):
            // each element is `0 + a*b`, the same sum without the per-element loop.
            // A unit-stride row (h.T of a column h) takes a loop the compiler
            // vectorises: the same `0 + a*b` per element (no FMA), ~8x fewer
            // instructions than the strided walk.
            void outer(const operand& a, const operand& b, T* c) const
            {
                if (b.s_col == item)
                {
                    const T* pb = reinterpret_cast<const T*>(b.p);
                    for (int i = 0; i < m_m; ++i)
                    {
                        const T ai = *at(a, i, 0);
                        T* row = c + static_cast<std::ptrdiff_t>(i) * m_p;
                        for (int j = 0; j < m_p; ++j)
                        {
                            row[j] = T(0) + ai * pb[j];
                        }
                    }
                    return;
                }
                for (int i = 0; i < m_m; ++i)
                {
                    const T ai = *at(a, i, 0);
                    const std::byte* pb = b.p;
                    T* row = c + static_cast<std::ptrdiff_t>(i) * m_p;
                    for (int j = 0; j < m_p; ++j, pb += b.s_col)
                    {
                        row[j] = T(0) + ai * *reinterpret_cast<const T*>(pb);
                    }
                }
            }

            form m_form;
            bool m_graph_syrk;
            int m_m, m_n, m_p;
        };

        // b == a.T, with a the value `a` (the graph spelling of A @ A.T).
        bool is_transpose_of(const ir::graph& g, ir::value_id b, ir::value_id a)
        {
            const ir::value& val = g.get(b);
            if (val.def == ir::no_id)
            {
                return false;
            }
            const ir::node& t = g.get_node(val.def);
            if (t.code != ir::op::TRANSPOSE || t.inputs[0] != a || g.type_of(a).dims.rank() != 2)
            {
                return false;
            }
            const auto& perm = t.attr_as<ir::perm_attr>().perm;
            return perm.size() == 2 && perm[0] == 1 && perm[1] == 0;
        }
    } // namespace
    result<std::unique_ptr<kernel>> make_matmul_kernel(const ir::graph& g, const ir::node& n,
                                                       const kernel_context&)
    {
        if (n.code == ir::op::DOT)
        {
            return make_dot_kernel(g, n);
        }
        if (n.code != ir::op::MATMUL)
        {
            return status::unimplemented("not matmul");
        }
        const ir::dtype t = g.type_of(n.outputs[0]).elem;
        const auto& ta = g.type_of(n.inputs[0]);
        const auto& tb = g.type_of(n.inputs[1]);
        if (!ir::is_float(t) || ta.elem != t || tb.elem != t)
        {
            return status::unimplemented("BLAS path: float operands of the output dtype only");
        }
        auto sa = ta.dims.static_sizes();
        auto sb = tb.dims.static_sizes();
        if (!sa || !sb || sa->empty() || sb->empty() || sa->size() > 2 || sb->size() > 2)
        {
            return status::unimplemented("BLAS path: static 1-D/2-D operands only");
        }
        const bool a_vec = sa->size() == 1;
        const bool b_vec = sb->size() == 1;
        const std::int64_t m = a_vec ? 1 : (*sa)[0];
        const std::int64_t k = sa->back();
        const std::int64_t p = b_vec ? 1 : (*sb)[1];
        if (m < 1 || k < 1 || p < 1 || m > (1 << 30) || k > (1 << 30) || p > (1 << 30))
        {
            return status::unimplemented("BLAS path: empty or huge dims");
        }
        form f;
        if (k == 1 && !(a_vec && b_vec))
        {
            f = form::noblas;
        }
        else if (m == 1 && p == 1)
        {
            f = form::dot;
        }
        else if (p == 1)
        {
            f = form::gemv_mv;
        }
        else if (m == 1)
        {
            f = form::gemv_vm;
        }
        else
        {
            f = form::gemm;
        }
        const int mi = static_cast<int>(m), ki = static_cast<int>(k), pi = static_cast<int>(p);
        const bool graph_syrk =
            f == form::gemm && m == p && is_transpose_of(g, n.inputs[1], n.inputs[0]);
        if (t == ir::dtype::float64)
        {
            return std::unique_ptr<kernel>(new blas_kernel<double>(f, graph_syrk, mi, ki, pi));
        }
        return std::unique_ptr<kernel>(new blas_kernel<float>(f, graph_syrk, mi, ki, pi));
    }
} // namespace specula::backends::cpu
