// A recursion over a tree called by the converted function (W4's
// `tree_loss` calling `forward(root, p)`): instead of inlining the callee
// (which would recurse without end), its LOOP over the nodes is built in the
// caller's graph (recursion.cpp's build_recursion), rooted at the object the
// caller passes, whatever source it comes from. The walk of that root at
// every call feeds the tables; the attributes the recursion sets on the
// nodes are one effect of the caller, in program order; the caller's code
// after the call reads the root's attributes from the root's row. Each call
// site has its own tables, walk and knowledge (a probe conversion of the
// caller up to that site learns the types its tables carry).
#include "engine/converter/converter.hpp"

#include <algorithm>

namespace specula::engine::converter
{
    namespace
    {
        bool contains(const std::vector<std::string>& names, const std::string& name)
        {
            return std::find(names.begin(), names.end(), name) != names.end();
        }

        bool plain_instance(PyObject* o)
        {
            PyTypeObject* t = Py_TYPE(o);
            return (t->tp_flags & Py_TPFLAGS_HEAPTYPE) && !PyType_Check(o) &&
                   !PyFunction_Check(o) && _PyObject_GetDictPtr(o) != nullptr;
        }
    } // namespace

    bool converter::recursion_call(const cval& fn, PyCodeObject* code, std::vector<cval>& arguments,
                                   py::handle node, cval& out)
    {
        int first_line = 1;
        py::object fdef = parsed_def(code, first_line);
        auto known = m_recurses.find(code);
        if (known == m_recurses.end())
        {
            known = m_recurses.emplace(code, calls_itself(fdef)).first;
        }
        if (!known->second || arguments.empty() || arguments[0].k != cval::kind::object ||
            arguments[0].src < 0 || !plain_instance(arguments[0].obj.ptr()))
        {
            return false; // inlined: a recursive call in it is refused there
        }
        const std::string name = py::str(code->co_qualname);
        if (m_tree)
        {
            fail("call of the recursive function " + name + " inside a recursion over a tree",
                 node);
        }
        if (!m_whole_function || m_builder->insertion_region() != p_graph->body())
        {
            // One walk per graph call: the tables could not follow a root
            // that changes from trip to trip.
            fail("call of the recursive function " + name +
                     " inside a loop or branch converted as a graph region",
                 node);
        }
        if (code->co_kwonlyargcount != 0 || code->co_posonlyargcount != 0 ||
            arguments.size() != static_cast<size_t>(code->co_argcount))
        {
            fail("recursive function with keyword-only or positional-only parameters", node);
        }
        const int site = m_sites_met++;
        m_tree = std::make_unique<tree_state>();
        m_tree->code = code;
        m_tree->depth = m_inlined.size() + 1; // in the callee's scope below
        m_tree->site = site;
        if (site < static_cast<int>(m_site_known.size()))
        {
            m_tree->known = m_site_known[static_cast<size_t>(site)];
            m_tree->probing = site == m_probe_site;
            m_tree->learned = !m_tree->probing;
        }
        const size_t effects_before = m_spec->effects.size();
        const cval root = arguments[0];
        const std::string node_param = arg_path(code, 0);
        const bool whole_function = m_whole_function;
        m_whole_function = false;
        out = in_callee_scope(fn, code, std::move(arguments),
                              [&](py::handle)
                              {
                                  m_result = build_recursion(fdef, code, root, node_param);
                                  m_returned = true;
                              });
        m_whole_function = whole_function;
        if (site == static_cast<int>(m_site_known.size()))
        {
            m_site_known.push_back(m_tree->known);
        }
        tree_site info = std::move(m_tree->info);
        m_tree.reset();
        check_site_effects(info, effects_before, node);
        for (const tree_site::written& w : info.writes)
        {
            // The caller's own earlier write of the attribute is overwritten
            // on the root (and maybe elsewhere): reads go to the site.
            for (auto it = m_heap_writes.begin(); it != m_heap_writes.end();)
            {
                const std::string& path = it->first;
                const std::string tail = "." + w.name;
                const bool same = path.size() > tail.size() &&
                                  path.compare(path.size() - tail.size(), tail.size(), tail) == 0;
                it = same ? m_heap_writes.erase(it) : std::next(it);
            }
        }
        m_tree_sites.push_back(std::move(info));
        return true;
    }

    // The types the loop's tables need before the body is converted: the
    // type a call returns and those of the attributes it sets on nodes, from
    // throw-away conversions that each stop at the first thing they learn
    // (of the recursive function itself, or of its caller up to the site).
    void converter::learn_tree_types(py::handle fdef)
    {
        const int site = m_tree->site;
        for (int round = 0; round < 64; ++round)
        {
            converter probe(m_frame, m_profile, m_whitelist, m_config);
            probe.m_spec = std::make_shared<specialisation>();
            probe.m_spec->module = std::make_unique<ir::module>();
            probe.p_graph = &probe.m_spec->module->add_graph("main");
            probe.m_builder = std::make_unique<ir::builder>(*probe.p_graph);
            try
            {
                if (site < 0)
                {
                    probe.m_file = m_file;
                    probe.m_first_line = m_first_line;
                    probe.p_code = p_code;
                    probe.m_tree = std::make_unique<tree_state>();
                    probe.m_tree->probing = true;
                    probe.m_tree->known = m_tree->known;
                    probe.convert_recursion(fdef);
                }
                else
                {
                    // A caller's recursion: the probe converts the caller up
                    // to this call site (the sites before it as learned).
                    probe.m_site_known.assign(m_site_known.begin(), m_site_known.begin() + site);
                    probe.m_site_known.push_back(m_tree->known);
                    probe.m_probe_site = site;
                    probe.p_code = m_frame.code;
                    probe.m_file = py::str(m_frame.code->co_filename);
                    py::object caller = probe.parsed_def(m_frame.code, probe.m_first_line);
                    probe.convert_function_body(caller);
                }
                fail("recursive function over a tree the probe conversion did not reach", fdef);
            }
            catch (const tree_probe_done& done)
            {
                // Its body set these on every path that ends it.
                m_tree->known.always_set.clear();
                for (const tree_knowledge::attr& a : m_tree->known.attrs)
                {
                    if (done.maybe_unset.count(a.name) == 0)
                    {
                        m_tree->known.always_set.insert(a.name);
                    }
                }
                return;
            }
            catch (const tree_learned& learned)
            {
                m_tree->known = learned.known;
            }
        }
        fail("recursive function over a tree whose types do not settle", fdef);
    }

    // The walk reads the nodes at the graph call's start: nothing the
    // converted code does before the recursion may change what it reads
    // (a child, a field, a method of a node, or an attribute an earlier
    // recursion set and this one reads).
    void converter::check_site_effects(const tree_site& site, size_t effects_before,
                                       py::handle node)
    {
        for (size_t k = 0; k < effects_before; ++k)
        {
            const effect_plan& e = m_spec->effects[k];
            if (e.k == effect_plan::kind::set_attr && contains(site.reads, py::str(e.key)))
            {
                fail("attribute ." + std::string(py::str(e.key)) +
                         " set before a recursion over a tree reads it on the nodes",
                     node);
            }
        }
        for (const tree_site& earlier : m_tree_sites)
        {
            for (const tree_site::written& w : earlier.writes)
            {
                if (contains(site.reads, w.name))
                {
                    fail("tree node attribute ." + w.name +
                             " set by one recursion and read as tree data by a later one",
                         node);
                }
            }
        }
    }

    // `x.<name>` after a recursion set <name> on the nodes of x's class:
    // the root's row of the last recursion rooted at x that sets it (the
    // root is the last node in post-order). A later recursion setting it
    // from another root walks on the condition that x is none of its nodes
    // (else CPython runs the call). Refused when no recursion was rooted at x.
    bool converter::tree_site_attribute(const cval& obj, const std::string& name, py::handle node,
                                        cval& out)
    {
        if (obj.k != cval::kind::object)
        {
            return false;
        }
        const tree_site* last = nullptr;
        const tree_site::written* attr = nullptr;
        std::vector<tree_site*> later; // other roots setting it after `last`
        for (tree_site& s : m_tree_sites)
        {
            if (Py_TYPE(obj.obj.ptr()) != reinterpret_cast<PyTypeObject*>(s.node_class.ptr()))
            {
                continue;
            }
            for (const tree_site::written& w : s.writes)
            {
                if (w.name != name)
                {
                    continue;
                }
                if (s.root_src == obj.src)
                {
                    last = &s;
                    attr = &w;
                    later.clear();
                }
                else
                {
                    later.push_back(&s);
                }
            }
        }
        if (attr == nullptr)
        {
            if (!later.empty())
            {
                fail("read of tree node attribute ." + name +
                         " after a recursion set it (only a root's is converted)",
                     node);
            }
            return false;
        }
        for (tree_site* s : later)
        {
            auto& distinct = s->plan->distinct_from;
            if (std::find(distinct.begin(), distinct.end(), obj.src) == distinct.end())
            {
                distinct.push_back(obj.src);
            }
        }
        if (!attr->always_set)
        {
            // CPython would read what the node held before: the heap's.
            const ir::value_id tag = m_builder->gather(attr->tags, last->root_index, 0);
            add_assert(m_builder->binary(ir::op::NE, tag,
                                         m_builder->constant(ir::scalar::of_int(
                                             ir::dtype::int64, tree_attr_write::tag_unwritten))),
                       "tree node attribute ." + name + " not set on the root at " + where(node));
        }
        out = new_array(m_builder->gather(attr->values, last->root_index, 0), surface::ndarray);
        // The object on the node: no in-place update, and its identity
        // never reaches Python from here (plan_of refuses).
        m_arrays[static_cast<size_t>(out.arr)].escaped = true;
        m_tree_reads.insert(out.arr);
        return true;
    }

    bool converter::tree_site_read(int arr) const
    {
        return m_tree_reads.count(arr) != 0;
    }

    outer_snapshot converter::snapshot_outer() const
    {
        outer_snapshot s;
        s.effects = m_spec->effects.size();
        s.heap_writes = m_heap_writes.size();
        for (const auto& [src, writes] : m_item_writes)
        {
            s.item_writes += writes.size();
        }
        s.written_sources = m_written_sources.size();
        for (const array_entry& e : m_arrays)
        {
            s.arrays.push_back(e.value);
        }
        s.dicts = m_dicts;
        return s;
    }

    // Whether a recursion's body changed state of the code around it: its
    // effects, in-place updates of the caller's arrays, items of dicts the
    // caller built. The LOOP runs the body per node; none of these is
    // carried per node yet.
    bool converter::outer_changed(const outer_snapshot& before) const
    {
        size_t items = 0;
        for (const auto& [src, writes] : m_item_writes)
        {
            items += writes.size();
        }
        if (m_spec->effects.size() != before.effects ||
            m_heap_writes.size() != before.heap_writes || items != before.item_writes ||
            m_written_sources.size() != before.written_sources)
        {
            return true;
        }
        for (size_t i = 0; i < before.arrays.size(); ++i)
        {
            if (m_arrays[i].value != before.arrays[i])
            {
                return true;
            }
        }
        for (size_t d = 0; d < before.dicts.size(); ++d)
        {
            if (dict_changed(before.dicts[d], static_cast<int>(d)))
            {
                return true;
            }
        }
        return false;
    }
} // namespace specula::engine::converter
