// The effects of one graph run, held back until the run finished with every
// assert passed (LuaJIT's sunk stores). Dropping the buffer is the whole
// rollback; commit() applies them in program order.
#pragma once

#include <pybind11/pybind11.h>

#include <functional>
#include <vector>

namespace specula::engine
{
    namespace py = pybind11;

    // A view of the user's array `base` made by NumPy as the converted code
    // made it: `recipe` is (attribute, None) for `base.T`, or (method, args)
    // for `base.transpose(*args)`. The result is NumPy's own view (its base
    // is the array owning the memory, strides NumPy's), so later writes
    // through it reach the user's array as in CPython. Throws
    // py::error_already_set on failure (only memory can fail: base is a guarded
    // exact ndarray).
    py::object make_view(py::handle base, const py::object& recipe);

    class write_buffer
    {
    public:
        enum class kind
        {
            set_global,
            set_attr,
            set_item,
            array_write,
            list_append,
            print,
            deferred, // a composite effect (tree_commit.hpp): 0, or -1 with an error set
        };

        void add(kind k, py::object target, py::object key, py::object value);
        void add_print(py::tuple args, py::object sep, py::object end);
        void add_deferred(std::function<int()> apply);
        bool empty() const { return m_effects.empty(); }
        // Whether committing runs Python's stream code (a print effect).
        bool prints() const { return m_prints; }
        void drop() { m_effects.clear(); }
        // Returns false with a Python exception set when an effect failed
        // (only I/O of print can, the targets were guarded).
        bool commit();

    private:
        struct pending
        {
            kind k;
            py::object target; // globals dict, object, container or array
            py::object key;
            py::object value; // the value, or the args tuple of print
            py::object sep;
            py::object end;
            std::function<int()> apply;
        };
        std::vector<pending> m_effects;
        bool m_prints = false;
    };
} // namespace specula::engine
