// Reductions of the CPU backend (NumPy's loops, one lane and two) against
// NumPy called in this process on the same bytes, bit for bit: NaN payloads
// (the default NaN, -NaN as inf - inf makes it, a payload) at the start, the
// middle and the end, +-inf, signed zeros, runs past NumPy's 8192-element
// buffer and past the lanes' split, every axis form, keepdims, integers. The
// reference backend folds sequentially: it must agree on every value, and on
// every bit where no NaN and no zero decides the result (NumPy's SIMD picks
// those by lane).

#include "cpu_test_support.hpp"

#include "backends/reference/reference_backend.hpp"
#include "ir/builder.hpp"

#include <Python.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

namespace
{
    using namespace specula;
    using namespace specula::backends;
    using ir::dtype;

    // NumPy's answer for np.<fn>(x, axis=..., keepdims=...) over raw bytes.
    std::vector<std::byte> numpy_reduce(const buffer& x, const std::string& fn,
                                        const std::string& axis, bool keep)
    {
        static PyObject* helper = []
        {
            PyRun_SimpleString("import numpy as _np\n"
                               "def _specula_reduce(b, dt, shape, fn, axis, keep):\n"
                               "    x = _np.frombuffer(b, dt).reshape(shape)\n"
                               "    kw = {} if fn.startswith('arg') else {'keepdims': keep}\n"
                               "    return _np.ascontiguousarray(getattr(_np, fn)(x, axis=axis, "
                               "**kw)).tobytes()\n");
            PyObject* main = PyImport_AddModule("__main__");        // borrowed
            return PyObject_GetAttrString(main, "_specula_reduce"); // new, kept for the process
        }();
        std::string shape = "(";
        for (auto d : x.shape())
        {
            shape += std::to_string(d) + ",";
        }
        shape += ")";
        const std::string code = "(" + shape + ", " + axis + ")";
        PyObject* args_tuple = PyRun_String(code.c_str(), Py_eval_input,
                                            PyModule_GetDict(PyImport_AddModule("__main__")),
                                            nullptr); // new
        PyObject* bytes = PyBytes_FromStringAndSize(reinterpret_cast<const char*>(x.data()),
                                                    x.size() * x.itemsize()); // new
        PyObject* r = PyObject_CallFunction(
            helper, "OsOsOO", bytes, std::string(ir::dtype_name(x.dtype())).c_str(),
            PyTuple_GetItem(args_tuple, 0), fn.c_str(), PyTuple_GetItem(args_tuple, 1),
            keep ? Py_True : Py_False); // new
        std::vector<std::byte> out;
        if (r == nullptr)
        {
            PyErr_Print();
        }
        else
        {
            const auto* p = reinterpret_cast<const std::byte*>(PyBytes_AsString(r));
            out.assign(p, p + PyBytes_Size(r));
        }
        Py_XDECREF(r);
        Py_XDECREF(bytes);
        Py_XDECREF(args_tuple);
        return out;
    }

    struct reduction
    {
        ir::op code;
        const char* numpy;
    };

    // `axes` empty: over all axes (NumPy's axis=None).
    run_result run_reduction(const backend& be, ir::op code, const buffer& x,
                             const std::vector<int>& axes, bool keep)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        auto in = b.input({x.dtype(), ir::shape::of(x.shape())}, "x");
        b.output(axes.empty() ? b.reduce_all(code, in, keep) : b.reduce(code, in, axes, keep), "y");
        if (!b.ok())
        {
            return {status::invalid(b.state().message()), {}, std::nullopt, {}};
        }
        auto exe = be.compile(g, target{});
        if (!exe)
        {
            return {exe.error(), {}, std::nullopt, {}};
        }
        exe.value()->run({x}); // the second run reuses the first's memory
        return exe.value()->run({x});
    }

    std::string axis_text(const std::vector<int>& axes)
    {
        if (axes.empty())
        {
            return "None";
        }
        std::string s = "(";
        for (int a : axes)
        {
            s += std::to_string(a) + ",";
        }
        return s + ")";
    }

    double as_double(const std::byte* p, dtype t)
    {
        if (t == dtype::float32)
        {
            float f;
            std::memcpy(&f, p, 4);
            return f;
        }
        double d;
        std::memcpy(&d, p, 8);
        return d;
    }

    // The reference folds in C order: the same value everywhere, and the
    // same bits where neither a NaN nor a zero is the answer.
    std::string against_reference(const buffer& got, const buffer& ref)
    {
        if (got.size() != ref.size() || got.dtype() != ref.dtype())
        {
            return "shape or dtype differs from the reference";
        }
        const std::size_t item = got.itemsize();
        for (std::int64_t i = 0; i < got.size(); ++i)
        {
            const std::byte* a = got.data() + i * item;
            const std::byte* r = ref.data() + i * item;
            if (std::memcmp(a, r, item) == 0)
            {
                continue;
            }
            if (ir::is_float(got.dtype()))
            {
                const double va = as_double(a, got.dtype());
                const double vr = as_double(r, got.dtype());
                if ((std::isnan(va) && std::isnan(vr)) || (va == 0.0 && vr == 0.0))
                {
                    continue;
                }
            }
            return "element " + std::to_string(i) + " differs from the reference";
        }
        return {};
    }

    std::string check(ir::op code, const char* numpy_fn, const buffer& x,
                      const std::vector<int>& axes, bool keep, int lanes)
    {
        cpu::cpu_options o;
        o.numpy_loops = cpu::testing::numpy_table();
        o.threads = lanes;
        const cpu::cpu_backend cpu_be(o);
        run_result got = run_reduction(cpu_be, code, x, axes, keep);
        if (!got.state)
        {
            return "cpu: " + got.state.to_string();
        }
        const buffer& y = got.outputs[0];
        // argmax/argmin take an integer axis, not a tuple.
        const bool arg = numpy_fn[0] == 'a';
        const std::string axis =
            arg && axes.size() == 1 ? std::to_string(axes[0]) : axis_text(axes);
        const std::vector<std::byte> want = numpy_reduce(x, numpy_fn, axis, keep);
        const auto bytes = static_cast<std::size_t>(y.size()) * y.itemsize();
        if (want.size() != bytes || std::memcmp(want.data(), y.data(), bytes) != 0)
        {
            for (std::size_t i = 0; i < std::min(bytes, want.size()); ++i)
            {
                if (want[i] != y.data()[i])
                {
                    return "differs from NumPy at byte " + std::to_string(i) + " of " +
                           std::to_string(bytes);
                }
            }
            return "size differs from NumPy's";
        }
        const reference::reference_backend ref;
        run_result r = run_reduction(ref, code, x, axes, keep);
        if (!r.state)
        {
            return "reference: " + r.state.to_string();
        }
        return against_reference(y, r.outputs[0]);
    }

    template <class T>
    T from_bits(std::uint64_t bits)
    {
        T v;
        if constexpr (sizeof(T) == 8)
        {
            std::memcpy(&v, &bits, 8);
        }
        else
        {
            const auto b32 = static_cast<std::uint32_t>(bits);
            std::memcpy(&v, &b32, 4);
        }
        return v;
    }

    // NaNs of three kinds: NumPy's default, -NaN (inf - inf on x86), a payload.
    template <class T>
    std::vector<T> nans()
    {
        if constexpr (sizeof(T) == 8)
        {
            return {from_bits<T>(0x7ff8000000000000ULL), from_bits<T>(0xfff8000000000000ULL),
                    from_bits<T>(0x7ff8000000000123ULL)};
        }
        else
        {
            return {from_bits<T>(0x7fc00000U), from_bits<T>(0xffc00000U),
                    from_bits<T>(0x7fc00123U)};
        }
    }

    // Inputs of one float type: random values; NaNs at the start, middle and
    // end (and several kinds in one array); infinities; signed zeros with
    // negatives (a zero maximum); zeros with one positive.
    template <class T>
    std::vector<std::vector<T>> float_patterns(std::int64_t n, std::mt19937_64& rng)
    {
        std::normal_distribution<double> normal;
        std::vector<std::vector<T>> out;
        std::vector<T> base(static_cast<std::size_t>(n));
        for (auto& v : base)
        {
            v = static_cast<T>(normal(rng));
        }
        out.push_back(base);
        const std::vector<T> nan_kinds = nans<T>();
        for (std::int64_t at : {std::int64_t(0), n / 2, n - 1})
        {
            for (T nan : nan_kinds)
            {
                std::vector<T> v = base;
                v[static_cast<std::size_t>(at)] = nan;
                out.push_back(v);
            }
        }
        if (n >= 3)
        {
            std::vector<T> v = base;
            v[1] = nan_kinds[2];
            v[static_cast<std::size_t>(n - 1)] = nan_kinds[1];
            out.push_back(v);
        }
        std::vector<T> inf = base;
        inf[static_cast<std::size_t>(n / 3)] = std::numeric_limits<T>::infinity();
        inf[static_cast<std::size_t>(n - 1)] = -std::numeric_limits<T>::infinity();
        out.push_back(inf);
        std::uniform_int_distribution<int> pick(0, 3);
        std::vector<T> zeros(static_cast<std::size_t>(n));
        for (auto& v : zeros)
        {
            const int k = pick(rng);
            v = k == 0 ? T(0.0) : k == 1 ? T(-0.0) : T(-1.5);
        }
        out.push_back(zeros);
        std::vector<T> negated = zeros;
        for (auto& v : negated)
        {
            v = -v; // +-0 and 1.5: a zero minimum
        }
        out.push_back(negated);
        std::vector<T> pos = zeros;
        pos[static_cast<std::size_t>(n / 2)] = T(2.0);
        out.push_back(pos);
        return out;
    }

    template <class T>
    buffer make(const std::vector<T>& v, dtype t, const std::vector<std::int64_t>& shape)
    {
        buffer b = buffer::allocate(t, shape).value();
        std::memcpy(b.data(), v.data(), v.size() * sizeof(T));
        return b;
    }

    struct shaped
    {
        std::vector<std::int64_t> shape;
        std::vector<std::vector<int>> axes;
    };

    // 1-D sizes around SIMD widths, NumPy's 8192 buffer and the lanes'
    // split; 2-D and 3-D with every axis form.
    std::vector<shaped> shapes()
    {
        std::vector<shaped> s;
        for (std::int64_t n : {1, 2, 7, 17, 100, 8191, 8192, 8193, 16385, 70001, 300000})
        {
            s.push_back({{n}, {{}}});
        }
        s.push_back({{3, 9000}, {{}, {0}, {1}}});
        s.push_back({{700, 130}, {{}, {0}, {1}}});
        s.push_back({{2, 40000}, {{0}, {1}}});
        s.push_back({{4, 5, 3000}, {{0, 2}, {1}, {0, 1}, {2}}});
        s.push_back({{600, 3, 50}, {{0, 2}, {1, 2}, {0}}});
        s.push_back({{300, 1000}, {{0}, {1}}}); // past the argmax scans' lane split
        return s;
    }

    template <class T>
    void float_cases(dtype t, const reduction& r)
    {
        std::mt19937_64 rng(20261122);
        int checked = 0;
        int failed = 0;
        for (const shaped& s : shapes())
        {
            std::int64_t n = 1;
            for (auto d : s.shape)
            {
                n *= d;
            }
            for (const std::vector<T>& v : float_patterns<T>(n, rng))
            {
                const buffer x = make(v, t, s.shape);
                for (const auto& axes : s.axes)
                {
                    if (r.numpy[0] == 'a' && axes.size() > 1)
                    {
                        continue;
                    }
                    for (bool keep : {false, true})
                    {
                        if (keep && r.numpy[0] == 'a')
                        {
                            continue;
                        }
                        for (int lanes : {1, 2})
                        {
                            ++checked;
                            const std::string problem =
                                check(r.code, r.numpy, x, axes, keep, lanes);
                            if (!problem.empty() && ++failed <= 10)
                            {
                                ADD_FAILURE() << r.numpy << " " << ir::dtype_name(t) << " n=" << n
                                              << " axes=" << axis_text(axes) << " keepdims=" << keep
                                              << " lanes=" << lanes << ": " << problem;
                            }
                        }
                    }
                }
            }
        }
        EXPECT_GT(checked, 0);
        EXPECT_EQ(failed, 0);
    }

    TEST(cpu_reductions, max_and_min_of_floats_are_numpys_bits)
    {
        for (const reduction& r : {reduction{ir::op::MAX, "max"}, reduction{ir::op::MIN, "min"}})
        {
            float_cases<double>(dtype::float64, r);
            float_cases<float>(dtype::float32, r);
        }
    }

    // argmax/argmin take one axis or none.
    TEST(cpu_reductions, argmax_and_argmin_of_floats_are_numpys)
    {
        for (const reduction& r :
             {reduction{ir::op::ARGMAX, "argmax"}, reduction{ir::op::ARGMIN, "argmin"}})
        {
            float_cases<double>(dtype::float64, r);
            float_cases<float>(dtype::float32, r);
        }
    }

    template <class T>
    void integer_cases(dtype t, const reduction& r)
    {
        std::mt19937_64 rng(7);
        std::uniform_int_distribution<long long> d(-100, 100);
        for (const shaped& s : shapes())
        {
            std::int64_t n = 1;
            for (auto e : s.shape)
            {
                n *= e;
            }
            std::vector<T> v(static_cast<std::size_t>(n));
            for (auto& e : v)
            {
                e = static_cast<T>(t == dtype::bool_ ? d(rng) > 90 : d(rng));
            }
            const buffer x = make(v, t, s.shape);
            for (const auto& axes : s.axes)
            {
                const bool arg = r.numpy[0] == 'a';
                if (arg && axes.size() > 1)
                {
                    continue;
                }
                for (int lanes : {1, 2})
                {
                    const std::string problem = check(r.code, r.numpy, x, axes, !arg, lanes);
                    EXPECT_TRUE(problem.empty())
                        << r.numpy << " " << ir::dtype_name(t) << " n=" << n
                        << " axes=" << axis_text(axes) << " lanes=" << lanes << ": " << problem;
                }
            }
        }
    }

    TEST(cpu_reductions, max_and_min_of_integers_and_bools_are_numpys)
    {
        for (const reduction& r : {reduction{ir::op::MAX, "max"}, reduction{ir::op::MIN, "min"}})
        {
            integer_cases<std::int64_t>(dtype::int64, r);
            integer_cases<std::int32_t>(dtype::int32, r);
            integer_cases<std::int8_t>(dtype::int8, r);
            integer_cases<std::uint8_t>(dtype::uint8, r);
            integer_cases<std::uint8_t>(dtype::bool_, r); // bytes 0 and 1
        }
    }

    TEST(cpu_reductions, argmax_and_argmin_of_integers_and_bools_are_numpys)
    {
        for (const reduction& r :
             {reduction{ir::op::ARGMAX, "argmax"}, reduction{ir::op::ARGMIN, "argmin"}})
        {
            integer_cases<std::int64_t>(dtype::int64, r);
            integer_cases<std::int32_t>(dtype::int32, r);
            integer_cases<std::uint8_t>(dtype::uint8, r);
            integer_cases<std::uint8_t>(dtype::bool_, r);
        }
    }

    TEST(cpu_reductions, empty_extremum_is_an_error_not_a_value)
    {
        cpu::cpu_options o;
        o.numpy_loops = cpu::testing::numpy_table();
        const cpu::cpu_backend cpu_be(o);
        const buffer x = buffer::allocate(dtype::float64, {0, 4}).value();
        for (ir::op code : {ir::op::MAX, ir::op::MIN, ir::op::ARGMAX, ir::op::ARGMIN})
        {
            EXPECT_EQ(run_reduction(cpu_be, code, x, {}, false).state.code(),
                      status_code::runtime_error);
            EXPECT_EQ(run_reduction(cpu_be, code, x, {0}, false).state.code(),
                      status_code::runtime_error);
            // Over axis 1: no output at all, which is no error.
            EXPECT_TRUE(run_reduction(cpu_be, code, x, {1}, false).state);
        }
    }
} // namespace
