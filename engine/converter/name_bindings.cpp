// A value bound to a global name (cell mode, `global` in a function). Binding
// an array gives Python nothing to look at before the commit: the buffered
// rebinding hands over the graph output of the array's entry, and outputs
// take an entry's final value. So an array that only escaped into names may
// still be updated in place afterwards (`logits = h @ W + b` then
// `logits -= logits.max(...)`, or `p = np.exp(z)` then `p /= p.sum(...)`), and
// the name ends on the updated contents as in CPython. Printing, storing in a
// container or returning it fixes the contents (plan_of clears the mark).
#include "engine/converter/converter.hpp"

namespace specula::engine::converter
{
    value_plan converter::plan_of_binding(const cval& v, py::handle node)
    {
        if (v.k != cval::kind::array)
        {
            return plan_of(v, node);
        }
        const bool free_before = [&]
        {
            const array_entry& e = m_arrays[static_cast<size_t>(v.arr)];
            return !e.escaped || e.bound_only;
        }();
        value_plan p = plan_of(v, node);
        array_entry& e = m_arrays[static_cast<size_t>(v.arr)]; // plan_of may grow m_arrays
        if (p.k == value_plan::kind::output && free_before)
        {
            e.bound_only = true;
        }
        return p;
    }
} // namespace specula::engine::converter
