#pragma once

// A Python-free table of elementwise inner loops keyed by (op, loop dtype),
// with NumPy's inner-loop calling convention. The engine fills it at start-up
// from NumPy's own ufunc objects (numpy_loops/), so the CPU backend can run
// NumPy's exact loops without depending on Python; our own loops
// (builtin_loops.hpp) use the same convention so the evaluator treats both alike.

#include "ir/dtype.hpp"
#include "ir/op.hpp"

#include <cstdint>
#include <map>
#include <utility>

namespace specula::backends::cpu
{
    // NumPy's PyUFuncGenericFunction: args are the operand pointers (inputs
    // then output), dims[0] the element count, steps the byte strides.
    using inner_loop_fn = void (*)(char** args, const std::intptr_t* dims,
                                   const std::intptr_t* steps, void* data);

    struct ufunc_loop
    {
        inner_loop_fn fn = nullptr;
        void* data = nullptr;
        // When `fn` is a trampoline that raises again the FP flags that were
        // up before the call (a NumPy loop clearing them, numpy_loops.cpp):
        // the loop it wraps. A kernel calling the loop many times keeps the
        // flags once around all of its calls instead.
        inner_loop_fn bare_fn = nullptr;
        void* bare_data = nullptr;
        explicit operator bool() const { return fn != nullptr; }
        bool keeps_flags() const { return bare_fn != nullptr; }
        ufunc_loop bare() const { return keeps_flags() ? ufunc_loop{bare_fn, bare_data} : *this; }
    };

    class loop_table
    {
    public:
        // `loop_dtype` is the dtype the loop computes in: the output dtype,
        // or the inputs' dtype for comparisons (whose output is bool).
        void set(ir::op code, ir::dtype loop_dtype, ufunc_loop loop)
        {
            m_loops[{code, loop_dtype}] = loop;
        }
        ufunc_loop find(ir::op code, ir::dtype loop_dtype) const
        {
            auto it = m_loops.find({code, loop_dtype});
            return it == m_loops.end() ? ufunc_loop{} : it->second;
        }
        std::size_t size() const { return m_loops.size(); }

    private:
        std::map<std::pair<ir::op, ir::dtype>, ufunc_loop> m_loops;
    };
} // namespace specula::backends::cpu
