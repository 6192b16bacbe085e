// np.dot (and ndarray.dot) on float32 and float64 operands of rank 1 or 2,
// as NumPy 1.24's cblas_matrixproduct (common/cblasfuncs.c) runs it: the
// same copies, the same BLAS routine, the same order/transpose flags and
// leading dimensions, so the bytes are NumPy's in the same process.
// - An operand with "bad strides" (negative, not a whole number of items,
//   0 along a dim above 1) is copied in C order first; so is the matrix
//   of a matrix-vector product that is neither C- nor F-contiguous, and
//   each matrix of a matrix-matrix product that is neither. Those copies
//   are the executor's staging (reads_layout() answers false).
// - Then the shapes pick the family: a length-1 operand ("scalar") scales
//   the other (one product per element, `axpy` into zeros, or a plain
//   product when one element comes out); row/column · column is the
//   type's dot (BLAS `?dot` for positive strides, else a plain loop);
//   matrix · vector and vector · matrix are gemv (RowMajor when the
//   matrix is C-contiguous, else ColMajor); the rest is gemm with Trans
//   for each F-contiguous matrix, syrk when the two are one memory seen
//   transposed.
// np.matmul is not np.dot: its gufunc loop never copies (blas_kernels.cpp).

#include "backends/cpu/cpu_backend.hpp"

#include <algorithm>
#include <cblas.h>
#include <climits>
#include <cstring>

#include "backends/cpu/blas_calls.hpp"

namespace specula::backends::cpu
{
    namespace
    {
        // NumPy's _select_matrix_shape for ranks 1 and 2.
        enum class shape_class
        {
            scalar,
            column,
            row,
            matrix
        };

        shape_class class_of(const std::vector<std::int64_t>& s)
        {
            if (s.size() == 1)
            {
                return s[0] > 1 ? shape_class::column : shape_class::scalar;
            }
            if (s[0] > 1)
            {
                return s[1] > 1 ? shape_class::matrix : shape_class::column;
            }
            return s[1] > 1 ? shape_class::row : shape_class::scalar;
        }

        // The branch of cblas_matrixproduct the shapes take.
        enum class family
        {
            scale,   // one operand a scalar
            dot,     // row or column . column
            gemv_mv, // matrix . column
            gemv_vm, // row or column . matrix
            gemm,    // the rest (matrix . matrix, (m,1) . (1,p))
        };

        // NumPy's C_CONTIGUOUS / F_CONTIGUOUS flags (size-1 dims ignored).
        bool c_contiguous(const buffer& b)
        {
            return b.is_contiguous();
        }

        bool f_contiguous(const buffer& b)
        {
            auto expect = static_cast<std::int64_t>(b.itemsize());
            for (int d = 0; d < b.rank(); ++d)
            {
                if (b.shape()[d] != 1 && b.strides()[d] != expect)
                {
                    return false;
                }
                expect *= b.shape()[d];
            }
            return true;
        }

        // NumPy's _bad_strides: BLAS can not walk the operand as it is.
        bool bad_strides(const buffer& b)
        {
            const auto item = static_cast<std::int64_t>(b.itemsize());
            if (reinterpret_cast<std::uintptr_t>(b.data()) % static_cast<std::uintptr_t>(item) != 0)
            {
                return true;
            }
            for (int d = 0; d < b.rank(); ++d)
            {
                const std::int64_t s = b.strides()[d];
                if (s < 0 || s % item != 0 || (s == 0 && b.shape()[d] > 1))
                {
                    return true;
                }
            }
            return false;
        }

        // NumPy's blas_stride: a positive whole number of items, else 0.
        int blas_stride(std::int64_t s, std::int64_t item)
        {
            return s > 0 && s % item == 0 && s / item <= INT_MAX ? static_cast<int>(s / item) : 0;
        }

        struct plan
        {
            family f = family::gemm;
            bool swap = false;    // scale: the first operand is the scalar
            std::int64_t l = 0;   // scale: elements out; dot: the contracted length
            bool a_row = false;   // the first operand (after the swap) is a (1,n) row
            std::int64_t out = 0; // elements of the result
        };

        plan plan_of(const std::vector<std::int64_t>& sa, const std::vector<std::int64_t>& sb)
        {
            plan p;
            const shape_class ca = class_of(sa);
            const shape_class cb = class_of(sb);
            p.out = 1;
            for (std::size_t i = 0; i + 1 < sa.size(); ++i)
            {
                p.out *= sa[i];
            }
            if (sb.size() == 2)
            {
                p.out *= sb[1];
            }
            if (ca == shape_class::scalar || cb == shape_class::scalar)
            {
                p.f = family::scale;
                p.swap = ca == shape_class::scalar;
                const shape_class c1 = p.swap ? cb : ca;
                p.a_row = c1 == shape_class::row;
                const std::size_t nd = sa.size() + sb.size() - 2;
                if (nd == 0)
                {
                    p.l = sa.back();
                }
                else if (nd == 1)
                {
                    p.l = sa.size() == 2 ? sa[0] : sb[1];
                }
                else
                {
                    p.l = c1 == shape_class::row ? sb[1] : sa[0];
                }
                return p;
            }
            p.a_row = ca == shape_class::row;
            if (cb == shape_class::column && ca != shape_class::matrix)
            {
                p.f = family::dot;
                p.l = sa.back();
            }
            else if (ca == shape_class::matrix && cb != shape_class::matrix)
            {
                p.f = family::gemv_mv;
            }
            else if (ca != shape_class::matrix && cb == shape_class::matrix)
            {
                p.f = family::gemv_vm;
            }
            return p;
        }

        template <class T>
        class dot_kernel final : public kernel
        {
        public:
            explicit dot_kernel(plan p) : m_plan(p) {}

            bool reads_layout(int i, const buffer& b) const override
            {
                if (bad_strides(b))
                {
                    return false;
                }
                // The matrices BLAS reads whole: one segment, else a C copy.
                const bool whole = m_plan.f == family::gemm ||
                                   (m_plan.f == family::gemv_mv && i == 0) ||
                                   (m_plan.f == family::gemv_vm && i == 1);
                return !whole || c_contiguous(b) || f_contiguous(b);
            }

        private:
            static constexpr std::int64_t item = static_cast<std::int64_t>(sizeof(T));

            static const T* ptr(const buffer& b) { return reinterpret_cast<const T*>(b.data()); }

            // The stride along a vector operand's length (a row's second dim).
            static std::int64_t vector_stride(const buffer& b, bool row)
            {
                return b.rank() == 0 ? 0 : b.strides()[row ? 1 : 0];
            }

            status run_impl(const kernel_io& io) const override
            {
                const buffer& a = io.in(0);
                const buffer& b = io.in(1);
                T* out = reinterpret_cast<T*>(io.out(0).data());
                switch (m_plan.f)
                {
                case family::scale:
                    scale(m_plan.swap ? b : a, m_plan.swap ? a : b, out);
                    break;
                case family::dot:
                    *out = dot(a, b);
                    break;
                case family::gemv_mv:
                    gemv(a, CblasNoTrans, b, vector_stride(b, false), out);
                    break;
                case family::gemv_vm:
                    gemv(b, CblasTrans, a, vector_stride(a, m_plan.a_row), out);
                    break;
                case family::gemm:
                    gemm(a, b, out);
                    break;
                }
                return status::ok();
            }

            // `x` times the scalar `s`: cblas ?axpy into the zeroed result,
            // or one product when one element comes out.
            void scale(const buffer& x, const buffer& s, T* out) const
            {
                const T value = *ptr(s);
                // NumPy zeroes its result first (gemv/gemm overwrite it: beta 0).
                std::memset(out, 0, static_cast<std::size_t>(m_plan.out) * sizeof(T));
                if (m_plan.l == 1)
                {
                    *out = value * *ptr(x);
                    return;
                }
                const auto incx = static_cast<int>(vector_stride(x, m_plan.a_row) / item);
                blas<T>::axpy(static_cast<int>(m_plan.l), value, ptr(x), incx, out, 1);
            }

            // NumPy's @TYPE@_dot (arraytypes.c.src): ?dot added to a double
            // zero for whole positive strides, else a plain loop.
            T dot(const buffer& a, const buffer& b) const
            {
                const int ia = blas_stride(vector_stride(a, m_plan.a_row), item);
                const int ib = blas_stride(vector_stride(b, false), item);
                const auto n = static_cast<int>(m_plan.l);
                if (ia != 0 && ib != 0)
                {
                    double sum = 0.;
                    sum += blas<T>::dot(n, ptr(a), ia, ptr(b), ib);
                    return static_cast<T>(sum);
                }
                T sum = T(0);
                const std::byte* pa = a.data();
                const std::byte* pb = b.data();
                const std::int64_t sa = vector_stride(a, m_plan.a_row);
                const std::int64_t sb = vector_stride(b, false);
                for (int k = 0; k < n; ++k, pa += sa, pb += sb)
                {
                    sum += *reinterpret_cast<const T*>(pa) * *reinterpret_cast<const T*>(pb);
                }
                return sum;
            }

            // The matrix `m` (one segment) with NumPy's order, times `x`.
            static void gemv(const buffer& m, CBLAS_TRANSPOSE trans, const buffer& x,
                             std::int64_t sx, T* out)
            {
                const std::int64_t rows = m.shape()[0];
                const std::int64_t cols = m.shape()[1];
                const bool c = c_contiguous(m);
                const CBLAS_ORDER order = c ? CblasRowMajor : CblasColMajor;
                const std::int64_t lda = std::max<std::int64_t>(c ? cols : rows, 1);
                blas<T>::gemv(order, trans, static_cast<int>(rows), static_cast<int>(cols), T(1),
                              ptr(m), static_cast<int>(lda), ptr(x), static_cast<int>(sx / item),
                              T(0), out, 1);
            }

            static void gemm(const buffer& a, const buffer& b, T* out)
            {
                const std::int64_t l = a.shape()[0];
                const std::int64_t n = b.shape()[1];
                const std::int64_t m = b.shape()[0];
                const bool ta = f_contiguous(a);
                const bool tb = f_contiguous(b);
                const auto lda = static_cast<int>(std::max<std::int64_t>(a.shape()[ta ? 0 : 1], 1));
                const auto ldb = static_cast<int>(std::max<std::int64_t>(b.shape()[tb ? 0 : 1], 1));
                const auto ldc = static_cast<int>(std::max<std::int64_t>(n, 1));
                const CBLAS_TRANSPOSE t1 = ta ? CblasTrans : CblasNoTrans;
                const CBLAS_TRANSPOSE t2 = tb ? CblasTrans : CblasNoTrans;
                // NumPy's test: one memory, seen transposed.
                if (a.data() == b.data() && a.shape()[0] == b.shape()[1] &&
                    a.shape()[1] == b.shape()[0] && a.strides()[0] == b.strides()[1] &&
                    a.strides()[1] == b.strides()[0] && ta != tb)
                {
                    // Trans1 == NoTrans: syrk of ap1 (lda), else of ap2 (ldb),
                    // the same memory.
                    blas<T>::syrk(CblasRowMajor, CblasUpper, t1, static_cast<int>(n),
                                  static_cast<int>(m), T(1), ptr(ta ? b : a), ta ? ldb : lda, T(0),
                                  out, ldc);
                    for (std::int64_t i = 0; i < n; ++i)
                    {
                        for (std::int64_t j = i + 1; j < n; ++j)
                        {
                            out[j * ldc + i] = out[i * ldc + j];
                        }
                    }
                    return;
                }
                blas<T>::gemm(CblasRowMajor, t1, t2, static_cast<int>(l), static_cast<int>(n),
                              static_cast<int>(m), T(1), ptr(a), lda, ptr(b), ldb, T(0), out, ldc);
            }

            plan m_plan;
        };
    } // namespace

    result<std::unique_ptr<kernel>> make_dot_kernel(const ir::graph& g, const ir::node& n)
    {
        const ir::dtype t = g.type_of(n.outputs[0]).elem;
        const auto& ta = g.type_of(n.inputs[0]);
        const auto& tb = g.type_of(n.inputs[1]);
        if (!ir::is_float(t) || ta.elem != t || tb.elem != t)
        {
            return status::unimplemented("np.dot: float operands of the output dtype only");
        }
        auto sa = ta.dims.static_sizes();
        auto sb = tb.dims.static_sizes();
        if (!sa || !sb || sa->empty() || sb->empty() || sa->size() > 2 || sb->size() > 2)
        {
            return status::unimplemented("np.dot: static 1-D/2-D operands only");
        }
        for (const auto* s : {&*sa, &*sb})
        {
            for (std::int64_t d : *s)
            {
                if (d < 1 || d > (1 << 30))
                {
                    return status::unimplemented("np.dot: empty or huge dims");
                }
            }
        }
        if (sa->back() != sb->front())
        {
            return status::unimplemented("np.dot: contracted dims differ");
        }
        const plan p = plan_of(*sa, *sb);
        if (t == ir::dtype::float64)
        {
            return std::unique_ptr<kernel>(new dot_kernel<double>(p));
        }
        return std::unique_ptr<kernel>(new dot_kernel<float>(p));
    }
} // namespace specula::backends::cpu
