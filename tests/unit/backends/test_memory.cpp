// Executing from the IR's memory plan: no allocation after the first run,
// in-place ops that never overwrite a value still needed, outputs that stay
// the caller's across later runs, and loop-carried values whose size changes
// per iteration (iteration-scoped symbols).

#include "backends/reference/reference_backend.hpp"
#include "graph_helpers.hpp"
#include "ir/builder.hpp"
#include "ir/passes/plan_memory.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>

namespace
{
    using namespace specula;
    using namespace specula::backends;
    using namespace specula::backends::testing;
    using ir::dtype;
    using ir::op;

    const ir::value_type i64_scalar{dtype::int64, ir::shape{}};

    std::unique_ptr<executable> compile(const ir::graph& g, bool plan = true)
    {
        reference::reference_backend ref;
        target t;
        t.plan_memory = plan;
        auto exe = ref.compile(g, t);
        EXPECT_TRUE(exe) << (exe ? "" : exe.error().to_string());
        return exe ? std::move(exe.value()) : nullptr;
    }

    // Buffers allocated by one run whose outputs the caller drops at once.
    std::int64_t allocations_of_run(const executable& exe, const std::vector<buffer>& inputs)
    {
        const std::int64_t before = buffer::allocation_count();
        EXPECT_TRUE(exe.run(inputs).state);
        return buffer::allocation_count() - before;
    }

    std::vector<double> ramp(int n, double scale)
    {
        std::vector<double> v(static_cast<std::size_t>(n));
        std::iota(v.begin(), v.end(), 1.0);
        for (double& x : v)
        {
            x *= scale;
        }
        return v;
    }

    // y = ((x * 2 + 1) exp) * x, z = sum(y): a chain the plan runs in place.
    void build_chain(ir::graph& g)
    {
        ir::builder b(g);
        auto x = b.input({dtype::float64, ir::shape{64}}, "x");
        auto two = b.constant(ir::scalar::of_float(dtype::float64, 2.0));
        auto one = b.constant(ir::scalar::of_float(dtype::float64, 1.0));
        auto t = b.binary(op::ADD, b.binary(op::MUL, x, two), one);
        auto y = b.binary(op::MUL, b.unary(op::EXP, b.unary(op::NEG, t)), x);
        b.output(y, "y");
        b.output(b.reduce_all(op::SUM, y), "z");
        ASSERT_TRUE(b.ok()) << b.state().message();
    }

    TEST(memory, second_run_of_a_static_graph_allocates_nothing)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        build_chain(g);
        const auto plan = ir::plan_memory(g);
        EXPECT_GE(std::count_if(plan.in_place_input.begin(), plan.in_place_input.end(),
                                [](int i) { return i >= 0; }),
                  2);
        const std::vector<buffer> in{f64({64}, ramp(64, 0.01))};
        auto planned = compile(g);
        auto unplanned = compile(g, false);
        EXPECT_GT(allocations_of_run(*planned, in), 0);
        EXPECT_EQ(allocations_of_run(*planned, in), 0);
        EXPECT_EQ(allocations_of_run(*planned, in), 0);
        EXPECT_EQ(allocations_of_run(*unplanned, in), 6); // one per computing node
        // Held outputs are the caller's: the next run needs new blocks for them.
        run_result held = planned->run(in);
        const std::int64_t before = buffer::allocation_count();
        ASSERT_TRUE(planned->run(in).state);
        EXPECT_EQ(buffer::allocation_count() - before, 2);
    }

    TEST(memory, outputs_stay_valid_after_the_next_run)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        build_chain(g);
        auto exe = compile(g);
        auto ref = compile(g, false);
        const buffer x1 = f64({64}, ramp(64, 0.01));
        const buffer x2 = f64({64}, ramp(64, -0.03));
        run_result first = exe->run({x1});
        const std::vector<double> y1 = doubles(first.outputs[0]);
        run_result second = exe->run({x2});
        ASSERT_TRUE(second.state);
        EXPECT_EQ(doubles(first.outputs[0]), y1);
        EXPECT_EQ(doubles(first.outputs[0]), doubles(ref->run({x1}).outputs[0]));
        EXPECT_EQ(doubles(second.outputs[0]), doubles(ref->run({x2}).outputs[0]));
        EXPECT_NE(first.outputs[0].data(), second.outputs[0].data());
    }

    // a = x * 3 is read after b = a + 1, so b must not overwrite a; c = b * a
    // may overwrite b; d = slice_update(c, 0) may overwrite c.
    TEST(memory, in_place_never_overwrites_a_value_still_needed)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        auto x = b.input({dtype::float64, ir::shape{8}}, "x");
        auto a = b.binary(op::MUL, x, b.constant(ir::scalar::of_float(dtype::float64, 3.0)));
        auto bb = b.binary(op::ADD, a, b.constant(ir::scalar::of_float(dtype::float64, 1.0)));
        auto c = b.binary(op::MUL, bb, a);
        auto d = b.slice_update(c, b.constant(ir::scalar::of_float(dtype::float64, 0.0)),
                                {ir::slice_item::range(1, 7, 2)});
        auto e = b.binary(op::SUB, d, a);
        b.output(e, "e");
        ASSERT_TRUE(b.ok()) << b.state().message();
        const auto plan = ir::plan_memory(g);
        EXPECT_EQ(plan.in_place_input[g.get(bb).def], -1);
        EXPECT_GE(plan.in_place_input[g.get(c).def], 0);
        EXPECT_EQ(plan.in_place_input[g.get(d).def], 0);
        const buffer in = f64({8}, ramp(8, 1.0));
        auto exe = compile(g);
        for (int run = 0; run < 3; ++run)
        {
            auto r = exe->run({in});
            ASSERT_TRUE(r.state) << r.state.to_string();
            EXPECT_EQ(doubles(r.outputs[0]), doubles(compile(g, false)->run({in}).outputs[0]));
        }
        // The caller's input is never written, in place or not.
        EXPECT_EQ(doubles(in), ramp(8, 1.0));
    }

    // acc = acc * 0.5 + x for n iterations: the carried value is rewritten
    // every iteration while the previous one is still being read.
    void build_damped_loop(ir::graph& g)
    {
        const ir::value_type vec{dtype::float64, ir::shape{16}};
        ir::builder b(g);
        auto x = b.input(vec, "x");
        auto n = b.input(i64_scalar, "n");
        auto half = b.constant(ir::scalar::of_float(dtype::float64, 0.5));
        auto body = b.new_region({i64_scalar, vec});
        {
            ir::builder::insertion_guard guard(b);
            b.set_insertion_end(body);
            auto scaled = b.binary(op::MUL, b.arg(body, 1), half);
            auto flipped = b.slice(scaled, {ir::slice_item::range(15, -17, -1)});
            b.set_results(body, {b.binary(op::ADD, flipped, x)});
        }
        b.output(b.loop(ir::loop_attr{true, false}, n, ir::no_id, {x}, body)[0], "acc");
        ASSERT_TRUE(b.ok()) << b.state().message();
    }

    TEST(memory, loops_reuse_their_memory_and_stay_correct)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        build_damped_loop(g);
        const std::vector<buffer> in{f64({16}, ramp(16, 0.25)), i64({}, {50})};
        auto exe = compile(g);
        auto ref = compile(g, false);
        EXPECT_EQ(doubles(exe->run(in).outputs[0]), doubles(ref->run(in).outputs[0]));
        EXPECT_EQ(allocations_of_run(*exe, in), 0);
        EXPECT_EQ(allocations_of_run(*ref, in), 50 * 4); // counter, mul, slice, add
        run_result held = exe->run(in);
        const std::vector<double> kept = doubles(held.outputs[0]);
        EXPECT_EQ(doubles(exe->run({in[0], i64({}, {7})}).outputs[0]),
                  doubles(ref->run({in[0], i64({}, {7})}).outputs[0]));
        EXPECT_EQ(doubles(held.outputs[0]), kept);
    }

    TEST(memory, recursive_calls_get_one_arena_per_activation)
    {
        // tri(n) = n <= 0 ? 0 : n + tri(n - 1), over a vector so values are buffers.
        ir::module m;
        const ir::value_type vec{dtype::int64, ir::shape{4}};
        {
            ir::graph& g = m.add_graph("tri");
            ir::builder b(g);
            auto n = b.input(vec, "n");
            auto zero = b.constant(ir::scalar::of_int(dtype::int64, 0));
            auto one = b.constant(ir::scalar::of_int(dtype::int64, 1));
            auto then_r = b.new_region();
            auto else_r = b.new_region();
            {
                ir::builder::insertion_guard guard(b);
                b.set_insertion_end(then_r);
                b.set_results(then_r, {b.binary(op::MUL, n, zero)});
                b.set_insertion_end(else_r);
                auto rec =
                    b.call("tri", {b.binary(op::SUB, n, one)}, std::vector<ir::value_type>{vec});
                b.set_results(else_r, {b.binary(op::ADD, n, rec[0])});
            }
            auto stop = b.reduce_all(op::ALL, b.binary(op::LE, n, zero));
            b.output(b.if_else(stop, then_r, else_r)[0], "r");
            ASSERT_TRUE(b.ok()) << b.state().message();
        }
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        b.output(b.call("tri", {b.input(vec, "n")})[0], "r");
        ASSERT_TRUE(b.ok()) << b.state().message();
        auto exe = compile(g);
        const std::vector<buffer> in{i64({4}, {5, 5, 5, 5})};
        auto r = exe->run(in);
        ASSERT_TRUE(r.state) << r.state.to_string();
        EXPECT_EQ(doubles(r.outputs[0]), (std::vector<double>{15, 15, 15, 15}));
        // `r` still holds its output's block, so the next run replaces that one.
        EXPECT_EQ(allocations_of_run(*exe, in), 1);
        EXPECT_EQ(doubles(r.outputs[0]), (std::vector<double>{15, 15, 15, 15}));
        r = run_result{};
        EXPECT_EQ(allocations_of_run(*exe, in), 0);
    }

    TEST(memory, constant_outputs_are_copies_the_caller_may_write)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        b.input({dtype::float64, ir::shape{2}}, "unused");
        b.output(b.constant(ir::scalar::of_float(dtype::float64, 4.0)), "k");
        ASSERT_TRUE(b.ok());
        auto exe = compile(g);
        const std::vector<buffer> in{f64({2}, {0, 0})};
        auto first = exe->run(in);
        ASSERT_TRUE(first.state);
        EXPECT_FALSE(first.outputs[0].is_read_only());
        *reinterpret_cast<double*>(first.outputs[0].data()) = -1;
        EXPECT_EQ(exe->run(in).outputs[0].element_as_double(), 4.0);
    }

    // x = concatenate(x, y) each iteration: the carried size grows, so its
    // symbol is rebound at every iteration.
    TEST(memory, loop_carried_value_that_grows)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        auto y = b.input({dtype::float64, ir::shape{2}}, "y");
        auto n = b.input(i64_scalar, "n");
        const ir::value_type grows{
            dtype::float64, ir::shape(std::vector<ir::dim>{ir::dim::symbol(g.new_symbol())})};
        auto body = b.new_region({i64_scalar, grows});
        {
            ir::builder::insertion_guard guard(b);
            b.set_insertion_end(body);
            b.set_results(body, {b.concatenate({b.arg(body, 1), y}, 0)});
        }
        auto out = b.loop(ir::loop_attr{true, false}, n, ir::no_id, {y}, body)[0];
        b.output(out, "x");
        b.output(b.reduce_all(op::SUM, out), "total");
        ASSERT_TRUE(b.ok()) << b.state().message();
        for (const bool plan : {true, false})
        {
            auto exe = compile(g, plan);
            for (std::int64_t trips : {0, 1, 4, 2})
            {
                auto r = exe->run({f64({2}, {1, 2}), i64({}, {trips})});
                ASSERT_TRUE(r.state) << r.state.to_string();
                const auto size = static_cast<std::size_t>(2 * (trips + 1));
                EXPECT_EQ(r.outputs[0].shape(), (std::vector<std::int64_t>{2 * (trips + 1)}));
                EXPECT_EQ(doubles(r.outputs[1]), (std::vector<double>{3.0 * (trips + 1)}));
                EXPECT_EQ(doubles(r.outputs[0]).size(), size);
            }
        }
    }

    // acc = acc + x over x: f64[?0]: the carried shape is the input's symbol,
    // fixed for the run, checked at every iteration.
    TEST(memory, loop_carried_value_with_fixed_symbolic_shape)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        const ir::value_type dyn{dtype::float64,
                                 ir::shape(std::vector<ir::dim>{ir::dim::symbol(g.new_symbol())})};
        auto x = b.input(dyn, "x");
        auto n = b.input(i64_scalar, "n");
        auto body = b.new_region({i64_scalar, dyn});
        {
            ir::builder::insertion_guard guard(b);
            b.set_insertion_end(body);
            b.set_results(body, {b.binary(op::ADD, b.arg(body, 1), x)});
        }
        b.output(b.loop(ir::loop_attr{true, false}, n, ir::no_id, {x}, body)[0], "acc");
        ASSERT_TRUE(b.ok()) << b.state().message();
        auto exe = compile(g);
        auto r3 = exe->run({f64({3}, {1, 2, 3}), i64({}, {3})});
        ASSERT_TRUE(r3.state) << r3.state.to_string();
        EXPECT_EQ(doubles(r3.outputs[0]), (std::vector<double>{4, 8, 12}));
        auto r5 = exe->run({f64({5}, {1, 1, 1, 1, 1}), i64({}, {2})});
        ASSERT_TRUE(r5.state) << r5.state.to_string();
        EXPECT_EQ(doubles(r5.outputs[0]), (std::vector<double>{3, 3, 3, 3, 3}));
        r3 = r5 = run_result{};
        EXPECT_EQ(allocations_of_run(*exe, {f64({5}, {1, 1, 1, 1, 1}), i64({}, {2})}), 0);
    }

    // The same loop claiming the input's fixed symbol while it grows: the
    // executor refuses at the next iteration head (an error value, no crash).
    TEST(memory, carried_value_breaking_a_fixed_symbol_is_an_error)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        ir::builder b(g);
        const ir::value_type dyn{dtype::float64,
                                 ir::shape(std::vector<ir::dim>{ir::dim::symbol(g.new_symbol())})};
        auto x = b.input(dyn, "x");
        auto n = b.input(i64_scalar, "n");
        auto body = b.new_region({i64_scalar, dyn});
        {
            ir::builder::insertion_guard guard(b);
            b.set_insertion_end(body);
            b.set_results(body, {b.concatenate({b.arg(body, 1), x}, 0)});
        }
        b.output(b.loop(ir::loop_attr{true, false}, n, ir::no_id, {x}, body)[0], "acc");
        ASSERT_TRUE(b.ok()) << b.state().message();
        auto r = compile(g)->run({f64({2}, {1, 2}), i64({}, {2})});
        EXPECT_EQ(r.state.code(), status_code::invalid_argument);
        EXPECT_NE(r.state.message().find("carried value 0"), std::string::npos);
        EXPECT_TRUE(r.outputs.empty());
    }
} // namespace

namespace
{
    using namespace specula;
    using namespace specula::backends;

    // The arena's own views hold no reference (the executor's per-op path
    // counts nothing); a copy of one owns the bytes it shows, and a copy of
    // a view whose block has moved on is null rather than a dangling view.
    TEST(arena_views, copies_own_their_bytes)
    {
        auto block = buffer::allocate(ir::dtype::uint8, {64});
        ASSERT_TRUE(block);
        const layout_ref layout = buffer::c_layout(ir::dtype::float64, {8});
        buffer view = buffer::arena_view(block.value(), ir::dtype::float64, layout);
        EXPECT_EQ(view.use_count(), 0);
        EXPECT_EQ(block->use_count(), 1);
        EXPECT_EQ(view.shape(), (std::vector<std::int64_t>{8}));
        buffer copy = view;
        EXPECT_FALSE(copy.is_arena_view());
        EXPECT_EQ(block->use_count(), 2);
        EXPECT_EQ(copy.data(), block->data());
        EXPECT_EQ(copy.strides(), (std::vector<std::int64_t>{8}));

        auto other = buffer::allocate(ir::dtype::uint8, {64});
        ASSERT_TRUE(other);
        buffer stale = buffer::arena_view(block.value(), ir::dtype::float64, layout);
        block.value() = std::move(other.value()); // the slot took another block
        buffer stale_copy = stale;
        EXPECT_TRUE(stale_copy.is_null());
        EXPECT_EQ(copy.element_as_double(7), 0.0); // the copy still holds the old bytes
    }

    // buffer::assign skips an assignment that would change nothing (the
    // executor hands a loop's in-place table back to itself every trip), and
    // only that: a copy of an arena view, of a real buffer, with its flags.
    TEST(arena_views, assign_skips_only_what_a_copy_would_not_change)
    {
        auto block = buffer::allocate(ir::dtype::uint8, {64});
        ASSERT_TRUE(block);
        const layout_ref layout = buffer::c_layout(ir::dtype::float64, {8});
        buffer view = buffer::arena_view(block.value(), ir::dtype::float64, layout);
        EXPECT_FALSE(view.is_copy_of(view)); // an arena view holds no reference
        buffer copy = view;
        EXPECT_TRUE(copy.is_copy_of(view));
        EXPECT_EQ(block->use_count(), 2);
        copy.assign(view);
        EXPECT_EQ(block->use_count(), 2);
        EXPECT_FALSE(copy.is_arena_view());

        buffer same = copy;
        EXPECT_TRUE(same.is_copy_of(copy));
        EXPECT_FALSE(same.as_read_only().is_copy_of(copy));
        EXPECT_FALSE(copy.is_copy_of(copy.as_read_only()));
        // The same bytes through another layout object, or another owner.
        EXPECT_FALSE(copy.is_copy_of(block->view(ir::dtype::float64, {8})));
        auto other = buffer::allocate(ir::dtype::float64, {8});
        ASSERT_TRUE(other);
        EXPECT_FALSE(copy.is_copy_of(other.value()));
        buffer null;
        EXPECT_TRUE(null.is_copy_of(buffer{}));
        EXPECT_FALSE(null.is_copy_of(copy));
        null.assign(copy);
        EXPECT_TRUE(null.is_copy_of(copy));
        EXPECT_EQ(block->use_count(), 4);

        // A view whose block moved on: its copy would be null, so a holder
        // of the old block is no copy of it.
        auto moved = buffer::allocate(ir::dtype::uint8, {64});
        ASSERT_TRUE(moved);
        buffer old_block = block.value();
        block.value() = std::move(moved.value());
        EXPECT_FALSE(copy.is_copy_of(view));
        copy.assign(view);
        EXPECT_TRUE(copy.is_null());
    }

    // THPeligible of the mapping holding `p` (/proc/self/smaps): 1 or 0, -1
    // when not found.
    int huge_page_eligibility(const void* p)
    {
        const auto at = reinterpret_cast<std::uintptr_t>(p);
        std::ifstream smaps("/proc/self/smaps");
        bool inside = false;
        for (std::string line; std::getline(smaps, line);)
        {
            std::uintptr_t lo = 0, hi = 0;
            char dash = 0;
            std::istringstream head(line);
            if (head >> std::hex >> lo >> dash >> hi && dash == '-')
            {
                inside = lo <= at && at < hi;
            }
            else if (inside && line.rfind("THPeligible:", 0) == 0)
            {
                return std::atoi(line.c_str() + 12);
            }
        }
        return -1;
    }

    // As NumPy's data from 4 MiB on, large blocks are advised into huge
    // pages: with THP in `madvise` mode they are otherwise 4 KiB pages, and
    // 16M-element kernels pay TLB misses NumPy's do not. Still zeroed, and
    // aligned to the huge page (so all of it can be huge), hence to 64 bytes.
    TEST(buffers, large_allocations_are_advised_into_huge_pages_as_numpys)
    {
        std::string mode;
        std::getline(std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled"), mode);
        if (mode.empty() || mode.find("[never]") != std::string::npos)
        {
            GTEST_SKIP() << "transparent huge pages are off here: '" << mode << "'";
        }
        const std::int64_t n = std::int64_t(1) << 19; // 4 MiB of float64
        auto big = buffer::allocate(ir::dtype::float64, {n});
        ASSERT_TRUE(big);
        const auto at = reinterpret_cast<std::uintptr_t>(big->data());
        EXPECT_EQ(at % (std::uintptr_t(1) << 21), 0u);
        const auto* bytes = reinterpret_cast<const unsigned char*>(big->data());
        EXPECT_TRUE(std::all_of(bytes, bytes + n * 8, [](unsigned char c) { return c == 0; }));
        EXPECT_EQ(huge_page_eligibility(big->data()), 1) << mode;

        auto small = buffer::allocate(ir::dtype::float64, {n / 2 - 8}); // under 4 MiB
        ASSERT_TRUE(small);
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(small->data()) % 64, 0u);
    }
} // namespace
