// Runs that write their outputs into caller memory (executable::run with
// destinations, what the engine does with NumPy arrays it allocates before
// the run): every kind of output bit for bit against the same executable run
// without destinations, destinations full of garbage beforehand, planned and
// unplanned, one lane and two, fused and not, on the CPU and reference
// backends.

#include "views_support.hpp"

#include "backends/reference/reference_backend.hpp"
#include "ir/passes/fuse_elementwise.hpp"

#include <gtest/gtest.h>

#include <algorithm>
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

    // `types` may have symbolic dims (the inputs then bind them).
    std::unique_ptr<compiled> build(const std::vector<ir::value_type>& types, const graph_fn& body,
                                    const run_options& opt)
    {
        auto c = std::make_unique<compiled>();
        ir::graph& g = c->m.add_graph("main");
        std::int32_t symbols = 0;
        for (const auto& t : types)
        {
            for (int d = 0; d < t.dims.rank(); ++d)
            {
                if (t.dims[d].is_symbolic())
                {
                    symbols = std::max(symbols, t.dims[d].symbol_id() + 1);
                }
            }
        }
        g.reserve_symbols(symbols);
        ir::builder b(g);
        std::vector<ir::value_id> args;
        for (const auto& t : types)
        {
            args.push_back(b.input(t));
        }
        body(b, args);
        EXPECT_TRUE(b.ok()) << b.state().message();
        if (opt.fuse)
        {
            ir::fuse_elementwise(g);
        }
        backends::target tgt;
        tgt.plan_memory = opt.plan;
        backends::reference::reference_backend ref;
        backends::cpu::cpu_options copts;
        copts.numpy_loops = numpy_table();
        copts.fuse = opt.fuse;
        copts.threads = opt.threads;
        backends::cpu::cpu_backend cpu(copts);
        auto exe = opt.reference ? ref.compile(g, tgt) : cpu.compile(g, tgt, &ref);
        EXPECT_TRUE(exe) << (exe ? "" : exe.error().to_string());
        if (!exe)
        {
            return nullptr;
        }
        c->exe = std::move(exe.value());
        return c;
    }

    std::vector<ir::value_type> types_of(const std::vector<buffer>& ins)
    {
        std::vector<ir::value_type> types;
        for (const buffer& in : ins)
        {
            types.push_back({in.dtype(), ir::shape::of(in.shape())});
        }
        return types;
    }

    // Destinations for every output whose layout is known before the run,
    // filled with a byte pattern no kernel result equals by chance, 8 bytes
    // past a 64-byte boundary.
    std::vector<buffer> destinations_for(const executable& exe, const std::vector<buffer>& ins,
                                         std::size_t* known = nullptr)
    {
        std::vector<executable::output_layout> layouts;
        exe.output_layouts(ins, layouts);
        std::vector<buffer> dests(layouts.size());
        for (std::size_t i = 0; i < layouts.size(); ++i)
        {
            if (!layouts[i].known)
            {
                continue;
            }
            // Off the arena's 64-byte alignment, as NumPy's memory may be.
            std::int64_t n = 1;
            for (auto s : layouts[i].shape)
            {
                n *= s;
            }
            const auto bytes = n * static_cast<std::int64_t>(ir::itemsize(layouts[i].elem));
            auto block = buffer::allocate(dtype::uint8, {bytes + 8});
            EXPECT_TRUE(block);
            std::memset(block->data(), 0xA5, static_cast<std::size_t>(bytes + 8));
            auto keep = std::make_shared<buffer>(block.value());
            dests[i] =
                buffer::borrow(keep->data() + 8, layouts[i].elem, layouts[i].shape, {}, {}, keep);
            if (known != nullptr)
            {
                ++*known;
            }
        }
        return dests;
    }

    // The outputs with destinations equal, bit for bit, those of runs without,
    // on every run (the arena's blocks are reused in between), and each output
    // that has a destination is that destination's memory.
    void expect_same(const std::vector<ir::value_type>& types, const graph_fn& body,
                     const std::vector<buffer>& ins, std::size_t want_known)
    {
        for (bool plan : {true, false})
        {
            for (int threads : {1, 2})
            {
                for (bool fuse : {true, false})
                {
                    for (bool reference : {false, true})
                    {
                        run_options opt;
                        opt.plan = plan;
                        opt.threads = threads;
                        opt.fuse = fuse;
                        opt.reference = reference;
                        const std::string where = "plan " + std::to_string(plan) + ", threads " +
                                                  std::to_string(threads) + ", fuse " +
                                                  std::to_string(fuse) + ", reference " +
                                                  std::to_string(reference);
                        auto c = build(types, body, opt);
                        ASSERT_TRUE(c);
                        for (int run = 0; run < 3; ++run)
                        {
                            std::size_t known = 0;
                            auto dests = destinations_for(*c->exe, ins, &known);
                            EXPECT_EQ(known, want_known) << where;
                            auto with = c->exe->run(ins, dests);
                            auto without = c->exe->run(ins);
                            ASSERT_TRUE(with.state) << with.state.to_string() << " " << where;
                            ASSERT_TRUE(without.state) << without.state.to_string() << " " << where;
                            ASSERT_EQ(with.outputs.size(), without.outputs.size());
                            for (std::size_t i = 0; i < with.outputs.size(); ++i)
                            {
                                EXPECT_EQ(with.outputs[i].shape(), without.outputs[i].shape());
                                EXPECT_EQ(with.outputs[i].dtype(), without.outputs[i].dtype());
                                EXPECT_EQ(bytes_of(with.outputs[i]), bytes_of(without.outputs[i]))
                                    << "output " << i << ", run " << run << ", " << where;
                                if (!dests[i].is_null())
                                {
                                    EXPECT_EQ(with.outputs[i].data(), dests[i].data()) << where;
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    const dtype f64 = dtype::float64;

    TEST(destinations, computed_outputs_and_a_reduction)
    {
        const std::vector<buffer> ins{random_buffer(f64, {300, 257}, 1)};
        expect_same(
            types_of(ins),
            [](ir::builder& b, const std::vector<ir::value_id>& a)
            {
                auto y = b.binary(op::MUL, b.unary(op::EXP, a[0]), a[0]);
                b.output(y);
                b.output(b.reduce(op::SUM, y, {0}));
                b.output(b.reduce_all(op::SUM, y));
            },
            ins, 3);
    }

    TEST(destinations, fused_group_escape_read_later)
    {
        const std::vector<buffer> ins{random_buffer(f64, {40, 40}, 2),
                                      random_buffer(f64, {40, 40}, 3)};
        expect_same(
            types_of(ins),
            [](ir::builder& b, const std::vector<ir::value_id>& a)
            {
                // t escapes the group as an output and feeds a matmul.
                auto t = b.binary(op::ADD, b.binary(op::MUL, a[0], a[1]), a[1]);
                auto y = b.unary(op::TANH, t);
                b.output(t);
                b.output(b.matmul(y, t));
                b.output(y);
            },
            ins, 3);
    }

    TEST(destinations, view_input_and_duplicated_outputs)
    {
        const std::vector<buffer> ins{random_buffer(f64, {16, 24}, 4)};
        expect_same(
            types_of(ins),
            [](ir::builder& b, const std::vector<ir::value_id>& a)
            {
                auto e = b.unary(op::EXP, a[0]);
                b.output(b.transpose(e, {1, 0})); // a view of e
                b.output(a[0]);                   // the input itself
                b.output(e);
                b.output(e); // the same value twice
                b.output(b.slice(a[0], {ir::slice_item::range(2, 10)}));
            },
            ins, 5);
    }

    TEST(destinations, symbolic_shapes_bound_by_the_inputs)
    {
        const std::vector<buffer> ins{random_buffer(f64, {37, 5}, 5)};
        const std::vector<ir::value_type> types{
            {f64, ir::shape(std::vector<ir::dim>{ir::dim::symbol(0), ir::dim::fixed(5)})}};
        expect_same(
            types,
            [](ir::builder& b, const std::vector<ir::value_id>& a)
            {
                auto y = b.binary(op::ADD, b.unary(op::SIN, a[0]), a[0]);
                b.output(y);
                b.output(b.reduce(op::SUM, y, {1}));
                // Data-dependent: no layout before the run.
                b.output(b.mask_select(a[0], b.binary(op::GT, a[0], a[0])));
            },
            ins, 2);
    }

    TEST(destinations, a_failed_run_publishes_nothing)
    {
        const std::vector<buffer> ins{random_buffer(f64, {8}, 6)};
        run_options opt;
        auto c = build(
            types_of(ins),
            [](ir::builder& b, const std::vector<ir::value_id>& a)
            {
                auto y = b.unary(op::EXP, a[0]);
                b.output(y);
                // exp(x) > exp(x) never holds: the assert fires after y.
                auto s = b.reduce_all(op::SUM, y);
                b.assert_true(b.binary(op::GT, s, s), 7, "never");
                b.output(s);
            },
            opt);
        ASSERT_TRUE(c);
        auto dests = destinations_for(*c->exe, ins);
        auto r = c->exe->run(ins, dests);
        EXPECT_FALSE(r.state);
        ASSERT_TRUE(r.exit);
        EXPECT_EQ(r.exit->exit_id, 7u);
        EXPECT_TRUE(r.outputs.empty());
    }

    TEST(destinations, computed_outputs_take_no_arena_block)
    {
        const std::vector<buffer> ins{random_buffer(f64, {64, 64}, 8)};
        run_options opt;
        opt.fuse = false;
        const graph_fn body = [](ir::builder& b, const std::vector<ir::value_id>& a)
        {
            b.output(b.unary(op::EXP, a[0]));
            b.output(b.unary(op::SIN, a[0]));
        };
        auto with = build(types_of(ins), body, opt);
        auto without = build(types_of(ins), body, opt);
        ASSERT_TRUE(with && without);
        auto dests = destinations_for(*with->exe, ins);
        std::int64_t before = buffer::allocation_count();
        ASSERT_TRUE(without->exe->run(ins).state);
        EXPECT_GE(buffer::allocation_count() - before, 2); // one block per output
        before = buffer::allocation_count();
        ASSERT_TRUE(with->exe->run(ins, dests).state);
        EXPECT_EQ(buffer::allocation_count() - before, 0); // written into the destinations
        before = buffer::allocation_count();
        ASSERT_TRUE(with->exe->run(ins, dests).state);
        EXPECT_EQ(buffer::allocation_count() - before, 0);
    }
} // namespace
