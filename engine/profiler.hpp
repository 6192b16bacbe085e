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

    class profile
    {
    public:
        // Borrowed `value`. Records type, shape and scalar value under `path`.
        void observe(const std::string& path, PyObject* value);
        // Observes every argument of a frame under the paths the converter uses.
        void observe_frame(const frame_hook::frame_view& frame);

        bool dim_relaxed(const std::string& path, int axis) const;
        bool value_relaxed(const std::string& path) const;
        // Ints whose relaxed conversion failed stay specialised on value.
        bool pin_relaxed_ints();
        // After a failed relaxed conversion: ints stay specialised on value and
        // dims static (the region gets one more specialisation instead).
        bool pin_relaxed();
        void clear()
        {
            m_observations.clear();
            m_varying_items.clear();
        }

    private:
        std::map<std::string, observation> m_observations;
        // Lists/tuples ("inputs") one of whose int items changed: every int item
        // ("inputs[3]") becomes a graph input, as a list of token ids changes
        // as a whole from call to call.
        std::set<std::string> m_varying_items;
    };

    // The path of argument slot i ("arg:<name>").
    std::string arg_path(PyCodeObject* code, int i);
} // namespace specula::engine
