// Per-specialisation cost verdicts (engine/cost_verdict.hpp) and how a region
// routes timed calls to them. Timings are injected: nothing here reads a clock.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "engine/cost_verdict.hpp"
#include "engine/region.hpp"

using namespace specula::engine;

namespace
{
    std::unique_ptr<region> compiled_region(const config& cfg)
    {
        auto r = std::make_unique<region>("f", "x.py", 3, cfg);
        while (!r->observe_profiling_call())
        {
        }
        r->mark_compiled();
        return r;
    }

    // One call of the situation `cost` stands for, as engine_core routes it:
    // after a CPython verdict a timed CPython call (or, its probation over,
    // the graph's new trial), a CPython sample when the verdict wants one, a
    // graph call otherwise. Returns true when the graph lost on this call.
    bool call(region& r, const std::shared_ptr<spec_cost>& cost, double graph_s, double cpython_s)
    {
        r.expect_cpython_time(nullptr);
        if (cost->retry_due())
        {
            cost->start_trial();
        }
        if (cost->verdict == cost_verdict::cpython)
        {
            r.expect_cpython_time(cost);
            r.record_cpython_time(cpython_s);
            return false;
        }
        if (cost->wants_cpython_sample(r.settings()))
        {
            r.expect_cpython_time(cost);
            r.record_cpython_time(cpython_s);
            return false;
        }
        return r.record_graph_time(*cost, graph_s);
    }
} // namespace

TEST(engine_cost, median_of_the_latest_calls)
{
    call_samples s;
    EXPECT_FALSE(s.median_s().has_value());
    s.add(3.0);
    s.add(1.0);
    s.add(2.0);
    EXPECT_EQ(*s.median_s(), 2.0);
    s.add(10.0);
    EXPECT_EQ(*s.median_s(), 2.5);
    EXPECT_EQ(s.min_s(), 1.0);
    EXPECT_EQ(s.count(), 4);
    // Only the latest `kept` calls count for the median.
    for (std::size_t i = 0; i < call_samples::kept; ++i)
    {
        s.add(7.0);
    }
    EXPECT_EQ(*s.median_s(), 7.0);
    EXPECT_EQ(s.min_s(), 1.0);
}

TEST(engine_cost, a_graph_within_the_margin_goes_back_and_is_not_called_slower)
{
    config cfg;
    auto held = compiled_region(cfg);
    region& r = *held;
    auto cost = std::make_shared<spec_cost>();
    bool lost = false;
    for (int calls = 0; !lost && calls < 20; ++calls)
    {
        lost = call(r, cost, 0.98e-3, 1.0e-3);
    }
    ASSERT_TRUE(lost);
    EXPECT_EQ(cost->verdict, cost_verdict::cpython);
    EXPECT_EQ(cost->reason,
              "graph not 5 % faster than CPython (graph 0.98 ms vs CPython 1 ms per call)");
}

TEST(engine_cost, samples_alternate_with_graph_calls_then_judge)
{
    config cfg;
    auto held = compiled_region(cfg);
    region& r = *held;
    auto cost = std::make_shared<spec_cost>();
    int cpython_calls = 0;
    int graph_calls = 0;
    bool lost = false;
    while (!lost && graph_calls + cpython_calls < 20)
    {
        bool sample = cost->wants_cpython_sample(cfg);
        lost = call(r, cost, 3.1e-3, 1.6e-3);
        (sample ? cpython_calls : graph_calls) += 1;
    }
    ASSERT_TRUE(lost);
    EXPECT_EQ(graph_calls, cfg.cost_check_runs);
    EXPECT_EQ(cpython_calls, cfg.cost_samples);
    EXPECT_EQ(cost->verdict, cost_verdict::cpython);
    EXPECT_EQ(cost->reason, "graph slower than CPython (graph 3.1 ms vs CPython 1.6 ms per call)");
    // The region itself is not the judge: the engine blacklists it only
    // when every specialisation lost.
    EXPECT_EQ(r.state(), region_state::compiled);
    EXPECT_EQ(r.timing().cpython_calls, cfg.cost_samples);
    EXPECT_EQ(r.timing().graph_calls, cfg.cost_check_runs);
}

TEST(engine_cost, fast_and_slow_situations_get_their_own_verdicts)
{
    // W3's loop: a weight update is slower as a graph, a bias update faster.
    // The cheap iterations must not vouch for the expensive ones.
    config cfg;
    cfg.cost_floor_s = 0.0; // a loop region
    auto held = compiled_region(cfg);
    region& r = *held;
    auto weights = std::make_shared<spec_cost>();
    auto bias = std::make_shared<spec_cost>();
    bool weights_lost = false;
    bool bias_lost = false;
    for (int i = 0; i < 20; ++i)
    {
        weights_lost |= call(r, weights, 2.0e-3, 1.0e-3);
        bias_lost |= call(r, bias, 5e-6, 20e-6);
    }
    EXPECT_TRUE(weights_lost);
    EXPECT_FALSE(bias_lost);
    EXPECT_EQ(weights->verdict, cost_verdict::cpython);
    EXPECT_EQ(bias->verdict, cost_verdict::graph);
    // Judged on its samples, then every call timed in CPython (probation).
    EXPECT_EQ(weights->graph.count(), cfg.cost_check_runs);
    EXPECT_EQ(weights->cpython.count(), 20 - cfg.cost_check_runs);
    EXPECT_EQ(*bias->cpython.median_s(), 20e-6);
    // Time saved: graph calls x (median CPython - median graph).
    EXPECT_DOUBLE_EQ(*bias->time_saved_s(),
                     static_cast<double>(bias->graph.count()) * (20e-6 - 5e-6));
    EXPECT_LT(*weights->time_saved_s(), 0.0);
}

TEST(engine_cost, a_median_shrugs_off_one_lucky_cpython_sample)
{
    // Fastest against fastest would send this graph to CPython on one
    // CPython call that happened to run on a quiet machine.
    config cfg;
    auto held = compiled_region(cfg);
    region& r = *held;
    auto cost = std::make_shared<spec_cost>();
    const double cpython[] = {0.2e-3, 1e-3, 1e-3};
    int sample = 0;
    for (int i = 0; i < 10; ++i)
    {
        const double c = cpython[std::min(sample, 2)];
        sample += cost->wants_cpython_sample(cfg) ? 1 : 0;
        EXPECT_FALSE(call(r, cost, 0.5e-3, c));
    }
    EXPECT_EQ(cost->cpython.count(), cfg.cost_samples);
    EXPECT_EQ(cost->verdict, cost_verdict::graph);
}

TEST(engine_cost, a_graph_verdict_is_rechecked_and_can_flip)
{
    config cfg;
    auto held = compiled_region(cfg);
    region& r = *held;
    auto cost = std::make_shared<spec_cost>();
    for (int i = 0; i < 10; ++i)
    {
        EXPECT_FALSE(call(r, cost, 0.5e-3, 1e-3));
    }
    EXPECT_EQ(cost->verdict, cost_verdict::graph);
    EXPECT_EQ(cost->checks, 1);
    // Between checks no CPython sample is asked for.
    while (cost->graph.count() < cost_rechecks[0])
    {
        EXPECT_FALSE(cost->wants_cpython_sample(cfg));
        EXPECT_FALSE(call(r, cost, 5e-3, 1e-3));
    }
    // From the re-check on, samples interleave with graph calls until the
    // graph, now slower over its latest calls, loses.
    int graph_calls = 0;
    int cpython_calls = 0;
    bool lost = false;
    while (!lost && graph_calls + cpython_calls < 20)
    {
        const bool wants = cost->wants_cpython_sample(cfg);
        lost = call(r, cost, 5e-3, 1e-3);
        (wants ? cpython_calls : graph_calls) += 1;
    }
    ASSERT_TRUE(lost);
    EXPECT_EQ(cpython_calls, cfg.cost_samples);
    EXPECT_EQ(graph_calls, cfg.cost_samples);
    EXPECT_EQ(cost->verdict, cost_verdict::cpython);
    EXPECT_EQ(cost->reason, "graph slower than CPython (graph 5 ms vs CPython 1 ms per call)");
}

TEST(engine_cost, a_winning_graph_is_rechecked_a_few_times_then_left_alone)
{
    config cfg;
    auto held = compiled_region(cfg);
    region& r = *held;
    auto cost = std::make_shared<spec_cost>();
    for (int i = 0; i < 2000; ++i)
    {
        EXPECT_FALSE(call(r, cost, 0.5e-3, 1e-3));
    }
    EXPECT_EQ(cost->verdict, cost_verdict::graph);
    EXPECT_EQ(cost->checks, num_cost_checks);
    EXPECT_EQ(cost->cpython.count(), cfg.cost_samples * num_cost_checks);
    EXPECT_FALSE(cost->wants_cpython_sample(cfg));
}

TEST(engine_cost, a_sample_that_never_arrives_is_not_given_to_a_later_call)
{
    config cfg;
    auto held = compiled_region(cfg);
    region& r = *held;
    auto cost = std::make_shared<spec_cost>();
    r.expect_cpython_time(cost);
    // The next entry clears the expectation (a loop that ended between).
    r.expect_cpython_time(nullptr);
    r.record_cpython_time(1e-3);
    EXPECT_EQ(cost->cpython.count(), 0);
    EXPECT_EQ(r.timing().cpython_calls, 1);
    // A specialisation dropped while its sample runs: the time stays the region's.
    {
        auto dropped = std::make_shared<spec_cost>();
        r.expect_cpython_time(dropped);
    }
    r.record_cpython_time(1e-3);
    EXPECT_EQ(r.timing().cpython_calls, 2);
}

TEST(engine_cost, cost_check_off_or_tiny_calls_are_not_judged)
{
    config off;
    off.cost_check = false;
    auto held = compiled_region(off);
    auto cost = std::make_shared<spec_cost>();
    for (int i = 0; i < 10; ++i)
    {
        EXPECT_FALSE(cost->wants_cpython_sample(off));
        EXPECT_FALSE(held->record_graph_time(*cost, 3e-3));
    }
    EXPECT_EQ(cost->verdict, cost_verdict::undecided);

    // Graph calls under the floor: kept without sampling CPython.
    config cfg;
    auto held_fast = compiled_region(cfg);
    auto fast = std::make_shared<spec_cost>();
    for (int i = 0; i < 10; ++i)
    {
        EXPECT_FALSE(fast->wants_cpython_sample(cfg));
        EXPECT_FALSE(held_fast->record_graph_time(*fast, cfg.cost_floor_s / 2));
    }
    EXPECT_EQ(fast->verdict, cost_verdict::graph);
    EXPECT_FALSE(fast->time_saved_s().has_value());

    // CPython under the floor: not judged, even when the graph is slower.
    auto held_tiny = compiled_region(cfg);
    auto tiny = std::make_shared<spec_cost>();
    for (int i = 0; i < 10; ++i)
    {
        EXPECT_FALSE(call(*held_tiny, tiny, cfg.cost_floor_s, cfg.cost_floor_s / 2));
    }
    EXPECT_EQ(tiny->verdict, cost_verdict::graph);
}

TEST(engine_cost, blacklisting_can_keep_the_specialisations_for_the_report)
{
    config cfg;
    auto held = compiled_region(cfg);
    region& r = *held;
    r.specialisations().push_front(nullptr);
    r.blacklist_keeping_specialisations(
        "graph slower than CPython (graph 3 ms vs CPython 2 ms per call)");
    EXPECT_EQ(r.state(), region_state::blacklisted);
    EXPECT_EQ(r.specialisations().size(), 1u);
    EXPECT_EQ(r.m_slot.countdown, never_again);
}

TEST(engine_cost, samples_that_never_arrive_stop_being_asked_for)
{
    // The last iteration of every loop run: its CPython time is never
    // recorded. The situation must not run CPython forever waiting for it.
    config cfg;
    cfg.cost_floor_s = 0.0;
    auto held = compiled_region(cfg);
    region& r = *held;
    auto cost = std::make_shared<spec_cost>();
    int cpython_runs = 0;
    for (int i = 0; i < 30; ++i)
    {
        r.expect_cpython_time(nullptr); // the next entry
        if (cost->wants_cpython_sample(cfg))
        {
            r.expect_cpython_time(cost); // never recorded
            ++cpython_runs;
            continue;
        }
        EXPECT_FALSE(r.record_graph_time(*cost, 1e-3));
    }
    EXPECT_EQ(cpython_runs, cfg.cost_samples);
    EXPECT_EQ(cost->lost_samples, cfg.cost_samples);
    EXPECT_EQ(cost->verdict, cost_verdict::graph);
}

TEST(engine_cost, too_close_to_call_takes_more_samples_before_a_loss)
{
    // A graph 2 % slower on the medians of 3 samples is not called slower
    // yet: on a shared machine that is noise. It loses only once
    // cost_max_samples interleaved samples agree.
    config cfg;
    auto held = compiled_region(cfg);
    region& r = *held;
    auto cost = std::make_shared<spec_cost>();
    bool lost = false;
    int calls = 0;
    for (; !lost && calls < 40; ++calls)
    {
        lost = call(r, cost, 1.02e-3, 1.0e-3);
    }
    ASSERT_TRUE(lost);
    EXPECT_EQ(cost->cpython.count(), cfg.cost_max_samples);
    EXPECT_EQ(cost->graph.count(), cfg.cost_max_samples + 2);
    EXPECT_EQ(cost->reason, "graph slower than CPython (graph 1.02 ms vs CPython 1 ms per call)");

    // A clear loss needs no more than cost_samples.
    auto clear = std::make_shared<spec_cost>();
    int samples = 0;
    for (int i = 0; i < 40 && clear->verdict != cost_verdict::cpython; ++i)
    {
        samples += clear->wants_cpython_sample(cfg) ? 1 : 0;
        call(r, clear, 1.3e-3, 1.0e-3);
    }
    EXPECT_EQ(samples, cfg.cost_samples);
}

TEST(engine_cost, more_samples_can_show_the_graph_faster_after_all)
{
    // The first three CPython samples ran on a quiet moment; the next ones
    // show the usual CPython time. The graph (1 ms) stays.
    config cfg;
    auto held = compiled_region(cfg);
    region& r = *held;
    auto cost = std::make_shared<spec_cost>();
    const double cpython[] = {0.9e-3, 0.95e-3, 1.0e-3, 1.3e-3, 1.3e-3, 1.3e-3, 1.3e-3};
    int sample = 0;
    for (int i = 0; i < 30; ++i)
    {
        const bool wants = cost->wants_cpython_sample(cfg);
        EXPECT_FALSE(call(r, cost, 1.0e-3, cpython[std::min(sample, 6)]));
        sample += wants ? 1 : 0;
    }
    EXPECT_EQ(cost->verdict, cost_verdict::graph);
    EXPECT_EQ(cost->cpython.count(), 2 * cfg.cost_samples);
    EXPECT_EQ(cost->losses, 0);
}

TEST(engine_cost, a_lost_graph_gets_a_new_trial_after_its_probation)
{
    // Judged slower on a bad moment of the machine: after cost_retry_after[0]
    // CPython calls of its situation the graph runs again, judged on its new
    // calls only, and stays when it wins.
    config cfg;
    auto held = compiled_region(cfg);
    region& r = *held;
    auto cost = std::make_shared<spec_cost>();
    bool lost = false;
    while (!lost)
    {
        lost = call(r, cost, 3e-3, 1e-3);
    }
    EXPECT_EQ(cost->losses, 1);
    EXPECT_TRUE(cost->on_probation());
    const std::int64_t graph_calls = cost->graph.count();
    std::int64_t cpython_calls = 0;
    while (!cost->retry_due())
    {
        EXPECT_FALSE(call(r, cost, 0.5e-3, 1e-3));
        ++cpython_calls;
        ASSERT_LT(cpython_calls, 1000);
    }
    EXPECT_EQ(cost->graph.count(), graph_calls); // no graph call on probation
    EXPECT_EQ(cost->cpython.count(), cfg.cost_samples + cost_retry_after[0]);
    for (int i = 0; i < 20; ++i)
    {
        EXPECT_FALSE(call(r, cost, 0.5e-3, 1e-3));
    }
    EXPECT_EQ(cost->verdict, cost_verdict::graph);
    EXPECT_EQ(cost->losses, 1);
    EXPECT_EQ(*cost->graph.median_s(cost->trial_start), 0.5e-3);
}

TEST(engine_cost, a_graph_really_slower_loses_every_trial_then_for_good)
{
    config cfg;
    auto held = compiled_region(cfg);
    region& r = *held;
    auto cost = std::make_shared<spec_cost>();
    int losses = 0;
    for (int i = 0; i < 5000; ++i)
    {
        losses += call(r, cost, 2e-3, 1e-3) ? 1 : 0;
    }
    EXPECT_EQ(losses, num_cost_trials);
    EXPECT_EQ(cost->losses, num_cost_trials);
    EXPECT_EQ(cost->verdict, cost_verdict::cpython);
    EXPECT_FALSE(cost->on_probation());
    EXPECT_FALSE(cost->retry_due());
    // Each trial cost cost_check_runs graph calls, no more.
    EXPECT_EQ(cost->graph.count(), num_cost_trials * cfg.cost_check_runs);
    EXPECT_EQ(cost->reason, "graph slower than CPython (graph 2 ms vs CPython 1 ms per call)");
}

TEST(engine_cost, a_cpython_call_that_timed_the_engines_own_work_is_no_sample)
{
    // A loop iteration in CPython during which a nested region was profiled
    // or compiled timed that work too.
    config cfg;
    auto held = compiled_region(cfg);
    region& r = *held;
    auto cost = std::make_shared<spec_cost>();
    EXPECT_FALSE(r.record_graph_time(*cost, 1e-3));
    EXPECT_FALSE(r.record_graph_time(*cost, 1e-3));
    ASSERT_TRUE(cost->wants_cpython_sample(cfg));
    r.expect_cpython_time(cost);
    note_engine_work();
    r.record_cpython_time(9e-3);
    EXPECT_EQ(cost->cpython.count(), 0);
    EXPECT_EQ(cost->polluted_samples, 1);
    EXPECT_EQ(cost->lost_samples, 0);
    EXPECT_EQ(r.timing().cpython_calls, 1); // still the region's time
    // After the next graph call the sample is asked for again, and counts.
    EXPECT_FALSE(r.record_graph_time(*cost, 1e-3));
    ASSERT_TRUE(cost->wants_cpython_sample(cfg));
    r.expect_cpython_time(cost);
    r.record_cpython_time(2e-3);
    EXPECT_EQ(cost->cpython.count(), 1);
    EXPECT_EQ(*cost->cpython.median_s(), 2e-3);
}

TEST(engine_cost, calls_of_different_sizes_are_judged_per_unit)
{
    // A recursion over trees: each call walks a tree of another size, so
    // its samples are per node.
    config cfg;
    auto held = compiled_region(cfg);
    region& r = *held;
    auto cost = std::make_shared<spec_cost>();
    cost->unit = "tree node";
    EXPECT_FALSE(r.record_graph_time(*cost, 8e-3, 100.0));
    EXPECT_FALSE(r.record_graph_time(*cost, 2e-3, 20.0));
    EXPECT_EQ(*cost->graph.median_s(), 0.5 * (80e-6 + 100e-6));
    EXPECT_DOUBLE_EQ(cost->graph_units, 120.0);
    r.expect_cpython_time(cost, 40.0);
    r.record_cpython_time(6e-3);
    EXPECT_DOUBLE_EQ(*cost->cpython.median_s(), 150e-6);
    EXPECT_DOUBLE_EQ(r.timing().cpython_s, 6e-3);
    EXPECT_DOUBLE_EQ(r.timing().graph_s, 10e-3);
    EXPECT_DOUBLE_EQ(*cost->time_saved_s(), 120.0 * (150e-6 - 90e-6));
}

TEST(engine_cost, a_tiny_graph_clearly_slower_loses_for_good_at_once)
{
    // W3's `params[name] -= lr * grads[name]` loop: 8 us as a graph against
    // 2 us in CPython is the graph's fixed cost, not noise: no new trials.
    config cfg;
    cfg.cost_floor_s = 0.0; // a loop region
    auto held = compiled_region(cfg);
    region& r = *held;
    auto tiny = std::make_shared<spec_cost>();
    bool lost = false;
    while (!lost)
    {
        lost = call(r, tiny, 8e-6, 2e-6);
    }
    EXPECT_EQ(tiny->losses, num_cost_trials);
    EXPECT_FALSE(tiny->on_probation());

    // Short but within 1.25x: that may be noise, so the usual trials.
    auto close = std::make_shared<spec_cost>();
    lost = false;
    while (!lost)
    {
        lost = call(r, close, 2.2e-6, 2e-6);
    }
    EXPECT_EQ(close->losses, 1);
    EXPECT_TRUE(close->on_probation());
}
