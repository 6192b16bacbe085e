// The cblas routine of each float type, so the matmul and np.dot kernels
// are written once for float32 and float64.
#pragma once

#include <cblas.h>

namespace specula::backends::cpu
{
    template <class T>
    struct blas;

    template <>
    struct blas<double>
    {
        static constexpr auto gemm = cblas_dgemm;
        static constexpr auto syrk = cblas_dsyrk;
        static constexpr auto gemv = cblas_dgemv;
        static constexpr auto dot = cblas_ddot;
        static constexpr auto axpy = cblas_daxpy;
    };

    template <>
    struct blas<float>
    {
        static constexpr auto gemm = cblas_sgemm;
        static constexpr auto syrk = cblas_ssyrk;
        static constexpr auto gemv = cblas_sgemv;
        static constexpr auto dot = cblas_sdot;
        static constexpr auto axpy = cblas_saxpy;
    };
} // namespace specula::backends::cpu
