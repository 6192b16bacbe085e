// Sunk stores (backends/deferred_store.hpp): a run with effect targets holds
// back the kernel of an output whose only use is its store, leaves the target
// untouched, and stores.run() writes into it exactly the bytes the same
// executable computes without targets. Where a condition fails (the value is
// read again, an operand reads the target in another layout) nothing is held
// and the output is delivered as usual.

#include "views_support.hpp"

#include "backends/reference/reference_backend.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace
{
    using namespace specula;
    using namespace specula::views_test;
    using backends::buffer;
    using backends::executable;
    using ir::dtype;
    using ir::op;

    struct compiled
    {
        ir::module m;
        std::unique_ptr<executable> exe;
    };

    std::unique_ptr<compiled> build(const std::vector<buffer>& ins, const graph_fn& body,
                                    bool reference, bool plan)
    {
        auto c = std::make_unique<compiled>();
        ir::graph& g = c->m.add_graph("main");
        ir::builder b(g);
        std::vector<ir::value_id> args;
        for (const buffer& in : ins)
        {
            args.push_back(b.input({in.dtype(), ir::shape::of(in.shape())}));
        }
        body(b, args);
        EXPECT_TRUE(b.ok()) << b.state().message();
        backends::target tgt;
        tgt.plan_memory = plan;
        backends::reference::reference_backend ref;
        backends::cpu::cpu_options copts;
        copts.numpy_loops = numpy_table();
        copts.fuse = false;
        backends::cpu::cpu_backend cpu(copts);
        auto exe = reference ? ref.compile(g, tgt) : cpu.compile(g, tgt, &ref);
        EXPECT_TRUE(exe) << (exe ? "" : exe.error().to_string());
        if (!exe)
        {
            return nullptr;
        }
        c->exe = std::move(exe.value());
        return c;
    }

    // A private copy of `b` (the user's array the graph updates in place).
    buffer copy_of(const buffer& b)
    {
        auto c = buffer::allocate(b.dtype(), b.shape());
        EXPECT_TRUE(c);
        std::memcpy(c->data(), b.data(), static_cast<std::size_t>(b.size()) * b.itemsize());
        return c.value();
    }

    // out = x - g * g, stored into x itself.
    void update(ir::builder& b, const std::vector<ir::value_id>& a)
    {
        b.output(b.binary(op::SUB, a[0], b.binary(op::MUL, a[1], a[1])));
    }

    TEST(deferred_stores, held_back_until_the_caller_runs_them)
    {
        const dtype f64 = dtype::float64;
        for (bool reference : {false, true})
        {
            for (bool plan : {true, false})
            {
                auto c = build({random_buffer(f64, {64, 33}, 1), random_buffer(f64, {64, 33}, 2)},
                               update, reference, plan);
                ASSERT_TRUE(c);
                EXPECT_TRUE(c->exe->may_hold_store(0));
                buffer x = copy_of(random_buffer(f64, {64, 33}, 1));
                const buffer g = random_buffer(f64, {64, 33}, 2);
                for (int run = 0; run < 3; ++run)
                {
                    const std::vector<unsigned char> before = bytes_of(x);
                    auto expected = c->exe->run({x, g});
                    ASSERT_TRUE(expected.state);
                    const std::vector<unsigned char> want = bytes_of(expected.outputs[0]);
                    auto r = c->exe->run({x, g}, {}, {x});
                    ASSERT_TRUE(r.state) << r.state.to_string();
                    ASSERT_TRUE(r.stores.holds(0));
                    EXPECT_EQ(r.outputs[0].data(), x.data());
                    EXPECT_EQ(bytes_of(x), before) << "written before the caller's last check";
                    ASSERT_TRUE(r.stores.run());
                    EXPECT_EQ(bytes_of(x), want) << "run " << run;
                }
                // Dropped: the target stays as it was.
                const std::vector<unsigned char> before = bytes_of(x);
                auto r = c->exe->run({x, g}, {}, {x});
                ASSERT_TRUE(r.stores.holds(0));
                r.stores.drop();
                EXPECT_EQ(bytes_of(x), before);
            }
        }
    }

    TEST(deferred_stores, a_value_read_again_or_a_target_read_transposed_is_not_held)
    {
        const dtype f64 = dtype::float64;
        // The updated value is also summed: its kernel must run in the graph.
        auto reread = build({random_buffer(f64, {20, 20}, 3), random_buffer(f64, {20, 20}, 4)},
                            [](ir::builder& b, const std::vector<ir::value_id>& a)
                            {
                                auto y = b.binary(op::SUB, a[0], a[1]);
                                b.output(y);
                                b.output(b.reduce_all(op::SUM, y));
                            },
                            false, true);
        ASSERT_TRUE(reread);
        EXPECT_FALSE(reread->exe->may_hold_store(0));

        // x[...] = x.T * g: the kernel would read bytes it already wrote.
        auto transposed = build({random_buffer(f64, {20, 20}, 5), random_buffer(f64, {20, 20}, 6)},
                                [](ir::builder& b, const std::vector<ir::value_id>& a)
                                { b.output(b.binary(op::MUL, b.transpose(a[0], {1, 0}), a[1])); },
                                false, true);
        ASSERT_TRUE(transposed);
        EXPECT_TRUE(transposed->exe->may_hold_store(0));
        buffer x = copy_of(random_buffer(f64, {20, 20}, 5));
        const buffer g = random_buffer(f64, {20, 20}, 6);
        const std::vector<unsigned char> before = bytes_of(x);
        auto expected = transposed->exe->run({x, g});
        ASSERT_TRUE(expected.state);
        auto r = transposed->exe->run({x, g}, {}, {x});
        ASSERT_TRUE(r.state);
        EXPECT_TRUE(r.stores.empty());
        EXPECT_EQ(bytes_of(x), before);
        EXPECT_EQ(bytes_of(r.outputs[0]), bytes_of(expected.outputs[0]));
    }
} // namespace
