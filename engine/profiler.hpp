// Observations over the profiling calls and guard misses, per source path:
// what changed between calls. A changed shape makes that dim symbolic, a
// changed Python float value makes it a graph input (JANUS's relaxation).
// Profiling only reads: it never changes behaviour.
#pragma once

#include <Python.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/frame_hook.hpp"

namespace specula::engine
{
    struct observation
    {
        PyTypeObject* type = nullptr; // compared by address only, never dereferenced
        std::vector<std::int64_t> dims;
        std::vector<bool> dim_varies;
        double float_value = 0.0;
        long long int_value = 0;
        bool value_varies = false;
        bool type_varies = false;
        bool is_int = false;
        bool pinned = false;      // value_varies is ignored
        bool dims_pinned = false; // dim_varies is ignored
        int count = 0;
    };

    // What the profiling calls' CPython runs did at one `if`/`while`/`for`
    // (branch_tracer.hpp), keyed "file:line" of the statement.
    struct branch_observation
    {
        std::int64_t taken = 0;     // the test held (an `if`'s body, a loop's trip)
        std::int64_t not_taken = 0; // the test failed (else side, loop exit)
        // Loops: trips per entry of the loop, over every entry seen.
        std::int64_t entries = 0;
        std::int64_t trips_min = 0;
        std::int64_t trips_max = 0;
        // An assert built on this observation failed in a graph run: the
        // observation no longer describes the calls (compile without it).
        bool flipped = false;

        // Both outcomes seen, or none: no side to assume.
        bool one_sided() const { return !flipped && (taken > 0) != (not_taken > 0); }
        bool constant_trips() const { return !flipped && entries > 0 && trips_min == trips_max; }
    };

    class profile
    {
    public:
        // Borrowed `value`. Records type, shape and scalar value under `path`.
        void observe(const std::string& path, PyObject* value);
        // Observes every argument of a frame under the paths the converter uses.
        void observe_frame(const frame_hook::frame_view& frame);

        // A loop's counter: the int last observed under `path` is known to
        // change every iteration (unless a relaxed conversion pinned it).
        void relax_int(const std::string& path);
        bool dim_relaxed(const std::string& path, int axis) const;
        bool value_relaxed(const std::string& path) const;
        // Ints whose relaxed conversion failed stay specialised on value.
        bool pin_relaxed_ints();
        // After a failed relaxed conversion: ints stay specialised on value and
        // dims static (the region gets one more specialisation instead).
        bool pin_relaxed();
        // Dims only: tried first, so a loop counter stays relaxed when only a
        // shape could not be symbolic (a minibatch's short last slice gets a
        // static specialisation of its own, not one per counter value).
        bool pin_relaxed_dims();
        void clear()
        {
            m_observations.clear();
            m_varying_items.clear();
            m_branches.clear();
        }

        // Branch outcomes and loop trip counts (branch_tracer.cpp records them).
        void record_branch(const std::string& key, bool taken);
        void record_trips(const std::string& key, std::int64_t trips);
        void branch_flipped(const std::string& key);
        const branch_observation* branch(const std::string& key) const;

    private:
        std::map<std::string, observation> m_observations;
        // Lists/tuples ("inputs") one of whose int items changed: every int item
        // ("inputs[3]") becomes a graph input, as a list of token ids changes
        // as a whole from call to call.
        std::set<std::string> m_varying_items;
        std::map<std::string, branch_observation> m_branches;
    };

    // The path of argument slot i ("arg:<name>").
    std::string arg_path(PyCodeObject* code, int i);
} // namespace specula::engine
