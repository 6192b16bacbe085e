// Expressions: names, literals, operators (NumPy semantics on arrays, Python
// semantics on Python scalars, folded exactly when both sides are known),
// comparisons and attributes. Subscripts: subscripts.cpp; calls: calls.cpp.
#include "engine/converter/converter.hpp"

#include "engine/backend_choice.hpp"
#include "engine/numpy_api.hpp"

namespace specula::engine::converter
{
    namespace
    {
        struct op_name
        {
            const char* ast;
            ir::op code;
            const char* python; // the operator module's function
        };

        const op_name binary_ops[] = {
            {"Add", ir::op::ADD, "add"},
            {"Sub", ir::op::SUB, "sub"},
            {"Mult", ir::op::MUL, "mul"},
            {"Div", ir::op::DIV, "truediv"},
            {"FloorDiv", ir::op::FLOORDIV, "floordiv"},
            {"Mod", ir::op::MOD, "mod"},
            {"Pow", ir::op::POW, "pow"},
            {"MatMult", ir::op::MATMUL, "matmul"},
            {"BitAnd", ir::op::BITWISE_AND, "and_"},
            {"BitOr", ir::op::BITWISE_OR, "or_"},
            {"BitXor", ir::op::BITWISE_XOR, "xor"},
            {"Eq", ir::op::EQ, "eq"},
            {"NotEq", ir::op::NE, "ne"},
            {"Lt", ir::op::LT, "lt"},
            {"LtE", ir::op::LE, "le"},
            {"Gt", ir::op::GT, "gt"},
            {"GtE", ir::op::GE, "ge"},
        };

        const op_name* find_op(const std::string& ast)
        {
            for (const op_name& o : binary_ops)
            {
                if (ast == o.ast)
                {
                    return &o;
                }
            }
            return nullptr;
        }

        const char* python_name(ir::op code)
        {
            for (const op_name& o : binary_ops)
            {
                if (o.code == code)
                {
                    return o.python;
                }
            }
            return "";
        }

        bool is_comparison(ir::op c)
        {
            return c == ir::op::EQ || c == ir::op::NE || c == ir::op::LT || c == ir::op::LE ||
                   c == ir::op::GT || c == ir::op::GE;
        }

        bool foldable(PyObject* o)
        {
            return PyLong_CheckExact(o) || PyFloat_CheckExact(o) || PyBool_Check(o) ||
                   PyUnicode_CheckExact(o) || o == Py_None || PyTuple_CheckExact(o);
        }
    } // namespace

    bool converter::is_python_scalar(const cval& v) const
    {
        if (v.k == cval::kind::constant)
        {
            return true;
        }
        if (v.k != cval::kind::array)
        {
            return false;
        }
        surface s = m_arrays[static_cast<size_t>(v.arr)].surf;
        return s == surface::py_float || s == surface::py_bool || s == surface::py_int;
    }

    cval converter::visit_expr(py::handle node)
    {
        std::string kind = node_type(node);
        if (kind == "Name")
            return visit_name(node);
        if (kind == "Constant")
        {
            cval c;
            c.obj = node.attr("value");
            if (!foldable(c.obj.ptr()) && c.obj.ptr() != Py_Ellipsis)
            {
                fail("constant of type " + std::string(Py_TYPE(c.obj.ptr())->tp_name), node);
            }
            return c;
        }
        if (kind == "BinOp")
            return visit_binop(node);
        if (kind == "UnaryOp")
            return visit_unaryop(node);
        if (kind == "Compare")
            return visit_compare(node);
        if (kind == "BoolOp")
            return visit_boolop(node);
        if (kind == "Subscript")
            return visit_subscript(node);
        if (kind == "Call")
            return visit_call(node);
        if (kind == "Tuple" || kind == "List")
        {
            cval t;
            t.k = cval::kind::tuple;
            for (py::handle e : node.attr("elts"))
            {
                if (node_type(e) == "Starred")
                {
                    fail("starred expression", e);
                }
                t.items.push_back(visit_expr(e));
            }
            if (kind == "List")
            {
                return new_code_list(t); // code_lists.cpp
            }
            return t;
        }
        if (kind == "ListComp" || kind == "GeneratorExp")
        {
            return visit_comprehension(node, false);
        }
        if (kind == "Dict")
            return visit_dict(node);
        if (kind == "IfExp")
        {
            cval test = visit_expr(node.attr("test"));
            if (test.k != cval::kind::constant)
            {
                fail("conditional expression on array data", node);
            }
            return visit_expr(PyObject_IsTrue(test.obj.ptr()) == 1 ? node.attr("body")
                                                                   : node.attr("orelse"));
        }
        if (kind == "Attribute")
        {
            cval obj = visit_expr(node.attr("value"));
            std::string name = py::str(node.attr("attr"));
            if (obj.k == cval::kind::array)
            {
                call_args none;
                none.is_call = false;
                return call_method(obj, name, none, node);
            }
            return read_attribute(obj, name, node);
        }
        fail(kind + " expression", node);
    }

    cval converter::visit_name(py::handle node)
    {
        std::string name = py::str(node.attr("id"));
        auto found = m_locals.find(name);
        if (found != m_locals.end())
        {
            return found->second;
        }
        return read_name(name, node);
    }

    cval converter::fold(py::handle node, const cval& a, const cval& b, const char* op)
    {
        if (!foldable(a.obj.ptr()) || !foldable(b.obj.ptr()))
        {
            fail(std::string("operator ") + op + " on these objects", node);
        }
        cval out;
        try
        {
            out.obj = py::module_::import("operator").attr(op)(a.obj, b.obj);
        }
        catch (py::error_already_set& e)
        {
            if (!e.matches(PyExc_Exception))
            {
                throw; // the user's interrupt, not a conversion failure
            }
            fail(std::string("operator ") + op + " raising on this call", node);
        }
        return out;
    }

    cval converter::visit_binop(py::handle node)
    {
        std::string op = node_type(node.attr("op"));
        const op_name* o = find_op(op);
        if (o == nullptr)
        {
            fail("operator " + op, node);
        }
        cval a = visit_expr(node.attr("left"));
        cval b = visit_expr(node.attr("right"));
        if (o->code == ir::op::POW)
        {
            return power_operator(a, b, false, node);
        }
        return binary(o->code, a, b, node);
    }

    ir::value_id converter::as_float64(const cval& v, py::handle node)
    {
        if (v.k != cval::kind::array)
        {
            return scalar_constant(v, ir::dtype::float64, node);
        }
        const array_entry& e = m_arrays[static_cast<size_t>(v.arr)];
        if (e.surf != surface::py_int)
        {
            return e.value;
        }
        // Python converts an int to the nearest float; exact below 2**53.
        constexpr std::int64_t exact = std::int64_t{1} << 53;
        if (e.int_lo < -exact || e.int_hi > exact)
        {
            fail("a Python int that may exceed 2**53 mixed with floats", node);
        }
        ir::value_id in = e.value;
        return m_builder->cast(in, ir::dtype::float64);
    }

    cval converter::python_int_binary(ir::op code, const cval& a, const cval& b, py::handle node)
    {
        // Both operands are Python ints (relaxed inputs or literals). Exact
        // Python semantics: only operations whose int64 result is provably
        // the exact one, from the operands' ranges.
        std::int64_t lo[2], hi[2];
        ir::value_id v[2];
        const cval* xs[2] = {&a, &b};
        for (int i = 0; i < 2; ++i)
        {
            const cval& x = *xs[i];
            if (x.k == cval::kind::constant)
            {
                PyObject* o = x.obj.ptr();
                int overflow = 0;
                long long c = PyLong_CheckExact(o) ? PyLong_AsLongLongAndOverflow(o, &overflow) : 0;
                if (!PyLong_CheckExact(o) || overflow != 0)
                {
                    fail("Python int arithmetic with this operand", node);
                }
                lo[i] = hi[i] = c;
                v[i] = scalar_constant(x, ir::dtype::int64, node);
                continue;
            }
            const array_entry& e = m_arrays[static_cast<size_t>(x.arr)];
            if (e.surf != surface::py_int)
            {
                fail("Python int arithmetic with a bool", node);
            }
            lo[i] = e.int_lo;
            hi[i] = e.int_hi;
            v[i] = e.value;
        }
        if (is_comparison(code))
        {
            return new_array(m_builder->binary(code, v[0], v[1]), surface::py_bool);
        }
        __int128 r_lo = 0, r_hi = 0;
        switch (code)
        {
        case ir::op::ADD:
            r_lo = static_cast<__int128>(lo[0]) + lo[1];
            r_hi = static_cast<__int128>(hi[0]) + hi[1];
            break;
        case ir::op::SUB:
            r_lo = static_cast<__int128>(lo[0]) - hi[1];
            r_hi = static_cast<__int128>(hi[0]) - lo[1];
            break;
        case ir::op::MUL:
        {
            __int128 p[4] = {
                static_cast<__int128>(lo[0]) * lo[1], static_cast<__int128>(lo[0]) * hi[1],
                static_cast<__int128>(hi[0]) * lo[1], static_cast<__int128>(hi[0]) * hi[1]};
            r_lo = r_hi = p[0];
            for (__int128 q : p)
            {
                r_lo = q < r_lo ? q : r_lo;
                r_hi = q > r_hi ? q : r_hi;
            }
            break;
        }
        case ir::op::MOD:
        case ir::op::FLOORDIV:
            return python_int_division(code, v, lo, hi, node);
        default:
            fail(std::string("Python int operator ") + python_name(code) + " on a relaxed int",
                 node);
        }
        constexpr __int128 limit = static_cast<__int128>(1) << 62;
        if (r_lo < -limit || r_hi > limit)
        {
            fail("Python int arithmetic that may outgrow 64 bits", node);
        }
        cval out = new_array(m_builder->binary(code, v[0], v[1]), surface::py_int);
        m_arrays[static_cast<size_t>(out.arr)].int_lo = static_cast<std::int64_t>(r_lo);
        m_arrays[static_cast<size_t>(out.arr)].int_hi = static_cast<std::int64_t>(r_hi);
        return out;
    }

    cval converter::binary(ir::op code, const cval& a, const cval& b, py::handle node)
    {
        if (a.k == cval::kind::constant && b.k == cval::kind::constant)
        {
            return fold(node, a, b, python_name(code));
        }
        for (const cval* x : {&a, &b})
        {
            if (x->k != cval::kind::constant && x->k != cval::kind::array)
            {
                fail(std::string("operator ") + python_name(code) + " on a non-numeric object",
                     node);
            }
            if (x->k == cval::kind::constant && !PyLong_CheckExact(x->obj.ptr()) &&
                !PyFloat_CheckExact(x->obj.ptr()) && !PyBool_Check(x->obj.ptr()))
            {
                fail(std::string("operator ") + python_name(code) + " with a " +
                         Py_TYPE(x->obj.ptr())->tp_name + " operand",
                     node);
            }
        }
        bool python_semantics = is_python_scalar(a) && is_python_scalar(b);
        auto surf_of = [&](const cval& x) {
            return x.k == cval::kind::array ? m_arrays[static_cast<size_t>(x.arr)].surf
                                            : surface::ndarray;
        };
        bool has_int = surf_of(a) == surface::py_int || surf_of(b) == surface::py_int;
        if (has_int && !python_semantics)
        {
            cval relaxed;
            if (relaxed_int_with_array(code, a, b, node, relaxed)) // relaxed_ints.cpp
            {
                return relaxed;
            }
            fail("a relaxed Python int in array arithmetic (NumPy's dtype would depend on its "
                 "value)",
                 node);
        }
        auto is_float_operand = [&](const cval& x)
        {
            return surf_of(x) == surface::py_float ||
                   (x.k == cval::kind::constant && PyFloat_CheckExact(x.obj.ptr()));
        };
        if (has_int && !is_float_operand(a) && !is_float_operand(b))
        {
            return with_int_expr(python_int_binary(code, a, b, node), code, a, b);
        }
        if (python_semantics)
        {
            // Python float arithmetic is IEEE double arithmetic, as float64's.
            bool ok_op = code == ir::op::ADD || code == ir::op::SUB || code == ir::op::MUL ||
                         code == ir::op::DIV || is_comparison(code);
            if (!ok_op)
            {
                fail(std::string("Python float operator ") + python_name(code), node);
            }
            for (const cval* x : {&a, &b})
            {
                if (x->k == cval::kind::array &&
                    m_arrays[static_cast<size_t>(x->arr)].surf == surface::py_bool)
                {
                    fail("Python bool arithmetic on array data", node);
                }
            }
            ir::value_id va = as_float64(a, node);
            ir::value_id vb = as_float64(b, node);
            if (code == ir::op::DIV)
            {
                // Python raises ZeroDivisionError where NumPy gives inf: exit.
                ir::value_id zero =
                    m_builder->constant(ir::scalar::of_float(ir::dtype::float64, 0.0));
                add_assert(m_builder->binary(ir::op::NE, vb, zero),
                           "float division by zero at " + where(node));
            }
            return new_array(m_builder->binary(code, va, vb),
                             is_comparison(code) ? surface::py_bool : surface::py_float);
        }
        // NumPy semantics: promotion decides the computation dtype, Python
        // scalars become constants of that dtype.
        std::vector<ir::promotion_operand> ops;
        std::vector<std::pair<size_t, ir::promotion_operand>> unknown;
        for (const cval* x : {&a, &b})
        {
            if (x->k == cval::kind::constant)
            {
                PyObject* o = x->obj.ptr();
                if (PyBool_Check(o))
                    ops.push_back(ir::promotion_operand::py_bool(o == Py_True));
                else if (PyLong_CheckExact(o))
                {
                    int overflow = 0;
                    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
                    if (overflow)
                        fail("Python int beyond 64 bits in array arithmetic", node);
                    ops.push_back(ir::promotion_operand::py_int(v));
                }
                else
                    ops.push_back(ir::promotion_operand::py_float(PyFloat_AS_DOUBLE(o)));
                continue;
            }
            const array_entry& e = m_arrays[static_cast<size_t>(x->arr)];
            const ir::value_type& t = type_of(e.value);
            if (t.dims.rank() > 0)
            {
                ops.push_back(ir::promotion_operand::array_of(t.elem));
                continue;
            }
            ir::promotion_operand p = e.surf == surface::py_float
                                          ? ir::promotion_operand::py_float(0.0)
                                          : ir::promotion_operand::array_of(t.elem);
            if (e.surf == surface::py_bool)
            {
                p = ir::promotion_operand::py_bool(false);
            }
            else
            {
                unknown.push_back({ops.size(), p});
            }
            ops.push_back(p);
        }
        std::optional<ir::dtype> rt;
        for (const auto& variant : promotion_variants(ops, unknown))
        {
            auto r = ir::result_type(variant);
            if (!r || (rt && *rt != *r))
            {
                fail("value-dependent or unsupported dtype promotion", node);
            }
            rt = r;
        }
        refuse_checked_scalar_math(code, a, b, *rt, node);
        ir::value_id va =
            a.k == cval::kind::array ? value_of(a, node) : scalar_constant(a, *rt, node);
        ir::value_id vb =
            b.k == cval::kind::array ? value_of(b, node) : scalar_constant(b, *rt, node);
        if (code == ir::op::MATMUL)
        {
            if (type_of(va).dims.rank() == 0 || type_of(vb).dims.rank() == 0)
            {
                fail("matmul with a scalar operand", node);
            }
            ir::value_id out = matrix_product(false, va, vb, node);
            return new_array(out,
                             type_of(out).dims.rank() == 0 ? surface::np_scalar : surface::ndarray);
        }
        ir::value_id out = elementwise_binary(code, va, vb);
        if (out == ir::no_id)
        {
            fail(std::string("operator ") + python_name(code) + " on these operands (" +
                     m_builder->state().message() + ")",
                 node);
        }
        const ir::shape out_dims = type_of(out).dims;
        assert_broadcast(va, out_dims, node);
        assert_broadcast(vb, out_dims, node);
        return new_array(out,
                         type_of(out).dims.rank() == 0 ? surface::np_scalar : surface::ndarray);
    }

    cval converter::visit_unaryop(py::handle node)
    {
        std::string op = node_type(node.attr("op"));
        cval x = visit_expr(node.attr("operand"));
        if (x.k == cval::kind::constant)
        {
            const char* fn = op == "USub"   ? "neg"
                             : op == "UAdd" ? "pos"
                             : op == "Not"  ? "not_"
                                            : "invert";
            if (!foldable(x.obj.ptr()))
            {
                fail("unary " + op + " on this object", node);
            }
            cval out;
            try
            {
                out.obj = py::module_::import("operator").attr(fn)(x.obj);
            }
            catch (py::error_already_set& e)
            {
                if (!e.matches(PyExc_Exception))
                {
                    throw; // the user's interrupt, not a conversion failure
                }
                fail("unary " + op + " raising on this call", node);
            }
            return out;
        }
        if (x.k != cval::kind::array)
        {
            fail("unary " + op + " on an object", node);
        }
        const array_entry& e = m_arrays[static_cast<size_t>(x.arr)];
        ir::value_id v = e.value;
        if (op == "USub" && e.surf == surface::py_int)
        {
            std::int64_t lo = -e.int_hi, hi = -e.int_lo; // ranges are far inside int64
            cval out = new_array(m_builder->unary(ir::op::NEG, v), surface::py_int);
            m_arrays[static_cast<size_t>(out.arr)].int_lo = lo;
            m_arrays[static_cast<size_t>(out.arr)].int_hi = hi;
            return out;
        }
        if (e.surf == surface::py_int && op != "Not")
        {
            fail("unary " + op + " on a relaxed Python int", node);
        }
        if (op == "USub")
        {
            if (type_of(v).elem == ir::dtype::bool_)
            {
                fail("negation of a bool array", node);
            }
            return new_array(m_builder->unary(ir::op::NEG, v),
                             e.surf == surface::py_float   ? surface::py_float
                             : type_of(v).dims.rank() == 0 ? surface::np_scalar
                                                           : surface::ndarray);
        }
        if (op == "Invert" && type_of(v).elem == ir::dtype::bool_ && e.surf != surface::py_bool)
        {
            return new_array(m_builder->unary(ir::op::LOGICAL_NOT, v),
                             type_of(v).dims.rank() == 0 ? surface::np_scalar : surface::ndarray);
        }
        if (op == "Not" && type_of(v).dims.rank() == 0 &&
            (type_of(v).elem == ir::dtype::bool_ || e.surf == surface::py_int))
        {
            return counter_not(x, node); // counter_logic.cpp
        }
        fail("unary " + op + " on array data", node);
    }

    cval converter::visit_compare(py::handle node)
    {
        cval tested;
        if (m_tree && tree_none_test(node, tested))
        {
            return tested;
        }
        py::list ops = node.attr("ops");
        py::list rights = node.attr("comparators");
        cval left = visit_expr(node.attr("left"));
        if (py::len(ops) != 1)
        {
            fail("chained comparison", node);
        }
        std::string op = node_type(ops[0]);
        cval right = visit_expr(rights[0]);
        if (left.k == cval::kind::tree || right.k == cval::kind::tree)
        {
            fail("comparison of a tree node (only node.attr is None is converted)", node);
        }
        if (op == "Is" || op == "IsNot")
        {
            bool known = left.k != cval::kind::tuple && right.k != cval::kind::tuple;
            if (!known)
            {
                fail("identity comparison of tuples", node);
            }
            // Arrays made by the graph are never None or an existing object.
            PyObject* l = left.k == cval::kind::array ? nullptr : left.obj.ptr();
            PyObject* r = right.k == cval::kind::array ? nullptr : right.obj.ptr();
            if (l == nullptr && r == nullptr)
            {
                fail("identity comparison of arrays", node);
            }
            cval out;
            out.obj = py::bool_((l == r) == (op == "Is"));
            return out;
        }
        const op_name* o = find_op(op);
        if (o == nullptr)
        {
            fail("comparison " + op, node);
        }
        return binary(o->code, left, right, node);
    }

    cval converter::visit_boolop(py::handle node)
    {
        bool is_and = node_type(node.attr("op")) == "And";
        cval current;
        py::list values = node.attr("values");
        for (size_t i = 0; i < py::len(values); ++i)
        {
            current = visit_expr(values[i]);
            if (current.k != cval::kind::constant)
            {
                return counter_boolop(is_and, current, values, i + 1, node);
            }
            bool truth = PyObject_IsTrue(current.obj.ptr()) == 1;
            if (truth != is_and)
            {
                return current; // short-circuit, as Python
            }
        }
        return current;
    }
} // namespace specula::engine::converter
