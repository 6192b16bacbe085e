#include "engine/tree_inputs.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/py_errors.hpp"

namespace specula::engine
{
    namespace
    {
        // Frames a converted body may add on top of the recursion itself
        // (inlined helpers, at most 16 deep, plus NumPy's Python wrappers).
        constexpr int frame_margin = 64;

        // Ints the graph holds exactly and may add or multiply a few of
        // (the converter's relaxed-int range).
        constexpr long long int_lo = -(1LL << 31);
        constexpr long long int_hi = (1LL << 31) - 1;

        struct pending
        {
            PyObject* node; // borrowed: the tree holds it for the whole call
            PyObject* dict; // borrowed: its __dict__
            int depth;
            bool expanded;
        };

        // The nodes of one walk, each with its post-order index (-1 until it
        // is finished): an open-addressing table of pointers whose memory is
        // kept from walk to walk. A walk runs at every call of a graph over a
        // tree, and node-based std containers made two heap allocations per
        // node (~3 % of W4's forward).
        class node_index
        {
        public:
            void clear(std::size_t expected)
            {
                std::size_t want = 16;
                while (want < 2 * expected)
                {
                    want *= 2;
                }
                if (m_slots.size() < want)
                {
                    m_slots.resize(want);
                }
                std::fill(m_slots.begin(), m_slots.end(), slot{});
                m_count = 0;
            }

            // False when `node` is there already.
            bool insert(PyObject* node)
            {
                if (2 * (m_count + 1) > m_slots.size())
                {
                    grow();
                }
                slot& s = find(node);
                if (s.node != nullptr)
                {
                    return false;
                }
                s = {node, -1};
                ++m_count;
                return true;
            }

            // The slot of an inserted node (its index is the caller's to
            // set), or null.
            std::int64_t* index_of(PyObject* node)
            {
                slot& s = find(node);
                return s.node != nullptr ? &s.index : nullptr;
            }

            std::size_t size() const { return m_count; }

        private:
            struct slot
            {
                PyObject* node = nullptr;
                std::int64_t index = -1;
            };

            slot& find(PyObject* node)
            {
                const std::size_t mask = m_slots.size() - 1;
                // Objects are 16-byte aligned: the low bits carry nothing.
                std::uint64_t h =
                    (reinterpret_cast<std::uintptr_t>(node) >> 4) * 0x9E3779B97F4A7C15ULL;
                h ^= h >> 29;
                for (std::size_t i = h & mask;; i = (i + 1) & mask)
                {
                    if (m_slots[i].node == node || m_slots[i].node == nullptr)
                    {
                        return m_slots[i];
                    }
                }
            }

            void grow()
            {
                std::vector<slot> old(std::max<std::size_t>(16, 2 * m_slots.size()));
                old.swap(m_slots);
                for (const slot& s : old)
                {
                    if (s.node != nullptr)
                    {
                        find(s.node) = s;
                    }
                }
            }

            std::vector<slot> m_slots; // size a power of two, at most half full
            std::size_t m_count = 0;
        };

        // Scratch of the walk, kept across calls on this thread. A dict
        // lookup may run Python code (a key of a str subclass compares with
        // its own __eq__), which may call a graph again: a nested walk then
        // uses scratch of its own.
        struct walk_scratch
        {
            node_index nodes;
            std::vector<pending> stack;
            bool busy = false;
        };

        class scratch_lease
        {
        public:
            scratch_lease()
            {
                static thread_local walk_scratch shared;
                p_scratch = shared.busy ? &m_own : &shared;
                p_scratch->busy = true;
            }
            ~scratch_lease() { p_scratch->busy = false; }
            scratch_lease(const scratch_lease&) = delete;
            scratch_lease& operator=(const scratch_lease&) = delete;

            walk_scratch& get() { return *p_scratch; }

        private:
            walk_scratch m_own;
            walk_scratch* p_scratch = nullptr;
        };
    } // namespace

    int tree_plan::table_index(tree_table::kind k, const std::string& field)
    {
        for (size_t i = 0; i < tables.size(); ++i)
        {
            if (tables[i].k == k && tables[i].field == field)
            {
                return static_cast<int>(i);
            }
        }
        tables.push_back({k, field});
        return static_cast<int>(tables.size()) - 1;
    }

    bool tree_plan::walk(PyObject* root, tree_walk& out, std::string& why,
                         const std::vector<PyObject*>& excluded) const
    {
        auto* type = reinterpret_cast<PyTypeObject*>(node_class.ptr());
        if (type->tp_getattro != PyObject_GenericGetAttr)
        {
            why = "tree node class " + std::string(type->tp_name) + " has a custom __getattr__";
            return false;
        }
        // Field and method names as the str objects the dicts are keyed by.
        std::vector<py::str> child_keys(children.begin(), children.end());
        std::vector<py::str> table_keys;
        for (const tree_table& t : tables)
        {
            table_keys.emplace_back(t.field);
            if (_PyType_Lookup(type, table_keys.back().ptr()) != nullptr)
            {
                why = "tree node attribute ." + t.field + " defined by the class";
                return false;
            }
        }
        if (!writes.empty() && type->tp_setattro != PyObject_GenericSetAttr)
        {
            why = "tree node class " + std::string(type->tp_name) + " has a custom __setattr__";
            return false;
        }
        for (const tree_attr_write& w : writes)
        {
            // A descriptor (property, slot) would run code on the write.
            if (_PyType_Lookup(type, py::str(w.name).ptr()) != nullptr)
            {
                why = "tree node attribute ." + w.name + " defined by the class";
                return false;
            }
        }
        std::vector<py::str> method_keys(class_names.begin(), class_names.end());
        for (const py::str& k : child_keys)
        {
            if (_PyType_Lookup(type, k.ptr()) != nullptr)
            {
                why = "tree node attribute ." + std::string(k) + " defined by the class";
                return false;
            }
        }
        // The tables keep their capacity from the last call (the graph
        // borrowed them for that run only).
        const std::size_t expected = static_cast<std::size_t>(std::max<std::int64_t>(out.nodes, 1));
        out.nodes = 0;
        out.ints.resize(tables.size());
        out.bools.resize(tables.size());
        for (std::size_t t = 0; t < tables.size(); ++t)
        {
            out.ints[t].clear();
            out.bools[t].clear();
        }
        out.order.clear();
        scratch_lease lease;
        node_index& seen = lease.get().nodes;
        seen.clear(expected);
        std::vector<pending>& stack = lease.get().stack;
        stack.clear();
        int max_depth = 0;

        auto enter = [&](PyObject* node, int depth) -> bool
        {
            if (Py_TYPE(node) != type)
            {
                why = "tree node of class " + std::string(Py_TYPE(node)->tp_name) + " instead of " +
                      type->tp_name;
                return false;
            }
            if (!seen.insert(node))
            {
                why = "tree node reached twice (a shared or cyclic structure)";
                return false;
            }
            if (std::find(excluded.begin(), excluded.end(), node) != excluded.end())
            {
                why = "tree node that is the root of an earlier recursion the caller reads";
                return false;
            }
            PyObject** dict_ptr = _PyObject_GetDictPtr(node);
            if (dict_ptr == nullptr || *dict_ptr == nullptr)
            {
                why = "tree node without a __dict__";
                return false;
            }
            for (const py::str& m : method_keys)
            {
                if (PyDict_GetItemWithError(*dict_ptr, m.ptr()) != nullptr)
                {
                    why = "tree node whose instance shadows the method ." + std::string(m);
                    return false;
                }
                if (PyErr_Occurred())
                {
                    clear_error_unless_interrupt(); // a node's dict with a user key
                    why = "tree node whose __dict__ raised looking up ." + std::string(m);
                    return false;
                }
            }
            max_depth = std::max(max_depth, depth);
            stack.push_back({node, *dict_ptr, depth, false});
            return true;
        };

        if (!enter(root, 1))
        {
            return false;
        }
        while (!stack.empty())
        {
            pending& top = stack.back();
            if (!top.expanded)
            {
                top.expanded = true;
                PyObject* dict = top.dict;
                const int depth = top.depth;
                // Children pushed in reverse so the first is finished first
                // (the order the recursive calls run in).
                for (size_t c = child_keys.size(); c-- > 0;)
                {
                    PyObject* child = PyDict_GetItemWithError(dict, child_keys[c].ptr());
                    if (child == nullptr)
                    {
                        clear_error_unless_interrupt(); // a node's dict with a user key
                        why = "tree node without attribute ." + children[c];
                        return false;
                    }
                    if (child != Py_None && !enter(child, depth + 1))
                    {
                        return false;
                    }
                }
                continue;
            }
            PyObject* node = top.node;
            PyObject* dict = top.dict;
            stack.pop_back();
            *seen.index_of(node) = out.nodes++;
            if (!writes.empty())
            {
                out.order.push_back(py::reinterpret_borrow<py::object>(node));
            }
            for (size_t t = 0; t < tables.size(); ++t)
            {
                PyObject* v = PyDict_GetItemWithError(dict, table_keys[t].ptr());
                if (v == nullptr)
                {
                    clear_error_unless_interrupt(); // a node's dict with a user key
                    why = "tree node without attribute ." + tables[t].field;
                    return false;
                }
                switch (tables[t].k)
                {
                case tree_table::kind::is_none:
                    out.bools[t].push_back(v == Py_None ? 1 : 0);
                    break;
                case tree_table::kind::child:
                {
                    // Children finished before their parent: their index is
                    // known (a child table names a followed child).
                    const std::int64_t* index = v == Py_None ? nullptr : seen.index_of(v);
                    if (v != Py_None && (index == nullptr || *index < 0))
                    {
                        why =
                            "tree node attribute ." + tables[t].field + " is not a finished child";
                        return false;
                    }
                    out.ints[t].push_back(index == nullptr ? -1 : *index);
                    break;
                }
                case tree_table::kind::int_value:
                {
                    long long x = 0;
                    if (v != Py_None)
                    {
                        int overflow = 0;
                        x = PyLong_CheckExact(v) ? PyLong_AsLongLongAndOverflow(v, &overflow) : 0;
                        if (!PyLong_CheckExact(v) || overflow != 0 || x < int_lo || x > int_hi)
                        {
                            why = "tree node attribute ." + tables[t].field +
                                  " is not an int in [-2**31, 2**31)";
                            return false;
                        }
                    }
                    out.ints[t].push_back(x);
                    break;
                }
                }
            }
            for (const child_required& r : required_children)
            {
                const auto w = static_cast<size_t>(r.when_table);
                if ((r.when_table < 0 || (out.bools[w].back() != 0) == r.when) &&
                    out.ints[static_cast<size_t>(r.child_table)].back() < 0)
                {
                    why = "tree node attribute ." +
                          tables[static_cast<size_t>(r.child_table)].field +
                          " is None where the recursion reads it";
                    return false;
                }
            }
        }
        // CPython would raise RecursionError on a tree this deep: let it.
        if (max_depth + frame_margin >= PyThreadState_Get()->recursion_remaining)
        {
            why = "tree deeper than the recursion limit allows";
            return false;
        }
        return true;
    }
} // namespace specula::engine
