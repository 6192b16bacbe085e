#pragma once

// The executor's walk over one run (private to backends/): `walker` runs a
// compiled graph's regions node by node. Its parts live by concern:
// walker.cpp (the walk, boundary ops, asserts and kernel nodes: the per-op hot
// path), walker_control.cpp (IF, LOOP, CALL) and walker_stores.cpp (sunk
// stores: kernels held back for effect targets). executor.cpp starts a run
// and delivers its outputs.

#include "backends/deferred_store.hpp"
#include "backends/executable.hpp"

#include <optional>
#include <vector>

namespace specula::backends::walk
{
    // One activation of a graph: its compiled form, its arena (value table and
    // planned memory) and its boundary.
    struct frame
    {
        const compiled_graph* p_graph = nullptr;
        arena* p_arena = nullptr;
        const std::vector<buffer>* p_inputs = nullptr;
        int depth = 0;

        std::vector<buffer>& values() const { return p_arena->values; }
    };

    // Takes the graph's next arena for the life of one activation; nested
    // (recursive) activations of the same graph get their own.
    class arena_lease
    {
    public:
        explicit arena_lease(const compiled_graph& g) : m_pool(*g.m_pool)
        {
            if (m_pool.m_active == m_pool.m_arenas.size())
            {
                m_pool.m_arenas.push_back(std::make_unique<arena>());
            }
            p_arena = m_pool.m_arenas[m_pool.m_active++].get();
            p_arena->prepare(*g.p_graph, g.m_plan ? &*g.m_plan : nullptr);
        }
        ~arena_lease()
        {
            p_arena->end_activation();
            --m_pool.m_active;
        }
        arena_lease(const arena_lease&) = delete;
        arena_lease& operator=(const arena_lease&) = delete;

        arena& get() const { return *p_arena; }

    private:
        arena_pool& m_pool;
        arena* p_arena = nullptr;
    };

    class walker
    {
    public:
        explicit walker(const executable& exe) : m_exe(exe) {}

        void set_targets(const compiled_graph& g, const std::vector<buffer>& targets);
        deferred_stores take_stores() { return std::move(m_held); }

        status run_graph(frame& f);
        std::optional<assert_exit> take_exit() { return std::move(m_exit); }

    private:
        // walker.cpp. Only run_region is called from the other files; the
        // rest is the per-op path, declared inline (and defined in walker.cpp
        // alone) so the compiler may fold it into run_node as it would
        // functions private to one file (a call per helper cost the executor
        // bench ~2 ns per op).
        status run_region(frame& f, ir::region_id r);
        inline status run_node(frame& f, const compiled_node& cn);
        inline status bind_input(frame& f, const ir::node& n);
        inline status run_assert(frame& f, const ir::node& n);
        inline status gather_inputs(frame& f, const compiled_node& cn);
        inline status stage_inputs(frame& f, const compiled_node& cn);
        inline status run_kernel(frame& f, const compiled_node& cn);
        inline status acquire_output(frame& f, const compiled_node& cn, std::size_t i, buffer& out);
        inline static bool sink(frame& f, ir::value_id v, ir::dtype elem,
                                const std::vector<std::int64_t>& shape, buffer& out);

        // walker_control.cpp
        void take_results(frame& f, const ir::node& n, ir::region_id r, std::size_t skip);
        status run_if(frame& f, const ir::node& n);
        status check_carried(frame& f, const compiled_node& cn, const ir::region& body);
        status set_counter(frame& f, ir::value_id arg, std::int64_t it);
        status run_loop(frame& f, const compiled_node& cn);
        status run_call(frame& f, const compiled_node& cn);

        // walker_stores.cpp
        bool hold_back(frame& f, const compiled_node& cn);

        const executable& m_exe;
        std::optional<assert_exit> m_exit;
        const std::vector<buffer>* p_targets = nullptr;
        const std::vector<const compiled_node*>* p_candidates = nullptr;
        std::vector<int> m_store_of;
        deferred_stores m_held;
    };
} // namespace specula::backends::walk
