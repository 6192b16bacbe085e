// Reads NumPy's ufunc loop tables. Ownership: every PyObject* here is a new
// reference released before returning; the loop pointers themselves belong to
// the numpy extension module, which stays loaded for the process's life.

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define NO_IMPORT_ARRAY
#define NO_IMPORT_UFUNC
#include <numpy/arrayobject.h>
#include <numpy/ufuncobject.h>

#include "backends/cpu/numpy_loops/numpy_loops.hpp"

#include <cfenv>
#include <cstring>
#include <deque>
#include <optional>
#include <string>

namespace specula::backends::cpu
{
    namespace
    {
        // NumPy's type numbers for the IR dtypes (int64 is NPY_LONG on LP64).
        int numpy_type_num(ir::dtype t)
        {
            switch (t)
            {
            case ir::dtype::bool_:
                return NPY_BOOL;
            case ir::dtype::int8:
                return NPY_BYTE;
            case ir::dtype::uint8:
                return NPY_UBYTE;
            case ir::dtype::int16:
                return NPY_SHORT;
            case ir::dtype::int32:
                return NPY_INT;
            case ir::dtype::int64:
                return NPY_LONG;
            case ir::dtype::float32:
                return NPY_FLOAT;
            case ir::dtype::float64:
                return NPY_DOUBLE;
            }
            return -1;
        }

        bool is_comparison(ir::op code)
        {
            switch (code)
            {
            case ir::op::EQ:
            case ir::op::NE:
            case ir::op::LT:
            case ir::op::LE:
            case ir::op::GT:
            case ir::op::GE:
                return true;
            default:
                return false;
            }
        }

        // The first loop whose inputs are all `t` (NumPy's resolver takes the
        // first loop the operands cast to safely; for operands already of a
        // loop's type that is the first exact match).
        std::optional<ufunc_loop> pick(const PyUFuncObject* uf, ir::dtype t, bool bool_out)
        {
            const int want_in = numpy_type_num(t);
            const int want_out = bool_out ? NPY_BOOL : want_in;
            const int nargs = uf->nin + uf->nout;
            for (int i = 0; i < uf->ntypes; ++i)
            {
                const char* sig = uf->types + static_cast<std::ptrdiff_t>(i) * nargs;
                bool match = uf->nout == 1;
                for (int a = 0; a < uf->nin && match; ++a)
                {
                    match = sig[a] == want_in;
                }
                if (match && sig[uf->nin] == want_out)
                {
                    return ufunc_loop{reinterpret_cast<inner_loop_fn>(uf->functions[i]),
                                      uf->data != nullptr ? uf->data[i] : nullptr};
                }
            }
            return std::nullopt;
        }

        // NumPy's minimum/maximum and comparison loops clear the FP status
        // word when they finish (NaN compares raise "invalid"). NumPy checks
        // the flags after every ufunc call, a graph only after the run: such
        // a loop would hide a division by zero earlier in the graph. Those
        // loops run behind a trampoline that raises again the flags that
        // were up before the call.
        constexpr int ieee_flags = FE_DIVBYZERO | FE_OVERFLOW | FE_UNDERFLOW | FE_INVALID;

        struct flag_keeping_loop
        {
            ufunc_loop inner;
        };

        void keep_flags(char** args, const std::intptr_t* dims, const std::intptr_t* steps,
                        void* data)
        {
            const auto* wrapped = static_cast<const flag_keeping_loop*>(data);
            const int before = std::fetestexcept(ieee_flags);
            wrapped->inner.fn(args, dims, steps, wrapped->inner.data);
            if (before != 0)
            {
                std::feraiseexcept(before);
            }
        }

        // Whether `loop` (of `nargs` operands) clears flags raised before
        // it: run on zeros, once with 1 element and once with 64 (NumPy's
        // SIMD paths start at a few elements).
        bool clears_flags(const ufunc_loop& loop, int nargs)
        {
            alignas(64) static char zeros[8][64 * 8];
            std::memset(zeros, 0, sizeof(zeros));
            char* args[8];
            std::intptr_t steps[8];
            for (int a = 0; a < nargs && a < 8; ++a)
            {
                args[a] = zeros[a];
                steps[a] = 8;
            }
            bool cleared = false;
            for (std::intptr_t n : {std::intptr_t{1}, std::intptr_t{64}})
            {
                std::feraiseexcept(ieee_flags);
                loop.fn(args, &n, steps, loop.data);
                cleared = cleared || std::fetestexcept(ieee_flags) != ieee_flags;
            }
            std::feclearexcept(FE_ALL_EXCEPT);
            return cleared;
        }

        ufunc_loop keeping_flags(const ufunc_loop& loop, int nargs)
        {
            if (nargs > 8 || !clears_flags(loop, nargs))
            {
                return loop;
            }
            // Stable addresses for the process's life, as the loops' own.
            static std::deque<flag_keeping_loop> kept;
            kept.push_back({loop});
            return ufunc_loop{&keep_flags, &kept.back(), loop.fn, loop.data};
        }

        constexpr ir::op table_ops[] = {
            ir::op::NEG,        ir::op::ABS,         ir::op::SIGN,       ir::op::EXP,
            ir::op::EXPM1,      ir::op::LOG,         ir::op::LOG1P,      ir::op::SQRT,
            ir::op::SQUARE,     ir::op::RECIPROCAL,  ir::op::TANH,       ir::op::SIN,
            ir::op::COS,        ir::op::FLOOR,       ir::op::CEIL,       ir::op::RINT,
            ir::op::ADD,        ir::op::SUB,         ir::op::MUL,        ir::op::DIV,
            ir::op::FLOORDIV,   ir::op::MOD,         ir::op::POW,        ir::op::MAXIMUM,
            ir::op::MINIMUM,    ir::op::EQ,          ir::op::NE,         ir::op::LT,
            ir::op::LE,         ir::op::GT,          ir::op::GE,         ir::op::BITWISE_AND,
            ir::op::BITWISE_OR, ir::op::BITWISE_XOR, ir::op::LEFT_SHIFT, ir::op::RIGHT_SHIFT,
            ir::op::CLIP,
        };
    } // namespace

    const char* numpy_ufunc_name(ir::op code)
    {
        switch (code)
        {
        case ir::op::NEG:
            return "negative";
        case ir::op::ABS:
            return "absolute";
        case ir::op::SIGN:
            return "sign";
        case ir::op::EXP:
            return "exp";
        case ir::op::EXPM1:
            return "expm1";
        case ir::op::LOG:
            return "log";
        case ir::op::LOG1P:
            return "log1p";
        case ir::op::SQRT:
            return "sqrt";
        case ir::op::SQUARE:
            return "square";
        case ir::op::RECIPROCAL:
            return "reciprocal";
        case ir::op::TANH:
            return "tanh";
        case ir::op::SIN:
            return "sin";
        case ir::op::COS:
            return "cos";
        case ir::op::FLOOR:
            return "floor";
        case ir::op::CEIL:
            return "ceil";
        case ir::op::RINT:
            return "rint";
        case ir::op::ADD:
            return "add";
        case ir::op::SUB:
            return "subtract";
        case ir::op::MUL:
            return "multiply";
        case ir::op::DIV:
            return "true_divide";
        case ir::op::FLOORDIV:
            return "floor_divide";
        case ir::op::MOD:
            return "remainder";
        case ir::op::POW:
            return "power";
        case ir::op::MAXIMUM:
            return "maximum";
        case ir::op::MINIMUM:
            return "minimum";
        case ir::op::EQ:
            return "equal";
        case ir::op::NE:
            return "not_equal";
        case ir::op::LT:
            return "less";
        case ir::op::LE:
            return "less_equal";
        case ir::op::GT:
            return "greater";
        case ir::op::GE:
            return "greater_equal";
        case ir::op::BITWISE_AND:
            return "bitwise_and";
        case ir::op::BITWISE_OR:
            return "bitwise_or";
        case ir::op::BITWISE_XOR:
            return "bitwise_xor";
        case ir::op::LEFT_SHIFT:
            return "left_shift";
        case ir::op::RIGHT_SHIFT:
            return "right_shift";
        case ir::op::CLIP:
            return "clip";
        default:
            return nullptr;
        }
    }

    result<int> fill_numpy_loops(loop_table& table)
    {
        if (Py_IsInitialized() == 0)
        {
            return status::invalid("the Python interpreter is not initialised");
        }
        PyObject* umath = PyImport_ImportModule("numpy.core.umath"); // new reference
        if (umath == nullptr)
        {
            PyErr_Clear();
            return status::unimplemented("numpy.core.umath cannot be imported");
        }
        int added = 0;
        for (ir::op code : table_ops)
        {
            PyObject* obj = PyObject_GetAttrString(umath, numpy_ufunc_name(code)); // new reference
            if (obj == nullptr)
            {
                PyErr_Clear();
                continue;
            }
            if (std::strcmp(Py_TYPE(obj)->tp_name, "numpy.ufunc") == 0)
            {
                const auto* uf = reinterpret_cast<const PyUFuncObject*>(obj);
                for (ir::dtype t : ir::all_dtypes)
                {
                    if (auto loop = pick(uf, t, is_comparison(code)))
                    {
                        table.set(code, t, keeping_flags(*loop, uf->nin + uf->nout));
                        ++added;
                    }
                }
            }
            Py_DECREF(obj);
        }
        Py_DECREF(umath);
        return added;
    }
} // namespace specula::backends::cpu
