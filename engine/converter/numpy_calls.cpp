// The whitelist: NumPy functions, ndarray methods/attributes and builtins the
// converter maps to IR (engine/README.md has the table).
#include "engine/converter/converter.hpp"

#include "engine/backend_choice.hpp"
#include "engine/numpy_api.hpp"

namespace specula::engine
{
    const char* const numpy_functions[] = {
        "exp",       "log",     "log1p",     "expm1",    "tanh",        "sqrt",        "abs",
        "absolute",  "sign",    "negative",  "sin",      "cos",         "square",      "floor",
        "ceil",      "add",     "subtract",  "multiply", "divide",      "true_divide", "maximum",
        "minimum",   "power",   "where",     "clip",     "dot",         "matmul",      "outer",
        "sum",       "mean",    "var",       "std",      "max",         "min",         "amax",
        "amin",      "argmax",  "argmin",    "prod",     "zeros",       "ones",        "zeros_like",
        "ones_like", "full",    "copy",      "eye",      "concatenate", "stack",       "hstack",
        "vstack",    "reshape", "transpose", "arange",   "empty_like",  "any",         "all",
        "float32",   "float64", "copyto",    "isnan",    "isinf",       "isfinite",    nullptr};
    const char* const builtin_functions[] = {"len",  "range", "zip",        "enumerate", "reversed",
                                             "abs",  "min",   "max",        "float",     "int",
                                             "bool", "print", "isinstance", "sum",       nullptr};
    // math functions: evaluated by Python on specialised values; on values known
    // only at run time just the correctly rounded ones (scalar_math.cpp).
    const char* const math_functions[] = {"exp",   "log",   "log1p", "expm1", "log2",  "log10",
                                          "sqrt",  "tanh",  "sin",   "cos",   "tan",   "atan",
                                          "fabs",  "floor", "ceil",  "pow",   "hypot", "isfinite",
                                          "isnan", "isinf", nullptr};

    void whitelist::load()
    {
        m_numpy = py::module_::import("numpy");
        m_ndarray = m_numpy.attr("ndarray");
        py::module_ builtins = py::module_::import("builtins");
        auto add = [this](const py::object& module, const char* name, const std::string& prefix)
        {
            py::object fn = module.attr(name);
            m_keep[prefix + name] = fn;
            m_names.emplace(fn.ptr(), prefix + name);
        };
        for (const char* const* n = numpy_functions; *n != nullptr; ++n)
        {
            add(m_numpy, *n, "np.");
        }
        for (const char* const* n = builtin_functions; *n != nullptr; ++n)
        {
            add(builtins, *n, "builtins.");
        }
        py::module_ math = py::module_::import("math");
        for (const char* const* n = math_functions; *n != nullptr; ++n)
        {
            add(math, *n, "math.");
        }
    }

    const std::string& whitelist::name_of(PyObject* object) const
    {
        static const std::string unknown;
        auto it = m_names.find(object);
        return it == m_names.end() ? unknown : it->second;
    }
} // namespace specula::engine

namespace specula::engine::converter
{
    namespace
    {
        struct unary_entry
        {
            const char* name;
            ir::op code;
        };
        const unary_entry unary_ufuncs[] = {
            {"exp", ir::op::EXP},       {"log", ir::op::LOG},      {"log1p", ir::op::LOG1P},
            {"expm1", ir::op::EXPM1},   {"tanh", ir::op::TANH},    {"sqrt", ir::op::SQRT},
            {"abs", ir::op::ABS},       {"absolute", ir::op::ABS}, {"sign", ir::op::SIGN},
            {"negative", ir::op::NEG},  {"sin", ir::op::SIN},      {"cos", ir::op::COS},
            {"square", ir::op::SQUARE}, {"floor", ir::op::FLOOR},  {"ceil", ir::op::CEIL},
        };
        const unary_entry binary_ufuncs[] = {
            {"add", ir::op::ADD},         {"subtract", ir::op::SUB},
            {"multiply", ir::op::MUL},    {"divide", ir::op::DIV},
            {"true_divide", ir::op::DIV}, {"maximum", ir::op::MAXIMUM},
            {"minimum", ir::op::MINIMUM}, {"power", ir::op::POW},
        };
        const unary_entry reductions[] = {
            {"sum", ir::op::SUM},       {"mean", ir::op::MEAN}, {"var", ir::op::VAR},
            {"std", ir::op::STD},       {"max", ir::op::MAX},   {"min", ir::op::MIN},
            {"amax", ir::op::MAX},      {"amin", ir::op::MIN},  {"argmax", ir::op::ARGMAX},
            {"argmin", ir::op::ARGMIN}, {"prod", ir::op::PROD}, {"any", ir::op::ANY},
            {"all", ir::op::ALL},
        };

        template <size_t N>
        std::optional<ir::op> lookup(const unary_entry (&table)[N], const std::string& name)
        {
            for (const auto& e : table)
            {
                if (name == e.name)
                    return e.code;
            }
            return std::nullopt;
        }

        // A ufunc's or reduction's result: a NumPy scalar when 0-d.
        surface surface_of_rank(int rank)
        {
            return rank == 0 ? surface::np_scalar : surface::ndarray;
        }

        // What a method that keeps or reshapes the data of `e` hands out: an
        // ndarray (a 0-d one for a 0-d array: `b.copy()`, `b.T`), except that a
        // NumPy scalar's method gives a NumPy scalar again when the result is
        // 0-d (`np.float64(x).astype(np.float32)`, `.copy()`, `.T`, `.reshape(())`).
        surface method_surface(const array_entry& e, int rank)
        {
            return e.surf == surface::np_scalar && rank == 0 ? surface::np_scalar
                                                             : surface::ndarray;
        }
    } // namespace
    namespace
    {
        bool is_none(const cval& c)
        {
            return c.k == cval::kind::constant && c.obj.is_none();
        }
    } // namespace

    cval converter::reduction(ir::op code, const cval& x, const call_args& args, size_t first_kw,
                              py::handle node)
    {
        ir::value_id v = value_of(x, node);
        std::optional<cval> axis;
        bool keepdims = false;
        std::int64_t ddof = 0;
        if (args.positional.size() > first_kw)
            axis = args.positional[first_kw];
        if (args.positional.size() > first_kw + 1)
            fail("reduction with more positional arguments", node);
        for (const auto& [k, c] : args.keywords)
        {
            if (c.k != cval::kind::constant && k != "axis")
                fail("reduction argument " + k + " not specialised", node);
            if (k == "axis")
                axis = c;
            else if (k == "keepdims")
                keepdims = PyObject_IsTrue(c.obj.ptr()) == 1;
            else if (k == "ddof" && (code == ir::op::VAR || code == ir::op::STD) &&
                     PyLong_CheckExact(c.obj.ptr()))
                ddof = c.obj.cast<std::int64_t>();
            else
                fail("reduction argument " + k, node);
        }
        check_reduction_order(code, v, node);
        ir::value_id out;
        if (!axis || (axis->k == cval::kind::constant && axis->obj.is_none()))
        {
            out = m_builder->reduce_all(code, v, keepdims, ddof);
        }
        else
        {
            std::vector<std::int64_t> axes = shape_arg(*axis, node);
            std::vector<int> ax(axes.begin(), axes.end());
            if ((code == ir::op::ARGMAX || code == ir::op::ARGMIN) && keepdims)
                fail("argmax/argmin with keepdims", node);
            out = m_builder->reduce(code, v, ax, keepdims, ddof);
        }
        if (out == ir::no_id)
            fail("reduction on these operands (" + m_builder->state().message() + ")", node);
        if (code == ir::op::MEAN || code == ir::op::VAR || code == ir::op::STD)
        {
            // NumPy warns from Python ("Degrees of freedom <= 0", "Mean of empty
            // slice") when count - ddof <= 0. A static count is checked here; a
            // symbolic dim is never 1, and 0 elements give 0/0, whose invalid
            // flag sends the run back to CPython (runner.cpp).
            const ir::value_type& in_t = type_of(v);
            std::int64_t count = 1;
            bool symbolic = false;
            int rank = in_t.dims.rank();
            std::vector<bool> reduced(static_cast<size_t>(rank), !axis || is_none(*axis));
            if (axis && !is_none(*axis))
                for (std::int64_t a : shape_arg(*axis, node))
                    reduced[static_cast<size_t>(a < 0 ? a + rank : a)] = true;
            for (int i = 0; i < rank; ++i)
            {
                if (!reduced[static_cast<size_t>(i)])
                    continue;
                if (in_t.dims[i].is_static())
                    count *= in_t.dims[i].size();
                else
                    symbolic = true;
            }
            if ((!symbolic && count - ddof <= 0) || (symbolic && ddof > 1))
                fail("mean/var/std with no degrees of freedom (NumPy warns)", node);
        }
        return new_array(out, surface_of_rank(type_of(out).dims.rank()));
    }

    cval converter::call_numpy(const std::string& name, const call_args& args, py::handle node)
    {
        const auto& p = args.positional;
        auto arg = [&](size_t i) -> const cval&
        {
            if (i >= p.size())
                fail("np." + name + " with too few arguments", node);
            return p[i];
        };
        auto as_array = [&](const cval& c) -> cval
        {
            if (c.k == cval::kind::array)
                return c;
            if (c.k == cval::kind::constant)
            {
                auto t = ir::result_type(
                    {PyFloat_CheckExact(c.obj.ptr()) ? ir::promotion_operand::py_float(0.0)
                     : PyBool_Check(c.obj.ptr())     ? ir::promotion_operand::py_bool(false)
                                                     : ir::promotion_operand::py_int(0)});
                return const_array(node, c, t.value_or(ir::dtype::float64));
            }
            fail("np." + name + " on a non-array argument", node);
        };
        for (const auto& [k, c] : args.keywords)
        {
            bool known =
                k == "out" || k == "axis" || k == "keepdims" || k == "dtype" || k == "ddof";
            if (!known)
                fail("np." + name + " keyword " + k, node);
        }
        if (is_scalar_type_call(name))
        {
            return call_scalar_type(name, args, node);
        }
        if (is_float_class_call(name))
        {
            return call_float_class(name, args, node); // float_classes.cpp
        }
        if (name == "copyto")
        {
            return call_copyto(args, node);
        }
        if (name == "arange" || name == "empty_like")
        {
            return name == "arange" ? call_arange(args, node) : call_empty_like(args, node);
        }
        if (auto code = lookup(unary_ufuncs, name))
        {
            cval x = as_array(arg(0));
            ir::value_id out = m_builder->unary(*code, value_of(x, node));
            if (out == ir::no_id)
                fail("np." + name + " on this dtype", node);
            return with_out(new_array(out, surface_of_rank(type_of(out).dims.rank())), args, node);
        }
        if (auto code = lookup(binary_ufuncs, name))
        {
            cval a = arg(0), b = arg(1);
            if (is_python_scalar(a) && is_python_scalar(b))
            {
                a = as_array(a.k == cval::kind::constant ? a : a);
            }
            if (is_python_scalar(a) && is_python_scalar(b))
                fail("np." + name + " on two Python scalars", node);
            return with_out(binary(*code, a, b, node), args, node);
        }
        if (auto code = lookup(reductions, name))
        {
            return reduction(*code, as_array(arg(0)), args, 1, node);
        }
        if (name == "where" || name == "clip")
        {
            std::vector<cval> xs = {arg(0), arg(1), arg(2)};
            std::vector<ir::promotion_operand> ops;
            size_t first = name == "where" ? 1 : 0;
            for (size_t i = first; i < 3; ++i)
            {
                const cval& c = xs[i];
                if (c.k == cval::kind::constant)
                {
                    PyObject* o = c.obj.ptr();
                    ops.push_back(PyFloat_CheckExact(o)
                                      ? ir::promotion_operand::py_float(PyFloat_AS_DOUBLE(o))
                                  : PyBool_Check(o)
                                      ? ir::promotion_operand::py_bool(o == Py_True)
                                      : ir::promotion_operand::py_int(PyLong_AsLongLong(o)));
                }
                else
                {
                    const ir::value_type& t = type_of(value_of(c, node));
                    if (t.dims.rank() == 0 &&
                        !(t.elem == ir::dtype::float64 && ir::is_float(t.elem)))
                        fail("np." + name + " with a 0-d operand of uncertain promotion", node);
                    ops.push_back(ir::promotion_operand::array_of(t.elem));
                }
            }
            auto rt = ir::result_type(ops);
            if (!rt)
                fail("np." + name + " promotion", node);
            std::vector<ir::value_id> vs;
            for (size_t i = 0; i < 3; ++i)
            {
                if (i < first)
                    vs.push_back(value_of(as_array(xs[i]), node));
                else
                    vs.push_back(xs[i].k == cval::kind::array ? value_of(xs[i], node)
                                                              : scalar_constant(xs[i], *rt, node));
            }
            ir::value_id out = name == "where" ? m_builder->where(vs[0], vs[1], vs[2])
                                               : m_builder->clip(vs[0], vs[1], vs[2]);
            if (out == ir::no_id)
                fail("np." + name + " on these operands", node);
            // np.where is no ufunc: it hands out an array, a 0-d one too.
            const surface surf =
                name == "where" ? surface::ndarray : surface_of_rank(type_of(out).dims.rank());
            return with_out(new_array(out, surf), args, node);
        }
        if (name == "dot" || name == "matmul" || name == "outer")
        {
            ir::value_id a = value_of(arg(0), node), b = value_of(arg(1), node);
            ir::value_id out = name == "outer" ? m_builder->outer(a, b)
                                               : matrix_product(name == "dot", a, b, node);
            if (out == ir::no_id)
                fail("np." + name + " on these operands", node);
            return with_out(new_array(out, surface_of_rank(type_of(out).dims.rank())), args, node);
        }
        if (name == "zeros" || name == "ones" || name == "full")
        {
            auto dims = shape_arg(arg(0), node);
            auto dt = args.keywords.count("dtype")
                          ? std::optional<ir::dtype>(dtype_arg(args.keywords.at("dtype"), node))
                          : std::nullopt;
            if (name == "full")
            {
                const cval& fill = arg(1);
                if (fill.k != cval::kind::constant && !dt)
                    return full_of_relaxed(dims, fill, node); // relaxed_ints.cpp
                if (fill.k != cval::kind::constant)
                    fail("np.full with a computed fill value", node);
                ir::dtype elem = dt ? *dt
                                    : (PyFloat_CheckExact(fill.obj.ptr()) ? ir::dtype::float64
                                       : PyBool_Check(fill.obj.ptr())     ? ir::dtype::bool_
                                                                          : ir::dtype::int64);
                ir::value_id c = scalar_constant(fill, elem, node);
                const auto& n = p_graph->get_node(p_graph->get(c).def);
                ir::scalar s = n.attr_as<ir::constant_attr>().element(0);
                return new_array(m_builder->full(ir::shape::of(dims), elem, s), surface::ndarray);
            }
            ir::dtype elem = dt.value_or(ir::dtype::float64);
            return new_array(name == "zeros" ? m_builder->zeros(ir::shape::of(dims), elem)
                                             : m_builder->ones(ir::shape::of(dims), elem),
                             surface::ndarray);
        }
        if (name == "zeros_like" || name == "ones_like")
        {
            const ir::value_type& t = type_of(value_of(arg(0), node));
            auto sizes = t.dims.static_sizes();
            if (!sizes)
                fail("np." + name + " of a symbolic shape", node);
            ir::dtype elem =
                args.keywords.count("dtype") ? dtype_arg(args.keywords.at("dtype"), node) : t.elem;
            // An array even for a 0-d array or a NumPy scalar (np.zeros_like(s)).
            return new_array(name == "zeros_like" ? m_builder->zeros(t.dims, elem)
                                                  : m_builder->ones(t.dims, elem),
                             surface::ndarray);
        }
        if (name == "copy")
        {
            cval out = call_method(arg(0), "copy", call_args{}, node);
            // np.copy makes an array even of a NumPy scalar (np.copy(s)).
            m_arrays[static_cast<size_t>(out.arr)].surf = surface::ndarray;
            return out;
        }
        if (name == "reshape" || name == "transpose")
        {
            call_args rest;
            rest.positional.assign(p.begin() + 1, p.end());
            rest.keywords = args.keywords;
            return call_method(arg(0), name, rest, node);
        }
        if (name == "concatenate" || name == "stack" || name == "hstack" || name == "vstack")
        {
            const cval& seq = arg(0);
            if (seq.k != cval::kind::tuple || seq.items.empty())
                fail("np." + name + " of this sequence", node);
            std::vector<ir::value_id> xs;
            for (const cval& c : seq.items)
                xs.push_back(value_of(c, node));
            int axis = 0;
            if (args.keywords.count("axis"))
                axis = static_cast<int>(shape_arg(args.keywords.at("axis"), node).at(0));
            if (p.size() > 1)
                axis = static_cast<int>(shape_arg(p[1], node).at(0));
            int rank = type_of(xs[0]).dims.rank();
            ir::value_id out;
            if (name == "stack")
                out = m_builder->stack(xs, axis);
            else if (name == "concatenate")
                out = m_builder->concatenate(xs, axis);
            else if (name == "hstack")
                out = m_builder->concatenate(xs, rank == 1 ? 0 : 1);
            else
            {
                if (rank != 2)
                    fail("np.vstack of non-2-d arrays", node);
                out = m_builder->concatenate(xs, 0);
            }
            if (out == ir::no_id)
                fail("np." + name + " on these operands", node);
            return new_array(out, surface::ndarray);
        }
        if (name == "eye")
        {
            std::int64_t n = shape_arg(arg(0), node).at(0);
            ir::dtype elem = args.keywords.count("dtype")
                                 ? dtype_arg(args.keywords.at("dtype"), node)
                                 : ir::dtype::float64;
            if (p.size() > 1)
                fail("np.eye with M or k", node);
            return new_array(m_builder->eye(n, n, 0, elem), surface::ndarray);
        }
        fail("np." + name + " with these arguments", node);
    }

    cval converter::call_method(const cval& self, const std::string& name, const call_args& args,
                                py::handle node)
    {
        ir::value_id x = value_of(self, node);
        const ir::value_type& t = type_of(x);
        const array_entry& e = m_arrays[static_cast<size_t>(self.arr)];
        if (e.surf == surface::py_float || e.surf == surface::py_bool || e.surf == surface::py_int)
        {
            fail("attribute ." + name + " of a Python scalar", node);
        }
        auto constant = [](py::object o)
        {
            cval c;
            c.obj = std::move(o);
            return c;
        };
        if (!args.is_call)
        {
            if (name == "T")
            {
                std::vector<int> perm;
                for (int i = t.dims.rank() - 1; i >= 0; --i)
                    perm.push_back(i);
                if (method_surface(e, t.dims.rank()) == surface::np_scalar)
                    return new_array(m_builder->transpose(x, perm), surface::np_scalar);
                cval view = new_view(m_builder->transpose(x, perm), surface::ndarray, self.arr,
                                     [this, perm](ir::value_id base)
                                     { return m_builder->transpose(base, perm); });
                m_arrays[static_cast<size_t>(view.arr)].view_attr = "T";
                return view;
            }
            if (name == "ndim")
                return constant(py::int_(t.dims.rank()));
            if (name == "dtype")
                return constant(py::module_::import("numpy").attr("dtype")(
                    std::string(ir::dtype_name(t.elem))));
            if (name == "shape")
            {
                cval tup; // symbolic dims as int64 scalars (symbolic_dims.cpp)
                tup.k = cval::kind::tuple;
                const int rank = t.dims.rank(); // `t` may move as nodes are added
                for (int axis = 0; axis < rank; ++axis)
                    tup.items.push_back(dim_value(x, axis, node));
                return tup;
            }
            auto sizes = t.dims.static_sizes();
            if (!sizes)
                fail("." + name + " of an array with a symbolic shape", node);
            if (name == "size")
                return constant(py::int_(*t.dims.num_elements()));
            fail("array attribute ." + name, node);
        }
        if (auto code = lookup(reductions, name))
        {
            return reduction(*code, self, args, 0, node);
        }
        if (name == "reshape")
        {
            cval shape_v;
            if (args.positional.size() == 1)
                shape_v = args.positional[0];
            else
            {
                shape_v.k = cval::kind::tuple;
                shape_v.items = args.positional;
            }
            auto dims = shape_arg(shape_v, node);
            auto total = t.dims.num_elements();
            if (!total)
                fail("reshape of a symbolic shape", node);
            std::int64_t known = 1;
            int infer = -1;
            for (size_t i = 0; i < dims.size(); ++i)
            {
                if (dims[i] == -1 && infer < 0)
                    infer = static_cast<int>(i);
                else
                    known *= dims[i];
            }
            if (infer >= 0)
            {
                if (known == 0 || *total % known != 0)
                    fail("reshape that NumPy rejects", node);
                dims[static_cast<size_t>(infer)] = *total / known;
            }
            const surface surf = method_surface(e, static_cast<int>(dims.size()));
            ir::value_id out = m_builder->reshape(x, ir::shape::of(dims));
            if (out == ir::no_id)
                fail("reshape that NumPy rejects", node);
            if (surf == surface::np_scalar)
                return new_array(out, surf); // a new scalar, no view
            if (layout_of(x) != layout::contiguous)
            {
                // NumPy copies unless the strides allow a view: not made again.
                return new_array(out, surface::ndarray, self.arr);
            }
            return new_view(out, surface::ndarray, self.arr,
                            [this, shape = ir::shape::of(dims)](ir::value_id base)
                            { return m_builder->reshape(base, shape); });
        }
        if (name == "transpose")
        {
            std::vector<int> perm;
            if (args.positional.empty())
                for (int i = t.dims.rank() - 1; i >= 0; --i)
                    perm.push_back(i);
            else
            {
                cval axes_v = args.positional[0];
                if (args.positional.size() > 1)
                {
                    axes_v.k = cval::kind::tuple;
                    axes_v.items = args.positional;
                }
                for (auto a : shape_arg(axes_v, node))
                    perm.push_back(static_cast<int>(a));
            }
            if (method_surface(e, t.dims.rank()) == surface::np_scalar)
                return new_array(m_builder->transpose(x, perm), surface::np_scalar);
            cval view = new_view(m_builder->transpose(x, perm), surface::ndarray, self.arr,
                                 [this, perm](ir::value_id base)
                                 { return m_builder->transpose(base, perm); });
            py::tuple axes(perm.size());
            for (size_t i = 0; i < perm.size(); ++i)
                axes[i] = py::int_(perm[i]);
            m_arrays[static_cast<size_t>(view.arr)].view_attr = "transpose";
            m_arrays[static_cast<size_t>(view.arr)].view_args = py::make_tuple(axes);
            return view;
        }
        if (name == "astype")
        {
            if (args.positional.size() != 1 || !args.keywords.empty())
                fail("astype with options", node);
            // astype copies even to the same dtype.
            const surface surf = method_surface(e, t.dims.rank());
            return new_array(m_builder->cast(x, dtype_arg(args.positional[0], node)), surf);
        }
        if (name == "copy")
        {
            const surface surf = method_surface(e, t.dims.rank());
            return new_array(m_builder->cast(x, t.elem), surf);
        }
        if (name == "dot")
        {
            if (args.positional.size() != 1)
                fail(".dot with these arguments", node);
            ir::value_id other = value_of(args.positional[0], node);
            ir::value_id out = matrix_product(true, x, other, node);
            if (out == ir::no_id)
                fail(".dot on these operands", node);
            return new_array(out, surface_of_rank(type_of(out).dims.rank()));
        }
        if (name == "item")
        {
            if (!args.positional.empty() || t.dims.num_elements().value_or(0) != 1)
                fail(".item() of this array", node);
            if (t.elem != ir::dtype::float64 && t.elem != ir::dtype::bool_)
                fail(".item() giving a Python int", node);
            ir::value_id v = m_builder->reshape(x, ir::shape{});
            return new_array(v, t.elem == ir::dtype::bool_ ? surface::py_bool : surface::py_float);
        }
        if (name == "clip")
        {
            call_args full = args;
            full.positional.insert(full.positional.begin(), self);
            return call_numpy("clip", full, node);
        }
        fail("array method ." + name, node);
    }
} // namespace specula::engine::converter
