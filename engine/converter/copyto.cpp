// np.copyto(dst, src): the whole of an array written in place, as notebooks
// fill an output buffer. NumPy's wrapper is Python code of another module, so
// without this the caller stayed in CPython ("call of copyto from another
// module"). The write is `dst[...] = src` after NumPy's own casting check.
#include "engine/converter/converter.hpp"

namespace specula::engine::converter
{
    namespace
    {
        // NumPy's answer to np.can_cast(from, to, "same_kind"), asked at
        // conversion: `from` is a dtype name or a Python scalar (value-based
        // in NumPy 1.24), `to` a dtype name.
        bool same_kind(const py::object& from, const std::string& to)
        {
            py::module_ np = py::module_::import("numpy");
            return np.attr("can_cast")(from, np.attr("dtype")(to), "same_kind").cast<bool>();
        }
    } // namespace

    cval converter::call_copyto(const call_args& args, py::handle node)
    {
        if (args.positional.size() != 2 || !args.keywords.empty())
        {
            fail("np.copyto with casting= or where=", node);
        }
        const cval& dst = args.positional[0];
        const cval& src = args.positional[1];
        if (dst.k != cval::kind::array ||
            m_arrays[static_cast<size_t>(dst.arr)].surf != surface::ndarray)
        {
            fail("np.copyto into something that is not an array", node);
        }
        array_entry& target = m_arrays[static_cast<size_t>(dst.arr)];
        const ir::value_id base = target.value;
        const ir::value_type base_t = type_of(base);
        const std::string to(ir::dtype_name(base_t.elem));
        ir::value_id v = ir::no_id;
        if (src.k == cval::kind::array && !is_python_scalar(src))
        {
            v = value_of(src, node);
            if (!same_kind(py::str(std::string(ir::dtype_name(type_of(v).elem))), to))
            {
                fail("np.copyto with a cast NumPy refuses (TypeError)", node);
            }
        }
        else if (src.k == cval::kind::array)
        {
            // A Python scalar known only at run time: NumPy's check depends
            // on its value for ints; a float into a float array and a bool
            // into anything pass whatever the value.
            const surface s = m_arrays[static_cast<size_t>(src.arr)].surf;
            if (!(s == surface::py_bool || (s == surface::py_float && ir::is_float(base_t.elem))))
            {
                fail("np.copyto of a run-time Python scalar NumPy checks by value", node);
            }
            v = value_of(src, node);
        }
        else if (src.k == cval::kind::constant)
        {
            if (!same_kind(src.obj, to))
            {
                fail("np.copyto with a cast NumPy refuses (TypeError)", node);
            }
            v = scalar_constant(src, base_t.elem, node);
        }
        else
        {
            fail("np.copyto from this value", node);
        }
        std::vector<ir::slice_item> whole(static_cast<size_t>(base_t.dims.rank()),
                                          ir::slice_item::all());
        assert_broadcast(v, base_t.dims, node);
        target.unwritten = false; // every element is written
        ir::value_id updated = m_builder->slice_update(base, v, whole);
        if (updated == ir::no_id)
        {
            fail("np.copyto of these operands (" + m_builder->state().message() + ")", node);
        }
        write_array(dst.arr, updated, node);
        cval none;
        none.obj = py::none();
        return none;
    }
} // namespace specula::engine::converter
