// Chains of rank-1 updates (backends/cpu/rank1_chain.cpp) against the same
// graph on the reference backend and on the CPU backend node by node (whose
// matmul and add test_cpu_oracle checks against NumPy): the same bytes,
// signed zeros, NaN, inf and subnormals included.

#include "cpu_test_support.hpp"

#include "backends/reference/reference_backend.hpp"
#include "ir/builder.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

namespace
{
    using namespace specula;
    using namespace specula::backends;

    // Random values with a sprinkling of -0.0, NaN and subnormals, so every
    // NaN of a result is the input's. `mixed_nans`: also inf (inf * 0 makes
    // NumPy's default NaN, -nan here), -NaN and a NaN with a payload, so
    // different NaNs meet in one sum. Which one an instruction passes on is
    // then the compiler's choice of operand order: NumPy's own add gives
    // one in its vector body and may give the other in its scalar tail, so
    // such sums are compared with the reference backend only, whose plain
    // loops give the first operand's NaN as the chain kernel does.
    buffer special_buffer(ir::dtype t, std::vector<std::int64_t> shape, unsigned seed,
                          bool mixed_nans)
    {
        auto b = buffer::allocate(t, std::move(shape));
        std::mt19937_64 rng(seed);
        std::normal_distribution<double> dist(0.0, 2.0);
        std::uniform_int_distribution<int> pick(0, 40);
        for (std::int64_t i = 0; i < b->size(); ++i)
        {
            double v = dist(rng);
            switch (pick(rng))
            {
            case 0:
                v = -0.0;
                break;
            case 1:
                v = std::numeric_limits<double>::quiet_NaN();
                break;
            case 2:
                v = t == ir::dtype::float64 ? 5e-324 : 1e-45;
                break;
            case 3:
                v = mixed_nans ? std::numeric_limits<double>::infinity() : v;
                break;
            case 4:
                v = mixed_nans ? -std::numeric_limits<double>::quiet_NaN() : v;
                break;
            case 5:
                v = mixed_nans ? std::nan("291") : v; // a payload
                break;
            default:
                break;
            }
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

    struct chain_case
    {
        ir::dtype t = ir::dtype::float64;
        std::int64_t m = 0, p = 0, steps = 0;
        bool strided = false;  // columns sliced from a matrix, rows of a transposed one
        int read_partial = -1; // a partial sum also returned after this step
    };

    // acc = x; acc = acc + a_t @ h_t.T (or a_t @ h_t.T + acc on odd steps).
    // Inputs: x (m,p), then either per step a_t (m,1) and h_t (p,1), or
    // (strided) one (m,steps) matrix of columns and one (p,steps) matrix
    // whose transpose gives the rows.
    void build(ir::graph& g, const chain_case& c)
    {
        ir::builder b(g);
        const ir::value_id x = b.input({c.t, ir::shape{c.m, c.p}}, "x");
        ir::value_id cols = ir::no_id, rows = ir::no_id;
        if (c.strided)
        {
            cols = b.input({c.t, ir::shape{c.m, c.steps}}, "cols");
            rows = b.transpose(b.input({c.t, ir::shape{c.p, c.steps}}, "rows"), {1, 0});
        }
        ir::value_id acc = x;
        for (std::int64_t s = 0; s < c.steps; ++s)
        {
            ir::value_id a, r;
            if (c.strided)
            {
                a = b.slice(cols, {ir::slice_item::all(), ir::slice_item::range(s, s + 1)});
                r = b.slice(rows, {ir::slice_item::range(s, s + 1), ir::slice_item::all()});
            }
            else
            {
                a = b.input({c.t, ir::shape{c.m, 1}}, "a");
                r = b.transpose(b.input({c.t, ir::shape{c.p, 1}}, "h"), {1, 0});
            }
            const ir::value_id prod = b.matmul(a, r);
            acc = s % 2 == 0 ? b.binary(ir::op::ADD, acc, prod) : b.binary(ir::op::ADD, prod, acc);
            if (s == c.read_partial)
            {
                b.output(b.binary(ir::op::MUL, acc, acc), "partial");
            }
        }
        b.output(acc, "sum");
        ASSERT_TRUE(b.ok()) << b.state().message();
    }

    std::vector<buffer> inputs_for(const ir::graph& g, unsigned seed, bool mixed_nans)
    {
        std::vector<buffer> in;
        for (ir::node_id id : g.get_region(g.body()).nodes)
        {
            const ir::node& n = g.get_node(id);
            if (n.code == ir::op::INPUT)
            {
                const ir::value_type& t = g.type_of(n.outputs[0]);
                in.push_back(special_buffer(t.elem, *t.dims.static_sizes(), seed++, mixed_nans));
            }
        }
        return in;
    }

    struct run_out
    {
        std::vector<buffer> outputs;
        std::size_t scheduled = 0;
    };

    run_out run_on(const backend& be, const ir::graph& g, const std::vector<buffer>& in)
    {
        auto exe = be.compile(g, target{});
        EXPECT_TRUE(exe) << (exe ? "" : exe.error().to_string());
        if (!exe)
        {
            return {};
        }
        run_result r = exe.value()->run(in);
        EXPECT_TRUE(r.state) << r.state.to_string();
        // A second run reuses the kernel's scratch and the arena's blocks.
        run_result again = exe.value()->run(in);
        EXPECT_TRUE(again.state) << again.state.to_string();
        for (std::size_t i = 0; i < r.outputs.size() && i < again.outputs.size(); ++i)
        {
            EXPECT_EQ(0, std::memcmp(r.outputs[i].data(), again.outputs[i].data(),
                                     static_cast<std::size_t>(r.outputs[i].size()) *
                                         r.outputs[i].itemsize()));
        }
        return {r.outputs, exe.value()->main().m_regions[g.body()].size()};
    }

    void expect_same_bytes(const std::vector<buffer>& a, const std::vector<buffer>& b,
                           const std::string& what)
    {
        ASSERT_EQ(a.size(), b.size()) << what;
        for (std::size_t i = 0; i < a.size(); ++i)
        {
            ASSERT_EQ(a[i].shape(), b[i].shape()) << what;
            const auto bytes = static_cast<std::size_t>(a[i].size()) * a[i].itemsize();
            if (std::memcmp(a[i].data(), b[i].data(), bytes) == 0)
            {
                continue;
            }
            for (std::int64_t k = 0; k < a[i].size(); ++k)
            {
                const std::size_t item = a[i].itemsize();
                if (std::memcmp(a[i].data() + k * item, b[i].data() + k * item, item) != 0)
                {
                    ADD_FAILURE() << what << ": output " << i << " element " << k << ": "
                                  << a[i].element_as_double(k) << " vs "
                                  << b[i].element_as_double(k);
                    break;
                }
            }
        }
    }

    cpu::cpu_options options(bool fuse)
    {
        cpu::cpu_options opts;
        opts.numpy_loops = cpu::testing::numpy_table();
        opts.fuse = fuse;
        return opts;
    }

    void check(const chain_case& c)
    {
        ir::module mod;
        ir::graph& g = mod.add_graph("main");
        build(g, c);
        const std::string what = std::string(ir::dtype_name(c.t)) + " " + std::to_string(c.m) +
                                 "x" + std::to_string(c.p) + " steps " + std::to_string(c.steps) +
                                 (c.strided ? " strided" : "") + " partial " +
                                 std::to_string(c.read_partial);
        cpu::cpu_backend chained(options(true));
        cpu::cpu_backend plain(options(false));
        reference::reference_backend ref;
        const std::vector<buffer> in = inputs_for(g, 11, false);
        const run_out a = run_on(chained, g, in);
        const run_out b = run_on(plain, g, in);
        const run_out r = run_on(ref, g, in);
        // The chain runs as one node (two when a partial sum splits it).
        const std::size_t groups = c.read_partial >= 0 && c.read_partial + 1 < c.steps ? 2 : 1;
        EXPECT_EQ(a.scheduled + 2 * static_cast<std::size_t>(c.steps) - groups, b.scheduled)
            << what;
        expect_same_bytes(a.outputs, b.outputs, what + " (chain vs node by node)");
        expect_same_bytes(a.outputs, r.outputs, what + " (chain vs reference)");
        // Where different NaNs meet: the first operand's (special_buffer).
        const std::vector<buffer> mixed = inputs_for(g, 11, true);
        expect_same_bytes(run_on(chained, g, mixed).outputs, run_on(ref, g, mixed).outputs,
                          what + " (chain vs reference, mixed NaNs)");
    }
} // namespace

TEST(cpu_rank1_chain, equals_node_by_node_and_reference_bitwise)
{
    for (ir::dtype t : {ir::dtype::float64, ir::dtype::float32})
    {
        for (auto [m, p] : {std::pair<std::int64_t, std::int64_t>{9, 6},
                            {100, 100},
                            {68, 100},
                            {1, 37},
                            {33, 1},
                            {5, 17}})
        {
            for (bool strided : {false, true})
            {
                check({t, m, p, 25, strided, -1});
            }
        }
    }
}

TEST(cpu_rank1_chain, one_step_and_split_chains)
{
    check({ir::dtype::float64, 12, 7, 1, false, -1});
    check({ir::dtype::float64, 12, 7, 6, false, 2}); // a partial sum read: 3 + 3 steps
    check({ir::dtype::float64, 12, 7, 6, true, 0});  // 1 + 5 steps
}
