// Control flow that unrolls at conversion: list comprehensions, and generator
// expressions consumed at once by an unpacking assignment.
#include "engine/converter/converter.hpp"

namespace specula::engine::converter
{
    namespace
    {
        std::string node_type(py::handle node)
        {
            return py::str(node.get_type().attr("__name__"));
        }
    } // namespace

    // `[elt for target in iterable if cond]` over a sequence whose structure
    // is known, with filters on specialised values: the items, in order. The
    // target is local to the comprehension (Python 3 scoping). A generator
    // expression is lazy, so it is only taken where it is consumed at once.
    cval converter::visit_comprehension(py::handle node, bool consumed_at_once)
    {
        const bool generator = node_type(node) == "GeneratorExp";
        if (generator && !consumed_at_once)
        {
            fail("generator expression (lazy evaluation)", node);
        }
        py::list generators = node.attr("generators");
        if (py::len(generators) != 1)
        {
            fail("comprehension with several for clauses", node);
        }
        py::handle clause = generators[0];
        if (clause.attr("is_async").cast<int>() != 0)
        {
            fail("async comprehension", node);
        }
        cval seq;
        std::vector<cval> items = iteration_items(clause.attr("iter"), seq);
        std::map<std::string, cval> enclosing = m_locals;
        std::set<std::string> declared;
        std::swap(m_declared_globals, declared); // the target never names a global
        cval out;
        out.k = cval::kind::tuple;
        for (const cval& item : items)
        {
            if (++m_statements > m_config.max_unrolled_statements)
            {
                fail("too many statements after unrolling", node);
            }
            assign_to(clause.attr("target"), item);
            bool keep = true;
            for (py::handle condition : clause.attr("ifs"))
            {
                cval test = visit_expr(condition);
                if (test.k != cval::kind::constant)
                {
                    fail("comprehension filter on array data", condition);
                }
                keep = keep && PyObject_IsTrue(test.obj.ptr()) == 1;
                if (!keep)
                {
                    break;
                }
            }
            if (keep)
            {
                out.items.push_back(visit_expr(node.attr("elt")));
            }
        }
        std::swap(m_declared_globals, declared);
        m_locals = std::move(enclosing);
        if (!generator)
        {
            out.obj = py::str("list"); // as a list literal: an argument, not a value
        }
        return out;
    }
} // namespace specula::engine::converter
