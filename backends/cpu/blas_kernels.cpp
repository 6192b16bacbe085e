// matmul / dot on float32 and float64 through OpenBLAS's cblas, making the
// call NumPy 1.24 makes for the same operands (so results are bit-identical
// in the same process): gemm for matrix @ matrix, syrk for A @ A.T, gemv for
// matrix @ vector (in NumPy's order/transpose form), `0 + ddot` for vector @
// vector, and NumPy's no-BLAS loop when the contracted dim is 1. Shapes NumPy
// treats specially in np.dot (length-1 "scalars") are left unimplemented.

#include "backends/cpu/cpu_backend.hpp"

#include <cblas.h>

namespace specula::backends::cpu
{
    namespace
    {
        enum class form
        {
            gemm,
            syrk,    // out = a @ a.T, a is the matmul's first input
            gemv_mv, // (m,n) @ (n,)
            gemv_vm, // (n,) @ (n,p)
            dot,     // (n,) @ (n,)
            noblas,  // contracted dim 1: acc = 0; acc += a*b
        };

        template <class T>
        struct blas;
        template <>
        struct blas<double>
        {
            static constexpr auto gemm = cblas_dgemm;
            static constexpr auto syrk = cblas_dsyrk;
            static constexpr auto gemv = cblas_dgemv;
            static constexpr auto dot = cblas_ddot;
        };
        template <>
        struct blas<float>
        {
            static constexpr auto gemm = cblas_sgemm;
            static constexpr auto syrk = cblas_ssyrk;
            static constexpr auto gemv = cblas_sgemv;
            static constexpr auto dot = cblas_sdot;
        };

        template <class T>
        class blas_kernel final : public kernel
        {
        public:
            blas_kernel(form f, int m, int n, int p) : m_form(f), m_m(m), m_n(n), m_p(p) {}

        private:
            status run_impl(const kernel_io& io) const override
            {
                const buffer& a_buf = io.in(0);
                const buffer& b_buf = io.in(1);
                if (!a_buf.is_contiguous() || !b_buf.is_contiguous())
                {
                    return status::unimplemented("strided matmul operands");
                }
                const T* a = reinterpret_cast<const T*>(a_buf.data());
                const T* b = reinterpret_cast<const T*>(b_buf.data());
                T* c = reinterpret_cast<T*>(io.out(0).data());
                const int m = m_m, n = m_n, p = m_p;
                switch (m_form)
                {
                case form::gemm:
                    blas<T>::gemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, p, n, T(1), a, n, b,
                                  p, T(0), c, p);
                    break;
                case form::syrk:
                    blas<T>::syrk(CblasRowMajor, CblasUpper, CblasNoTrans, m, n, T(1), a, n, T(0),
                                  c, m);
                    // NumPy mirrors the upper triangle into the lower one.
                    for (int i = 0; i < m; ++i)
                    {
                        for (int j = i + 1; j < m; ++j)
                        {
                            c[static_cast<std::ptrdiff_t>(j) * m + i] =
                                c[static_cast<std::ptrdiff_t>(i) * m + j];
                        }
                    }
                    break;
                case form::gemv_mv:
                    blas<T>::gemv(CblasColMajor, CblasTrans, n, m, T(1), a, n, b, 1, T(0), c, 1);
                    break;
                case form::gemv_vm:
                    blas<T>::gemv(CblasRowMajor, CblasTrans, n, p, T(1), b, p, a, 1, T(0), c, 1);
                    break;
                case form::dot:
                {
                    T sum = T(0);
                    sum += blas<T>::dot(n, a, 1, b, 1);
                    *c = sum;
                    break;
                }
                case form::noblas:
                    for (int i = 0; i < m; ++i)
                    {
                        for (int j = 0; j < p; ++j)
                        {
                            T acc = T(0);
                            for (int k = 0; k < n; ++k)
                            {
                                acc += a[static_cast<std::ptrdiff_t>(i) * n + k] *
                                       b[static_cast<std::ptrdiff_t>(k) * p + j];
                            }
                            c[static_cast<std::ptrdiff_t>(i) * p + j] = acc;
                        }
                    }
                    break;
                }
                return status::ok();
            }

            form m_form;
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
        if (n.code != ir::op::MATMUL && n.code != ir::op::DOT)
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
        if (n.code == ir::op::DOT && (k == 1 || (!a_vec && m == 1) || (!b_vec && p == 1)))
        {
            // np.dot treats length-1 operands as scalars (axpy paths).
            return status::unimplemented("np.dot with a length-1 dim");
        }
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
        else if (m == p && is_transpose_of(g, n.inputs[1], n.inputs[0]))
        {
            f = form::syrk;
        }
        else
        {
            f = form::gemm;
        }
        const int mi = static_cast<int>(m), ki = static_cast<int>(k), pi = static_cast<int>(p);
        if (t == ir::dtype::float64)
        {
            return std::unique_ptr<kernel>(new blas_kernel<double>(f, mi, ki, pi));
        }
        return std::unique_ptr<kernel>(new blas_kernel<float>(f, mi, ki, pi));
    }
} // namespace specula::backends::cpu
