#include "engine/guard_checks.hpp"

#include <algorithm>
#include <iterator>

namespace specula::engine
{
    bool check_guards(const specialisation& spec, const frame_hook::frame_view& frame,
                      std::vector<PyObject*>& values, owned_refs& owned, guard_failure& failure)
    {
        if (frame.globals != spec.globals.ptr())
        {
            failure = {-1, -2, {}};
            return false;
        }
        std::int64_t symbols[max_symbols];
        for (auto& s : symbols)
        {
            s = -1;
        }
        int n = spec.sources.size();
        values.assign(static_cast<size_t>(n), nullptr);
        for (int s = 0; s < n; ++s)
        {
            PyObject* v = spec.sources.resolve(s, frame, values, owned);
            if (v == nullptr)
            {
                failure = {s, PyErr_Occurred() ? guards_interrupted : -1, {}};
                return false;
            }
            values[static_cast<size_t>(s)] = v;
            if (s >= static_cast<int>(spec.guards.per_source.size()))
            {
                continue;
            }
            const auto& list = spec.guards.per_source[static_cast<size_t>(s)];
            for (size_t i = 0; i < list.size(); ++i)
            {
                if (!list[i].check(values.data(), symbols))
                {
                    ++list[i].failures;
                    failure = {s, static_cast<int>(i), {}};
                    return false;
                }
            }
        }
        for (size_t i = 0; i < spec.guards.cross.size(); ++i)
        {
            if (!spec.guards.cross[i].check(values.data(), symbols))
            {
                ++spec.guards.cross[i].failures;
                failure = {-1, static_cast<int>(i), {}};
                return false;
            }
        }
        std::vector<PyObject*> excluded;
        for (const auto& t : spec.trees)
        {
            excluded.clear();
            for (int s : t->distinct_from)
            {
                excluded.push_back(values[static_cast<size_t>(s)]);
            }
            // The tree is read at every call, as JANUS reads tree nodes.
            if (!t->walk(values[static_cast<size_t>(t->root_src)], t->last, failure.explain,
                         excluded))
            {
                failure.source = -1;
                failure.index = PyErr_Occurred() ? guards_interrupted : -3;
                return false;
            }
        }
        return true;
    }

    std::vector<int> failing_sources(const specialisation& spec,
                                     const frame_hook::frame_view& frame,
                                     std::vector<PyObject*>& values, owned_refs& owned)
    {
        std::vector<int> failing;
        const int n = spec.sources.size();
        values.resize(static_cast<size_t>(n), nullptr);
        std::vector<bool> usable(static_cast<size_t>(n), false);
        bool any_failed = false;
        for (int s = 0; s < n; ++s)
        {
            const source& src = spec.sources[s];
            const bool computed = src.kind == source_kind::computed_item ||
                                  src.kind == source_kind::computed_slice ||
                                  src.kind == source_kind::keyed_item;
            // A computed index reads other sources' values: only while all held.
            if ((src.parent >= 0 && !usable[static_cast<size_t>(src.parent)]) ||
                (computed && any_failed))
            {
                continue;
            }
            PyObject* v = values[static_cast<size_t>(s)];
            v = v != nullptr ? v : spec.sources.resolve(s, frame, values, owned);
            if (v == nullptr)
            {
                if (PyErr_Occurred())
                {
                    break; // the user's interrupt (py_errors.hpp): the caller raises it
                }
                any_failed = true;
                continue;
            }
            values[static_cast<size_t>(s)] = v;
            usable[static_cast<size_t>(s)] = true;
            if (s >= static_cast<int>(spec.guards.per_source.size()))
            {
                continue;
            }
            std::int64_t symbols[max_symbols];
            std::fill(std::begin(symbols), std::end(symbols), -1);
            for (const guard& g : spec.guards.per_source[static_cast<size_t>(s)])
            {
                if (!g.check(values.data(), symbols))
                {
                    failing.push_back(s);
                    // Children of a changed object are not read.
                    usable[static_cast<size_t>(s)] = false;
                    any_failed = true;
                    break;
                }
            }
        }
        return failing;
    }

    std::string explain_failure(const specialisation& spec, const guard_failure& failure,
                                const std::vector<PyObject*>& values)
    {
        if (failure.index == -2)
        {
            return "called with other globals";
        }
        if (failure.index == -3)
        {
            return "guard miss: " + failure.explain;
        }
        if (failure.index == -1)
        {
            return "cannot read " + spec.sources[failure.source].path;
        }
        const guard& g = failure.source >= 0
                             ? spec.guards.per_source[static_cast<size_t>(failure.source)]
                                                     [static_cast<size_t>(failure.index)]
                             : spec.guards.cross[static_cast<size_t>(failure.index)];
        return "guard miss: " + g.explain(values.data());
    }
} // namespace specula::engine
