#define PY_SSIZE_T_CLEAN
#include "views_support.hpp"

#include "backends/cpu/numpy_loops/numpy_loops.hpp"
#include "backends/reference/reference_backend.hpp"
#include "backends/strided_copy.hpp"
#include "ir/passes/fuse_elementwise.hpp"

#include <Python.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>

namespace specula::views_test
{
    using backends::buffer;

    std::shared_ptr<const backends::cpu::loop_table>& numpy_table()
    {
        static std::shared_ptr<const backends::cpu::loop_table> table;
        return table;
    }

    buffer random_buffer(ir::dtype t, std::vector<std::int64_t> shape, unsigned seed)
    {
        auto b = buffer::allocate(t, std::move(shape));
        std::mt19937_64 rng(seed);
        std::normal_distribution<double> dist(0.0, 3.0);
        for (std::int64_t i = 0; i < b->size(); ++i)
        {
            const double v = dist(rng);
            if (t == ir::dtype::float64)
            {
                reinterpret_cast<double*>(b->data())[i] = v;
            }
            else
            {
                reinterpret_cast<float*>(b->data())[i] = static_cast<float>(v);
            }
        }
        return b.value();
    }

    std::vector<unsigned char> bytes_of(const buffer& b)
    {
        std::vector<unsigned char> out(static_cast<std::size_t>(b.size()) * b.itemsize());
        backends::copy_to_contiguous(b, reinterpret_cast<std::byte*>(out.data()));
        return out;
    }

    namespace
    {
        const char* numpy_name(ir::dtype t)
        {
            return t == ir::dtype::float32 ? "float32" : "float64";
        }

        // Borrowed-reference-free helper: the oracle's Python side.
        PyObject* oracle_module()
        {
            static PyObject* globals = nullptr;
            if (globals == nullptr)
            {
                globals = PyDict_New(); // owned for the process
                PyDict_SetItemString(globals, "__builtins__", PyEval_GetBuiltins());
                PyObject* r = PyRun_String(
                    "import numpy as np\n"
                    "def _run(expr, arrays):\n"
                    "    env = {'np': np}\n"
                    "    for i, (raw, dt, shape) in enumerate(arrays):\n"
                    "        env['abcdefgh'[i]] = np.frombuffer(raw, "
                    "dtype=dt).reshape(shape).copy()\n"
                    "    x = np.asarray(eval(expr, env))\n"
                    "    return (str(x.dtype), list(x.shape), np.ascontiguousarray(x).tobytes())\n",
                    Py_file_input, globals, globals);
                Py_XDECREF(r);
            }
            return globals;
        }
    } // namespace

    buffer numpy_eval(const std::string& expr, const std::vector<buffer>& ins)
    {
        PyObject* globals = oracle_module();
        PyObject* arrays = PyList_New(0); // new reference
        for (const buffer& b : ins)
        {
            const auto raw = bytes_of(b);
            PyObject* shape = PyList_New(0);
            for (auto d : b.shape())
            {
                PyObject* dim = PyLong_FromLongLong(d);
                PyList_Append(shape, dim);
                Py_DECREF(dim);
            }
            PyObject* item = Py_BuildValue("(y#sN)", reinterpret_cast<const char*>(raw.data()),
                                           static_cast<Py_ssize_t>(raw.size()),
                                           numpy_name(b.dtype()), shape); // steals shape
            PyList_Append(arrays, item);
            Py_DECREF(item);
        }
        PyObject* fn = PyDict_GetItemString(globals, "_run"); // borrowed
        PyObject* res = PyObject_CallFunction(fn, "sO", expr.c_str(), arrays);
        Py_DECREF(arrays);
        if (res == nullptr)
        {
            PyErr_Print();
            ADD_FAILURE() << "NumPy failed on " << expr;
            return buffer{};
        }
        const std::string dt = PyUnicode_AsUTF8(PyTuple_GetItem(res, 0));
        std::vector<std::int64_t> shape;
        PyObject* dims = PyTuple_GetItem(res, 1);
        for (Py_ssize_t i = 0; i < PyList_Size(dims); ++i)
        {
            shape.push_back(PyLong_AsLongLong(PyList_GetItem(dims, i)));
        }
        auto out =
            buffer::allocate(dt == "float32" ? ir::dtype::float32 : ir::dtype::float64, shape);
        PyObject* raw = PyTuple_GetItem(res, 2);
        std::memcpy(out->data(), PyBytes_AsString(raw),
                    static_cast<std::size_t>(PyBytes_Size(raw)));
        Py_DECREF(res);
        return out.value();
    }

    std::vector<buffer> run_graph(const graph_fn& body, const std::vector<buffer>& ins,
                                  const run_options& opt, int runs,
                                  std::vector<std::string>* node_backends)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        std::vector<ir::value_id> args;
        for (const buffer& in : ins)
        {
            args.push_back(b.input({in.dtype(), ir::shape::of(in.shape())}));
        }
        body(b, args);
        EXPECT_TRUE(b.ok()) << b.state().message();
        if (opt.fuse)
        {
            ir::fuse_elementwise(g);
        }
        backends::target tgt;
        tgt.plan_memory = opt.plan;
        tgt.exact = opt.exact;
        backends::reference::reference_backend ref;
        backends::cpu::cpu_options copts;
        copts.numpy_loops = numpy_table();
        copts.views = opt.views;
        copts.fuse = opt.fuse;
        copts.threads = opt.threads;
        backends::cpu::cpu_backend cpu(copts);
        auto exe = opt.reference ? ref.compile(g, tgt) : cpu.compile(g, tgt, &ref);
        EXPECT_TRUE(exe) << (exe ? "" : exe.error().to_string());
        if (!exe)
        {
            return {};
        }
        if (node_backends != nullptr)
        {
            for (const auto& cn : exe.value()->main().m_regions[g.body()])
            {
                node_backends->push_back(std::string(ir::mnemonic(cn.p_node->code)) + ":" +
                                         cn.m_backend);
            }
        }
        backends::run_result r;
        for (int i = 0; i < runs; ++i)
        {
            r = exe.value()->run(ins);
            EXPECT_TRUE(r.state) << r.state.to_string();
        }
        return r.outputs;
    }
} // namespace specula::views_test

int main(int argc, char** argv)
{
    ::testing::InitGoogleTest(&argc, argv);
    Py_InitializeEx(0);
    auto table = std::make_shared<specula::backends::cpu::loop_table>();
    auto filled = specula::backends::cpu::fill_numpy_loops(*table);
    if (!filled || filled.value() == 0)
    {
        std::fprintf(stderr, "NumPy loops unavailable\n");
        return 1;
    }
    specula::views_test::numpy_table() = table;
    return RUN_ALL_TESTS();
}
