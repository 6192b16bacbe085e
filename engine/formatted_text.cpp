#include "engine/formatted_text.hpp"

namespace specula::engine
{
    py::object formatted_text(const py::object& parts, const std::vector<py::object>& items)
    {
        py::list pieces;
        for (py::handle part : parts)
        {
            if (PyUnicode_CheckExact(part.ptr()))
            {
                pieces.append(part);
                continue;
            }
            py::tuple field = py::reinterpret_borrow<py::tuple>(part);
            PyObject* value = items[field[0].cast<size_t>()].ptr(); // borrowed
            const int conversion = field[1].cast<int>();
            py::object converted;
            switch (conversion)
            {
            case 's':
                converted = py::reinterpret_steal<py::object>(PyObject_Str(value));
                break;
            case 'r':
                converted = py::reinterpret_steal<py::object>(PyObject_Repr(value));
                break;
            case 'a':
                converted = py::reinterpret_steal<py::object>(PyObject_ASCII(value));
                break;
            default:
                converted = py::reinterpret_borrow<py::object>(value);
            }
            if (!converted)
            {
                throw py::error_already_set();
            }
            py::object text =
                py::reinterpret_steal<py::object>(PyObject_Format(converted.ptr(), field[2].ptr()));
            if (!text)
            {
                throw py::error_already_set();
            }
            pieces.append(text);
        }
        return py::str("").attr("join")(pieces);
    }
} // namespace specula::engine
