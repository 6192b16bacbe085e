// sum, min and max over values known only at run time, and over a generator
// expression whose items the converter knows (`sum(float((g * g).sum()) for g
// in grads.values())`): unrolled into the operations CPython performs.
//  - sum(items, start=0) is `start + items[0] + items[1] ...` left to right, each
//    addition with Python's (Python floats, ints) or NumPy's (NumPy scalars)
//    rules: CPython 3.11's float fast path adds C doubles in order (3.12 sums
//    floats with compensation: refused there). An empty sequence gives start.
//  - min/max keep the first item and take a later one only when it compares
//    strictly less (greater): NaN never wins a comparison, so max(nan, 1.0) is
//    nan and max(1.0, nan) is 1.0; of equal values the first stays.
//    When both candidates are of one type (Python floats, Python ints, NumPy
//    scalars of one dtype) the choice is a WHERE on the comparison. When they
//    are not (`min(1.0, ratio)` with ratio a NumPy float64), the result's type
//    depends on the data: the kept operand is assumed under an ASSERT of the
//    comparison; an assert failure runs the iteration in CPython and marks the
//    assumption flipped, the next compile assumes the other operand, and a
//    second flip refuses the call.
#include "engine/converter/converter.hpp"

namespace specula::engine::converter
{
    namespace
    {
        bool is_comprehension(py::handle node)
        {
            const std::string kind = node_type(node);
            return kind == "GeneratorExp" || kind == "ListComp";
        }
    } // namespace

    bool converter::call_builtin_fold(const std::string& name, py::handle node, cval& out)
    {
        if (name != "sum" && name != "min" && name != "max")
        {
            return false;
        }
        py::list arg_nodes = node.attr("args");
        const bool one_generator = py::len(arg_nodes) == 1 && is_comprehension(arg_nodes[0]);
        if (!one_generator)
        {
            call_args args = visit_args(node);
            bool constant = args.keywords.empty();
            for (const cval& c : args.positional)
            {
                constant = constant && c.k == cval::kind::constant;
            }
            const bool many = name != "sum" && args.positional.size() > 1;
            if (constant ||
                (!many && (args.positional.empty() || args.positional[0].k != cval::kind::tuple)))
            {
                out = call_builtin(name, args, node); // Python on known values, or refused
                return true;
            }
            if (name == "sum")
            {
                if (args.positional.size() > 2 || args.keywords.size() > 1 ||
                    (args.keywords.size() == 1 && args.keywords.count("start") == 0))
                {
                    fail("sum with these arguments", node);
                }
                cval start;
                start.obj = py::int_(0);
                if (args.positional.size() == 2)
                    start = args.positional[1];
                else if (!args.keywords.empty())
                    start = args.keywords.at("start");
                out = python_sum(args.positional[0].items, start, node);
                return true;
            }
            if (!args.keywords.empty())
            {
                fail(name + " with keyword arguments", node);
            }
            out = python_extreme(name == "max", many ? args.positional : args.positional[0].items,
                                 node);
            return true;
        }
        if (py::len(node.attr("keywords")) != 0)
        {
            fail(name + " of a generator with keyword arguments", node);
        }
        cval items = visit_comprehension(arg_nodes[0], true);
        if (name == "sum")
        {
            cval zero;
            zero.obj = py::int_(0);
            out = python_sum(items.items, zero, node);
        }
        else
        {
            out = python_extreme(name == "max", items.items, node);
        }
        return true;
    }

    cval converter::python_sum(const std::vector<cval>& items, const cval& start, py::handle node)
    {
#if PY_VERSION_HEX >= 0x030C0000
        for (const cval& item : items)
        {
            if (item.k != cval::kind::constant || !PyLong_CheckExact(item.obj.ptr()))
            {
                fail("sum of floats (compensated summation from Python 3.12)", node);
            }
        }
#endif
        cval total = start;
        for (const cval& item : items)
        {
            total = binary(ir::op::ADD, total, item, node);
        }
        return total;
    }

    cval converter::python_extreme(bool is_max, const std::vector<cval>& items, py::handle node)
    {
        const std::string name = is_max ? "max" : "min";
        if (items.empty())
        {
            fail(name + " of an empty sequence (Python raises)", node);
        }
        cval kept = items[0];
        for (size_t i = 1; i < items.size(); ++i)
        {
            kept = extreme_step(is_max, kept, items[i], i, node);
        }
        return kept;
    }

    namespace
    {
        // The Python type of a scalar value as min/max hand it out: "float",
        // "int", a NumPy dtype name, or "" when it is not a scalar.
        std::string scalar_kind(const cval& v, surface s, ir::dtype elem, int rank)
        {
            if (v.k == cval::kind::constant)
            {
                PyObject* o = v.obj.ptr();
                return PyFloat_CheckExact(o) ? "float" : PyLong_CheckExact(o) ? "int" : "";
            }
            if (v.k != cval::kind::array || rank != 0)
            {
                return "";
            }
            switch (s)
            {
            case surface::py_float:
                return "float";
            case surface::py_int:
                return "int";
            case surface::np_scalar:
                return "np." + std::string(ir::dtype_name(elem));
            default:
                return ""; // a 0-d array: min/max hand out that very object
            }
        }
    } // namespace

    cval converter::extreme_step(bool is_max, const cval& kept, const cval& item, size_t position,
                                 py::handle node)
    {
        const std::string name = is_max ? "max" : "min";
        auto kind_of = [&](const cval& v)
        {
            if (v.k != cval::kind::array)
                return scalar_kind(v, surface::ndarray, ir::dtype::float64, 0);
            const array_entry& e = m_arrays[static_cast<size_t>(v.arr)];
            const ir::value_type& t = type_of(e.value);
            return scalar_kind(v, e.surf, t.elem, t.dims.rank());
        };
        const std::string kept_kind = kind_of(kept);
        const std::string item_kind = kind_of(item);
        if (kept_kind.empty() || item_kind.empty())
        {
            fail(name + " of values that are not Python or NumPy scalars", node);
        }
        // Python asks `item < kept` (`item > kept` for max), with the item's
        // own comparison: NumPy's for NumPy scalars, IEEE's for floats.
        cval wins = binary(is_max ? ir::op::GT : ir::op::LT, item, kept, node);
        if (wins.k == cval::kind::constant)
        {
            return PyObject_IsTrue(wins.obj.ptr()) == 1 ? item : kept;
        }
        ir::value_id cond = truth_value(wins, node);
        if (kept_kind == item_kind)
        {
            if (kept_kind == "int")
            {
                fail(name + " of Python ints known only at run time", node);
            }
            const bool py_float = kept_kind == "float";
            ir::dtype elem =
                py_float ? ir::dtype::float64
                         : type_of(value_of(item.k == cval::kind::array ? item : kept, node)).elem;
            ir::value_id a = py_float                      ? as_float64(item, node)
                             : item.k == cval::kind::array ? value_of(item, node)
                                                           : scalar_constant(item, elem, node);
            ir::value_id b = py_float                      ? as_float64(kept, node)
                             : kept.k == cval::kind::array ? value_of(kept, node)
                                                           : scalar_constant(kept, elem, node);
            return new_array(m_builder->where(cond, a, b),
                             py_float ? surface::py_float : surface::np_scalar);
        }
        if (m_tree)
        {
            fail(name + " of a " + kept_kind + " and a " + item_kind + " in a recursion", node);
        }
        // The result's type depends on the data: assume one operand.
        const std::string key = where(node) + " " + name + " operand " + std::to_string(position);
        auto flipped = [&](const std::string& side)
        {
            const branch_observation* seen = m_profile.branch(key + side);
            return seen != nullptr && seen->flipped;
        };
        bool take_item = false;
        if (flipped(" kept"))
        {
            if (flipped(" taken"))
            {
                fail(name + " of a " + kept_kind + " and a " + item_kind +
                         " whose result changed type",
                     node);
            }
            take_item = true;
        }
        if (!take_item)
        {
            cond = m_builder->unary(ir::op::LOGICAL_NOT, cond);
        }
        const int exit =
            add_assert(cond, name + " at " + where(node) + " chose the other operand (" +
                                 kept_kind + " / " + item_kind + ")");
        m_spec->exit_branches[static_cast<std::uint32_t>(exit)] =
            key + (take_item ? " taken" : " kept");
        return take_item ? item : kept;
    }
} // namespace specula::engine::converter
