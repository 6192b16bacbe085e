// Every IR op x dtype, random programs and the CPU backend's own large cases,
// compiled by the CPU backend (reference as fallback) and compared with NumPy:
// bit for bit wherever the CPU backend served the node, whatever the loop
// source, lane count or fusion setting; nodes left to the reference backend
// keep the oracle's own tolerance (libm-based ones are the reference backend's
// tests' business and are skipped here).

#include "cpu_test_support.hpp"

#include "backends/reference/reference_backend.hpp"
#include "graph_program.hpp"
#include "ir/passes/fuse_elementwise.hpp"

#include <gtest/gtest.h>

#include <map>
#include <tuple>

namespace
{
    using namespace specula;
    using namespace specula::backends;
    using namespace specula::backends::testing;

    const std::vector<graph_program>& load(const char* path)
    {
        static std::map<std::string, std::vector<graph_program>> cache;
        auto it = cache.find(path);
        if (it == cache.end())
        {
            std::string error;
            it = cache.emplace(path, read_programs(path, error)).first;
            if (!error.empty())
            {
                ADD_FAILURE() << error;
            }
        }
        return it->second;
    }

    struct config
    {
        bool numpy_loops;
        int threads;
        bool fuse;
    };

    struct tally
    {
        int programs = 0;
        int steps = 0;
        int on_cpu = 0;
    };

    // Which backend computed each OUTPUT's value.
    std::vector<std::string> served_by(const executable& exe, const ir::graph& g)
    {
        std::map<const ir::node*, std::string> by_node;
        for (const auto& region : exe.main().m_regions)
        {
            for (const auto& cn : region)
            {
                by_node[cn.p_node] = cn.m_backend;
            }
        }
        std::vector<std::string> out;
        for (ir::node_id id : g.outputs())
        {
            const ir::value& v = g.get(g.get_node(id).inputs[0]);
            out.push_back(v.def == ir::no_id ? "" : by_node[&g.get_node(v.def)]);
        }
        return out;
    }

    std::string check(graph_program p, const config& c, tally& t)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        if (std::string refused = build_program(p, g); !refused.empty())
        {
            return {}; // the backends' own tests report IR refusals
        }
        if (c.fuse)
        {
            ir::fuse_elementwise(g);
        }
        cpu::cpu_options opts;
        opts.numpy_loops = c.numpy_loops ? cpu::testing::numpy_table() : nullptr;
        opts.threads = c.threads;
        opts.fuse = c.fuse;
        cpu::cpu_backend cpu_be(opts);
        reference::reference_backend ref;
        target tgt;
        auto exe = cpu_be.compile(g, tgt, &ref);
        if (!exe)
        {
            return "compile: " + exe.error().to_string();
        }
        std::vector<buffer> inputs;
        for (auto& a : p.inputs)
        {
            inputs.push_back(to_buffer(a));
        }
        const auto backends = served_by(*exe.value(), g);
        // Steps fed by a libm result of the reference backend inherit its
        // tolerance, which this test does not check.
        std::vector<bool> tainted(p.inputs.size() + p.steps.size(), false);
        for (std::size_t i = 0; i < p.steps.size(); ++i)
        {
            bool t_step = backends[i] != "cpu" && p.steps[i].tolerance == "ulp2";
            for (int ref : p.steps[i].refs)
            {
                t_step = t_step || tainted[static_cast<std::size_t>(ref)];
            }
            tainted[p.inputs.size() + i] = t_step;
        }
        // Twice: the second run reuses recycled group buffers.
        for (int round = 0; round < 2; ++round)
        {
            run_result r = exe.value()->run(inputs);
            if (!r.state)
            {
                return "run: " + r.state.to_string();
            }
            for (std::size_t i = 0; i < p.steps.size(); ++i)
            {
                program_step& s = p.steps[i];
                const bool on_cpu = backends[i] == "cpu";
                t.on_cpu += on_cpu && round == 0;
                if (tainted[p.inputs.size() + i])
                {
                    continue;
                }
                const std::string tol = on_cpu ? "exact" : s.tolerance;
                oracle_array got = from_buffer(r.outputs[i]);
                oracle_array* bound = s.bound ? &*s.bound : nullptr;
                std::string diff = compare(tol, got, s.expected, bound, 64);
                if (!diff.empty())
                {
                    return "step " + std::to_string(i) + " (" + s.mnemonic + ", " + backends[i] +
                           "): " + diff;
                }
            }
        }
        t.steps += static_cast<int>(p.steps.size());
        ++t.programs;
        return {};
    }

    class cpu_oracle : public ::testing::TestWithParam<std::tuple<bool, int, bool>>
    {
    protected:
        tally run_set(const char* path, const std::string& prefix)
        {
            const config c{std::get<0>(GetParam()), std::get<1>(GetParam()),
                           std::get<2>(GetParam())};
            tally t;
            int failed = 0;
            for (const auto& p : load(path))
            {
                if (p.name.rfind(prefix, 0) != 0)
                {
                    continue;
                }
                std::string problem = check(p, c, t);
                if (!problem.empty() && ++failed <= 20)
                {
                    ADD_FAILURE() << p.name << ": " << problem;
                }
            }
            EXPECT_GT(t.programs, 0);
            EXPECT_EQ(failed, 0);
            EXPECT_GT(t.on_cpu, 0);
            std::printf("%s*: %d programs, %d steps, %d computed by the CPU backend\n",
                        prefix.c_str(), t.programs, t.steps, t.on_cpu);
            return t;
        }
    };

    TEST_P(cpu_oracle, every_ir_op_every_dtype)
    {
        run_set(SPECULA_GRAPH_ORACLE, "ops_");
    }
    TEST_P(cpu_oracle, random_programs)
    {
        run_set(SPECULA_GRAPH_ORACLE, "random_");
    }
    TEST_P(cpu_oracle, large_elementwise)
    {
        run_set(SPECULA_CPU_ORACLE, "big_");
    }
    TEST_P(cpu_oracle, broadcasting)
    {
        run_set(SPECULA_CPU_ORACLE, "bcast_");
    }
    TEST_P(cpu_oracle, pairwise_sums)
    {
        run_set(SPECULA_CPU_ORACLE, "sum_");
    }
    TEST_P(cpu_oracle, blas_forms)
    {
        // Every product is the CPU backend's, compared exactly: np.dot's own
        // calls on operands BLAS can not read (copies, length-1 scalar paths)
        // and matmul's in-place loop (blas_layouts_*).
        const tally t = run_set(SPECULA_CPU_ORACLE, "blas_");
        EXPECT_EQ(t.on_cpu, t.steps);
    }

    std::string config_name(const ::testing::TestParamInfo<std::tuple<bool, int, bool>>& info)
    {
        return std::string(std::get<0>(info.param) ? "numpy_loops" : "builtin_loops") + "_" +
               std::to_string(std::get<1>(info.param)) + "_lanes" +
               (std::get<2>(info.param) ? "_fused" : "_unfused");
    }

    INSTANTIATE_TEST_SUITE_P(configs, cpu_oracle,
                             ::testing::Combine(::testing::Bool(), ::testing::Values(1, 2),
                                                ::testing::Bool()),
                             config_name);
} // namespace
