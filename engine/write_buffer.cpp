#include "engine/write_buffer.hpp"

#include "engine/array_assign.hpp"
#include "engine/numpy_api.hpp"

namespace specula::engine
{
    py::object make_view(py::handle base, const py::object& recipe)
    {
        py::tuple steps = py::reinterpret_borrow<py::tuple>(recipe);
        py::object made = base.attr(steps[0]);
        if (!steps[1].is_none())
        {
            made = made(*steps[1]);
        }
        return made;
    }

    void write_buffer::add(kind k, py::object target, py::object key, py::object value)
    {
        m_effects.push_back({k, std::move(target), std::move(key), std::move(value), {}, {}, {}});
    }

    void write_buffer::add_print(py::tuple args, py::object sep, py::object end)
    {
        m_prints = true;
        m_effects.push_back({kind::print,
                             py::none(),
                             py::none(),
                             std::move(args),
                             std::move(sep),
                             std::move(end),
                             {}});
    }

    void write_buffer::add_deferred(std::function<int()> apply)
    {
        m_effects.push_back(
            {kind::deferred, py::none(), py::none(), py::none(), {}, {}, std::move(apply)});
    }

    namespace
    {
        // Returns 0, or -1 with a Python exception set.
        int apply(const py::object& target, const py::object& key, const py::object& value,
                  write_buffer::kind k)
        {
            switch (k)
            {
            case write_buffer::kind::set_global:
                return PyObject_SetItem(target.ptr(), key.ptr(), value.ptr());
            case write_buffer::kind::set_item:
                // A slice of a user's array is assigned with the GIL held.
                return assign_item(target.ptr(), key.ptr(), value.ptr());
            case write_buffer::kind::set_attr:
                return PyObject_SetAttr(target.ptr(), key.ptr(), value.ptr());
            case write_buffer::kind::array_write:
                // Copies into the user's array (a view writes through to its
                // base) with the GIL held (array_assign.hpp).
                return assign_array(target.ptr(), value.ptr());
            case write_buffer::kind::list_append:
                return PyList_Append(target.ptr(), value.ptr());
            case write_buffer::kind::print:
            case write_buffer::kind::deferred:
                break;
            }
            return 0;
        }
    } // namespace

    bool write_buffer::commit()
    {
        for (const pending& e : m_effects)
        {
            if (e.k == kind::print)
            {
                try
                {
                    py::module_::import("builtins")
                        .attr("print")(*py::reinterpret_borrow<py::tuple>(e.value),
                                       py::arg("sep") = e.sep, py::arg("end") = e.end);
                }
                catch (py::error_already_set& err)
                {
                    err.restore();
                    m_effects.clear();
                    return false;
                }
                continue;
            }
            const int rc = e.k == kind::deferred ? e.apply() : apply(e.target, e.key, e.value, e.k);
            if (rc < 0)
            {
                m_effects.clear();
                return false;
            }
        }
        m_effects.clear();
        return true;
    }
} // namespace specula::engine
