// The CPU backend's indexing, copy, creation and reduction kernels, compiled
// with no fallback (so every node must be the CPU backend's own) and compared
// bit for bit with NumPy (gen_cpu_kernel_oracle.py) and with the reference
// backend, on one lane and on two. Then the cases an oracle file cannot hold:
// out-of-range indices, strided (borrowed) inputs, and updates the memory plan
// runs in place over their input.

#include "backends/cpu/cpu_backend.hpp"
#include "backends/reference/reference_backend.hpp"
#include "graph_helpers.hpp"
#include "graph_program.hpp"
#include "ir/builder.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>

namespace
{
    using namespace specula;
    using namespace specula::backends;
    using namespace specula::backends::testing;
    using ir::dtype;

    const std::vector<graph_program>& programs()
    {
        static const std::vector<graph_program> all = []
        {
            std::string error;
            auto p = read_programs(SPECULA_CPU_KERNEL_ORACLE, error);
            if (!error.empty())
            {
                ADD_FAILURE() << error;
            }
            return p;
        }();
        return all;
    }

    // Without a fallback every node must be `be`'s own.
    run_result run_on(const backend& be, const ir::graph& g, const std::vector<buffer>& inputs,
                      bool plan = true, const backend* fallback = nullptr)
    {
        target t;
        t.plan_memory = plan;
        auto exe = be.compile(g, t, fallback);
        if (!exe)
        {
            return {exe.error(), {}, std::nullopt, {}};
        }
        // Twice: the second run reuses the plan's blocks and the kernels' scratch.
        run_result first = exe.value()->run(inputs);
        if (!first.state)
        {
            return first;
        }
        return exe.value()->run(inputs);
    }

    cpu::cpu_backend cpu_with(int lanes)
    {
        cpu::cpu_options o;
        o.threads = lanes;
        return cpu::cpu_backend(o);
    }

    std::string same_bytes(const buffer& got, const buffer& want)
    {
        if (got.dtype() != want.dtype() || got.shape() != want.shape())
        {
            return "dtype or shape differs";
        }
        oracle_array a = from_buffer(got);
        oracle_array b = from_buffer(want);
        return a.bytes() == b.bytes() && std::memcmp(a.data(), b.data(), a.bytes()) == 0
                   ? std::string()
                   : "bytes differ";
    }

    // One program on one lane count: NumPy's values and the reference's bytes.
    std::string check(const graph_program& p, int lanes)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        if (std::string refused = build_program(p, g); !refused.empty())
        {
            return "IR refused: " + refused;
        }
        std::vector<oracle_array> arrays = p.inputs;
        std::vector<buffer> inputs;
        for (auto& a : arrays)
        {
            inputs.push_back(to_buffer(a));
        }
        const cpu::cpu_backend cpu_be = cpu_with(lanes);
        run_result got = run_on(cpu_be, g, inputs);
        if (!got.state)
        {
            return "cpu: " + got.state.to_string();
        }
        reference::reference_backend ref;
        run_result want = run_on(ref, g, inputs);
        for (std::size_t i = 0; i < p.steps.size(); ++i)
        {
            oracle_array value = from_buffer(got.outputs[i]);
            oracle_array expected = p.steps[i].expected;
            std::string diff = compare("exact", value, expected, nullptr, 0);
            if (diff.empty() && want.state)
            {
                diff = same_bytes(got.outputs[i], want.outputs[i]);
                diff = diff.empty() ? diff : "against the reference backend: " + diff;
            }
            if (!diff.empty())
            {
                return "step " + std::to_string(i) + " (" + p.steps[i].mnemonic + "): " + diff;
            }
        }
        return want.state ? std::string() : "reference: " + want.state.to_string();
    }

    class cpu_kernels : public ::testing::TestWithParam<int>
    {
    protected:
        void run_family(const std::string& prefix)
        {
            int checked = 0;
            int failed = 0;
            for (const graph_program& p : programs())
            {
                if (p.name.rfind(prefix, 0) != 0)
                {
                    continue;
                }
                ++checked;
                std::string problem = check(p, GetParam());
                if (!problem.empty() && ++failed <= 10)
                {
                    ADD_FAILURE() << p.name << ": " << problem;
                }
            }
            EXPECT_GT(checked, 0);
            EXPECT_EQ(failed, 0);
        }
    };

    TEST_P(cpu_kernels, gather)
    {
        run_family("gather_");
    }
    TEST_P(cpu_kernels, gather_update)
    {
        run_family("gupdate_");
    }
    TEST_P(cpu_kernels, mask_select)
    {
        run_family("mselect_");
    }
    TEST_P(cpu_kernels, mask_update)
    {
        run_family("mupdate_");
    }
    TEST_P(cpu_kernels, slice_update)
    {
        run_family("supdate_");
    }
    TEST_P(cpu_kernels, concatenate_and_stack)
    {
        run_family("concat_");
    }
    TEST_P(cpu_kernels, creation)
    {
        run_family("create_");
    }

    TEST_P(cpu_kernels, reductions)
    {
        run_family("reduce_");
    }

    TEST_P(cpu_kernels, outer)
    {
        run_family("outer_");
    }

    INSTANTIATE_TEST_SUITE_P(lanes, cpu_kernels, ::testing::Values(1, 2),
                             [](const auto& info)
                             { return std::to_string(info.param) + "_lanes"; });

    // x (6,) gathered / updated at `index`.
    status index_status(const backend& be, std::int64_t index, bool update)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        auto x = b.input({dtype::float64, ir::shape{6}}, "x");
        auto i = b.input({dtype::int64, ir::shape{2}}, "i");
        auto v = b.constant(ir::scalar::of_float(dtype::float64, 2.5));
        b.output(update ? b.gather_update(x, i, v, 0) : b.gather(x, i, 0), "y");
        EXPECT_TRUE(b.ok()) << b.state().message();
        return run_on(be, g, {f64({6}, {1, 2, 3, 4, 5, 6}), i64({2}, {0, index})}).state;
    }

    TEST(cpu_kernels_errors, out_of_range_indices_fail_as_on_the_reference_backend)
    {
        const cpu::cpu_backend cpu_be = cpu_with(1);
        const reference::reference_backend ref;
        for (bool update : {false, true})
        {
            for (std::int64_t index : {6, -7, 100})
            {
                status c = index_status(cpu_be, index, update);
                status r = index_status(ref, index, update);
                EXPECT_EQ(c.code(), status_code::runtime_error) << c.to_string();
                EXPECT_EQ(c.code(), r.code()) << index;
            }
            for (std::int64_t index : {5, -6, -1})
            {
                EXPECT_TRUE(index_status(cpu_be, index, update)) << index;
            }
        }
    }

    // A (4, 6) float64 array seen transposed: (6, 4) with strides (8, 48).
    buffer transposed_input(std::vector<double>& storage)
    {
        storage.resize(24);
        for (std::size_t i = 0; i < storage.size(); ++i)
        {
            storage[i] = 0.25 * static_cast<double>(i) - 3.0;
        }
        return buffer::borrow(storage.data(), dtype::float64, {6, 4}, {8, 48});
    }

    TEST(cpu_kernels_layout, strided_inputs_give_the_reference_bytes)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        const ir::value_type xt{dtype::float64, ir::shape{6, 4}};
        auto x = b.input(xt, "x");
        auto mask = b.input({dtype::bool_, ir::shape{6}}, "mask");
        auto idx = b.constant(ir::constant_attr::from_values(
            dtype::int64, ir::shape{3},
            {ir::scalar::of_int(dtype::int64, 3), ir::scalar::of_int(dtype::int64, -4),
             ir::scalar::of_int(dtype::int64, 3)}));
        b.output(b.gather(x, idx, 0), "take0");
        b.output(b.gather(x, idx, 1), "take1");
        b.output(b.mask_select(x, mask), "select");
        b.output(b.gather_update(x, idx, b.gather(x, idx, 0), 0), "update");
        b.output(b.slice_update(x, x, {ir::slice_item::all()}), "copy");
        b.output(b.concatenate({x, x}, 1), "concat");
        ASSERT_TRUE(b.ok()) << b.state().message();
        std::vector<double> storage;
        bool mask_bytes[6] = {true, false, true, true, false, true};
        std::vector<buffer> inputs{transposed_input(storage),
                                   buffer::borrow(mask_bytes, dtype::bool_, {6})};
        for (int lanes : {1, 2})
        {
            run_result got = run_on(cpu_with(lanes), g, inputs);
            run_result want = run_on(reference::reference_backend(), g, inputs);
            ASSERT_TRUE(got.state) << got.state.to_string();
            ASSERT_TRUE(want.state) << want.state.to_string();
            for (std::size_t i = 0; i < got.outputs.size(); ++i)
            {
                EXPECT_EQ(same_bytes(got.outputs[i], want.outputs[i]), "") << "output " << i;
            }
        }
    }

    // Updates of a value nobody reads afterwards: the plan lets them write
    // over their input, and the assigned values are views of that input.
    TEST(cpu_kernels_layout, updates_in_place_match_fresh_buffers)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        auto a = b.input({dtype::float64, ir::shape{8}}, "a");
        auto i = b.input({dtype::int64, ir::shape{4}}, "i");
        auto mask = b.input({dtype::bool_, ir::shape{8}}, "mask");
        auto t = b.unary(ir::op::NEG, a);
        auto u = b.gather_update(t, i, b.gather(t, i, 0), 0);
        ir::slice_item reversed;
        reversed.step = -1;
        auto rev = b.slice(u, {reversed}); // a movement op: the reference backend's for now
        auto w = b.slice_update(u, rev, {ir::slice_item::all()});
        auto z = b.mask_update(w, mask, b.mask_select(w, mask));
        b.output(z, "z");
        ASSERT_TRUE(b.ok()) << b.state().message();
        std::vector<double> values{1, -2, 3.5, -0.0, 5, 6, -7, 8};
        bool mask_bytes[8] = {true, true, false, true, false, false, true, true};
        std::vector<buffer> inputs{f64({8}, values), i64({4}, {7, 0, -1, 2}),
                                   buffer::borrow(mask_bytes, dtype::bool_, {8})};
        const reference::reference_backend ref;
        run_result fresh = run_on(ref, g, inputs, false);
        ASSERT_TRUE(fresh.state) << fresh.state.to_string();
        for (int lanes : {1, 2})
        {
            run_result planned = run_on(cpu_with(lanes), g, inputs, true, &ref);
            ASSERT_TRUE(planned.state) << planned.state.to_string();
            EXPECT_EQ(same_bytes(planned.outputs[0], fresh.outputs[0]), "");
        }
    }
} // namespace

namespace
{
    using namespace specula;
    using namespace specula::backends;
    using namespace specula::backends::testing;
    using ir::dtype;

    // Symbolic dims: the kernels size everything from the run's shapes, so one
    // executable serves rows of any count, zero included.
    TEST(cpu_kernels_layout, symbolic_dims_follow_each_run)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        const ir::shape rows(
            std::vector<ir::dim>{ir::dim::symbol(g.new_symbol()), ir::dim::fixed(3)});
        auto x = b.input({dtype::float64, rows}, "x");
        auto idx = b.constant(ir::constant_attr::from_values(
            dtype::int64, ir::shape{2},
            {ir::scalar::of_int(dtype::int64, 2), ir::scalar::of_int(dtype::int64, -3)}));
        auto mask = b.binary(ir::op::GT, x, b.constant(ir::scalar::of_float(dtype::float64, 0.0)));
        b.output(b.reduce(ir::op::MEAN, x, {0}, false, 0), "mean0");
        b.output(b.reduce(ir::op::MAX, x, {1}, true, 0), "max1");
        b.output(b.reduce_all(ir::op::VAR, x, false, 1), "var");
        b.output(b.gather(x, idx, 1), "take");
        b.output(b.mask_select(x, mask), "select");
        b.output(b.mask_update(x, mask, b.constant(ir::scalar::of_float(dtype::float64, -1.5))),
                 "update");
        b.output(b.slice_update(x, b.constant(ir::scalar::of_float(dtype::float64, 9.0)),
                                {ir::slice_item::range(1, 0, 1)}),
                 "tail");
        b.output(b.concatenate({x, x}, 0), "twice");
        ASSERT_TRUE(b.ok()) << b.state().message();
        const reference::reference_backend ref;
        const cpu::cpu_backend cpu_be = cpu_with(2);
        auto exe = cpu_be.compile(g, target{});
        ASSERT_TRUE(exe) << exe.error().to_string(); // every node the CPU backend's own
        for (std::int64_t n : {5, 0, 1, 40000})
        {
            std::vector<double> values(static_cast<std::size_t>(n * 3));
            for (std::size_t i = 0; i < values.size(); ++i)
            {
                values[i] = std::sin(0.37 * static_cast<double>(i)) * 100.0;
            }
            std::vector<buffer> inputs{f64({n, 3}, values)};
            run_result got = run_on(cpu_be, g, inputs, true, &ref);
            run_result want = run_on(ref, g, inputs);
            ASSERT_EQ(got.state.code(), want.state.code()) << n << ": " << got.state.to_string();
            for (std::size_t i = 0; got.state && i < got.outputs.size(); ++i)
            {
                EXPECT_EQ(same_bytes(got.outputs[i], want.outputs[i]), "")
                    << "rows " << n << ", output " << i;
            }
        }
    }
} // namespace

namespace
{
    using namespace specula;
    using namespace specula::backends;
    using namespace specula::backends::testing;
    using ir::dtype;

    // A reversed view (negative stride, data at the last element) and a
    // stride-0 broadcast: what zero-copy movement ops hand the kernels.
    TEST(cpu_kernels_layout, reversed_and_broadcast_inputs_give_the_reference_bytes)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        auto x = b.input({dtype::float64, ir::shape{9}}, "x");
        auto w = b.input({dtype::float64, ir::shape{4, 9}}, "w");
        auto mask = b.input({dtype::bool_, ir::shape{9}}, "mask");
        auto idx = b.constant(ir::constant_attr::from_values(
            dtype::int64, ir::shape{2},
            {ir::scalar::of_int(dtype::int64, -1), ir::scalar::of_int(dtype::int64, 4)}));
        b.output(b.gather(x, idx, 0), "take");
        b.output(b.gather_update(w, idx, b.gather(x, idx, 0), 1), "update");
        b.output(b.mask_select(w, b.broadcast_to(mask, ir::shape{4, 9})), "select");
        b.output(b.mask_update(x, mask, b.unary(ir::op::NEG, b.mask_select(x, mask))), "mupdate");
        b.output(b.slice_update(w, x, {ir::slice_item::at(2)}), "row");
        b.output(b.reduce(ir::op::SUM, w, {0}, false, 0), "sum0");
        b.output(b.reduce(ir::op::VAR, w, {1}, true, 0), "var1");
        b.output(b.reduce_all(ir::op::ARGMAX, x, false, 0), "argmax");
        b.output(b.stack({x, x}, 1), "stack");
        ASSERT_TRUE(b.ok()) << b.state().message();
        std::vector<double> storage(9);
        for (std::size_t i = 0; i < storage.size(); ++i)
        {
            storage[i] = std::cos(1.7 * static_cast<double>(i)) * 10.0;
        }
        // x = storage[::-1]; w = x broadcast to 4 rows (stride 0).
        buffer reversed = buffer::borrow(storage.data() + 8, dtype::float64, {9}, {-8});
        buffer rows = buffer::borrow(storage.data() + 8, dtype::float64, {4, 9}, {0, -8});
        bool mask_bytes[9] = {true, false, false, true, true, false, true, false, true};
        std::vector<buffer> inputs{reversed, rows, buffer::borrow(mask_bytes, dtype::bool_, {9})};
        const reference::reference_backend ref;
        run_result want = run_on(ref, g, inputs);
        ASSERT_TRUE(want.state) << want.state.to_string();
        for (int lanes : {1, 2})
        {
            run_result got = run_on(cpu_with(lanes), g, inputs, true, &ref);
            ASSERT_TRUE(got.state) << got.state.to_string();
            for (std::size_t i = 0; i < got.outputs.size(); ++i)
            {
                EXPECT_EQ(same_bytes(got.outputs[i], want.outputs[i]), "") << "output " << i;
            }
        }
    }
} // namespace

namespace
{
    using namespace specula;
    using namespace specula::backends;
    using namespace specula::backends::testing;
    using ir::dtype;

    // Views made inside the graph (transpose, reversed slice, broadcast) read
    // by the kernels directly (reads_layout): the reference backend's bytes,
    // which materialises every view as a copy.
    TEST(cpu_kernels_layout, views_from_movement_ops_give_the_reference_bytes)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        auto x = b.input({dtype::float64, ir::shape{5, 7}}, "x");
        auto idx = b.input({dtype::int64, ir::shape{3}}, "idx");
        auto t = b.transpose(x, {1, 0});
        ir::slice_item reversed;
        reversed.step = -1;
        auto r = b.slice(x, {reversed, ir::slice_item::range(1, 6, 2)});
        auto wide = b.broadcast_to(b.slice(x, {ir::slice_item::at(0)}), ir::shape{4, 7});
        auto zero = b.constant(ir::scalar::of_float(dtype::float64, 0.0));
        b.output(b.gather(t, idx, 1), "take");
        b.output(b.gather_update(t, idx, b.gather(t, idx, 1), 1), "update");
        b.output(b.mask_select(r, b.binary(ir::op::GT, r, zero)), "select");
        b.output(b.slice_update(x, b.slice(t, {ir::slice_item::range(0, 5)}),
                                {ir::slice_item::range(0, 5), ir::slice_item::range(0, 5)}),
                 "square");
        b.output(b.concatenate({t, b.transpose(wide, {1, 0})}, 1), "concat");
        b.output(b.reduce(ir::op::SUM, t, {0}, false, 0), "sum0");
        b.output(b.reduce(ir::op::MAX, r, {1}, true, 0), "max1");
        b.output(b.reduce_all(ir::op::STD, wide, false, 1), "std");
        b.output(b.reduce(ir::op::ARGMIN, t, {1}, false, 0), "argmin");
        b.output(b.outer(r, b.slice(x, {ir::slice_item::at(-1)})), "outer");
        b.output(b.shape_dim(t, 0), "rows");
        ASSERT_TRUE(b.ok()) << b.state().message();
        std::vector<double> values(35);
        for (std::size_t i = 0; i < values.size(); ++i)
        {
            values[i] = std::sin(2.3 * static_cast<double>(i)) * 7.0;
        }
        std::vector<buffer> inputs{f64({5, 7}, values), i64({3}, {-1, 2, 4})};
        const reference::reference_backend ref;
        run_result want = run_on(ref, g, inputs, false);
        ASSERT_TRUE(want.state) << want.state.to_string();
        for (int lanes : {1, 2})
        {
            run_result got = run_on(cpu_with(lanes), g, inputs); // no fallback: all CPU
            ASSERT_TRUE(got.state) << got.state.to_string();
            for (std::size_t i = 0; i < got.outputs.size(); ++i)
            {
                EXPECT_EQ(same_bytes(got.outputs[i], want.outputs[i]), "") << "output " << i;
            }
        }
    }
} // namespace
