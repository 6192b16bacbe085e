// Where a graph input comes from, as an access path from the frame (Dynamo's
// "sources"): argument i, a global name, an attribute or item of another
// source, a closure cell. Resolving a source at run time re-reads the heap.
#pragma once

#include <Python.h>
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "engine/frame_hook.hpp"
#include "engine/int_expr.hpp"
#include "engine/py_ref.hpp"

namespace specula::engine
{
    namespace py = pybind11;

    enum class source_kind
    {
        arg,         // frame argument slot `index`
        global,      // globals[key], else builtins[key]
        attr,        // generic getattr(parent, key) on a guarded plain object
        module_attr, // parent module's dict[key]
        item,        // parent list/tuple[index] or dict[key]
        closure,     // function closure cell `index`
        // What attribute lookup finds on the class of a guarded plain object
        // for `key`, without running code: a Python function not shadowed by
        // the instance dict (a method), or a property object.
        class_attr,
        // parent list/tuple[i], i computed from earlier sources by the
        // index expression given to source_table::add
        // (a loop counter's `hs[t + 1]`); Python's negative indices wrap.
        // On an exact str, the one-character str CPython's `s[i]` gives; on an
        // exact ndarray of 2 or more dims, the row view NumPy's `a[i]` gives.
        computed_item,
        // parent ndarray[start:stop:key] along axis `index` (full slices
        // before it), start/stop computed from earlier sources (a minibatch
        // `X[k * bs:(k + 1) * bs]` at loop counter k, a window
        // `S[:, p:p + n]`): a real NumPy view made before the run, as
        // CPython makes one per iteration.
        computed_slice,
        // parent dict[the object of source `index`]: a dict read at a key
        // only the run knows (`char_to_ix[ch]`, ch a character of a str
        // sliced by a loop counter). The key must be an exact str or int,
        // whose hashing and comparison run no user code.
        keyed_item,
    };

    struct source
    {
        source_kind kind = source_kind::arg;
        int parent = -1;
        int index = 0;
        py::object key;   // attribute/global name or dict key
        std::string path; // "x", "G[W]", "self.h": reports and dedup
    };

    class source_table
    {
    public:
        // Returns the index of an equal source (same path) or adds it;
        // `index_expr` computes a computed_item's index or a computed_slice's
        // start, `stop_expr` a computed_slice's stop (null: absent bound).
        int add(source s, int_expr_ptr index_expr = nullptr, int_expr_ptr stop_expr = nullptr);
        int size() const { return static_cast<int>(m_sources.size()); }
        const source& operator[](int i) const { return m_sources[static_cast<size_t>(i)]; }

        // Resolves source i; parents must be in `values` already. Returns a
        // borrowed reference (kept alive by `owned` when a new one was needed),
        // or nullptr when the path does not resolve: no exception left set,
        // except the user's interrupt raised in a key's __eq__ a dict lookup
        // ran (py_errors.hpp), which the caller raises.
        PyObject* resolve(int i, const frame_hook::frame_view& frame,
                          const std::vector<PyObject*>& values, owned_refs& owned) const;

    private:
        std::vector<source> m_sources;
        std::vector<int_expr_ptr> m_index_exprs; // per source (computed_item/_slice)
        std::vector<int_expr_ptr> m_stop_exprs;  // per source (computed_slice)
    };

    std::string global_path(const std::string& name);
} // namespace specula::engine
