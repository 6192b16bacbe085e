// IR graphs built with the builder, compiled by the reference backend and run
// by the executor, against NumPy's value for every step: each IR op x dtype,
// then random multi-step programs (the property test). Every program runs
// with the memory plan (twice: the second run reuses the first run's blocks
// while the first run's outputs are still held) and without it.

#include "backends/reference/reference_backend.hpp"
#include "graph_program.hpp"

#include <gtest/gtest.h>

namespace
{
    using namespace specula;
    using namespace specula::backends;
    using namespace specula::backends::testing;

    const std::vector<graph_program>& programs()
    {
        static const std::vector<graph_program> all = []
        {
            std::string error;
            auto p = read_programs(SPECULA_GRAPH_ORACLE, error);
            if (!error.empty())
            {
                ADD_FAILURE() << error;
            }
            return p;
        }();
        return all;
    }

    // Empty when every step of `r` matches NumPy, else the first difference.
    std::string compare_run(graph_program& p, const run_result& r)
    {
        if (!r.state)
        {
            return "run: " + r.state.to_string();
        }
        for (std::size_t i = 0; i < p.steps.size(); ++i)
        {
            program_step& s = p.steps[i];
            oracle_array got = from_buffer(r.outputs[i]);
            const bool from_input =
                !s.refs.empty() && static_cast<std::size_t>(s.refs[0]) < p.inputs.size();
            const std::vector<std::int64_t> first =
                from_input ? p.inputs[static_cast<std::size_t>(s.refs[0])].shape
                           : std::vector<std::int64_t>{};
            const std::int64_t depth = first.empty() ? 64 : first.back();
            oracle_array* bound = s.bound ? &*s.bound : nullptr;
            std::string diff = compare(s.tolerance, got, s.expected, bound, depth);
            if (!diff.empty())
            {
                return "step " + std::to_string(i) + " (" + s.mnemonic + "): " + diff;
            }
        }
        return {};
    }

    std::string check_program(graph_program p)
    {
        ir::module m;
        ir::graph& g = m.add_graph("main");
        if (std::string refused = build_program(p, g); !refused.empty())
        {
            return "IR: " + refused;
        }
        std::vector<buffer> inputs;
        for (auto& a : p.inputs)
        {
            inputs.push_back(to_buffer(a));
        }
        reference::reference_backend ref;
        for (const bool plan : {true, false})
        {
            target t;
            t.plan_memory = plan;
            auto exe = ref.compile(g, t);
            if (!exe)
            {
                return "compile: " + exe.error().to_string();
            }
            const std::string mode = plan ? "planned " : "unplanned ";
            const run_result first = exe.value()->run(inputs);
            if (std::string diff = compare_run(p, first); !diff.empty())
            {
                return mode + diff;
            }
            const run_result second = exe.value()->run(inputs);
            for (std::string diff : {compare_run(p, second), compare_run(p, first)})
            {
                if (!diff.empty())
                {
                    return mode + "after a second run: " + diff;
                }
            }
        }
        return {};
    }

    void check_programs(const std::string& prefix)
    {
        int ran = 0;
        int steps = 0;
        int failed = 0;
        for (const auto& p : programs())
        {
            if (p.name.rfind(prefix, 0) != 0)
            {
                continue;
            }
            ++ran;
            steps += static_cast<int>(p.steps.size());
            std::string problem = check_program(p);
            if (!problem.empty() && ++failed <= 25)
            {
                ADD_FAILURE() << p.name << ": " << problem;
            }
        }
        EXPECT_GT(ran, 0);
        EXPECT_EQ(failed, 0) << failed << " of " << ran << " programs (" << steps
                             << " steps) differ from NumPy";
    }
} // namespace

TEST(graph_oracle, every_ir_op_every_dtype)
{
    check_programs("ops_");
}

TEST(graph_oracle, random_programs_match_numpy)
{
    check_programs("random_");
}
