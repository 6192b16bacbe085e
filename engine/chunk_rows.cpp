#include "engine/chunk_rows.hpp"

#include <stdexcept>

#include "engine/numpy_api.hpp"

namespace specula::engine
{
    py::object chunk_row_object(const chunk_row& row, const std::vector<py::object>& outputs,
                                std::int64_t j, bool last)
    {
        if (last && row.last >= 0)
        {
            return outputs[static_cast<size_t>(row.last)];
        }
        auto* stacked =
            reinterpret_cast<PyArrayObject*>(outputs[static_cast<size_t>(row.output)].ptr());
        char* at = PyArray_BYTES(stacked) + j * PyArray_STRIDES(stacked)[0];
        PyObject* made = nullptr; // new reference
        switch (row.surf)
        {
        case surface::py_float:
            made = PyFloat_FromDouble(*reinterpret_cast<const double*>(at));
            break;
        case surface::py_int:
            made = PyLong_FromLongLong(*reinterpret_cast<const std::int64_t*>(at));
            break;
        case surface::py_bool:
            made = PyBool_FromLong(*reinterpret_cast<const npy_bool*>(at) != 0);
            break;
        case surface::np_scalar:
            // A NumPy scalar of the stacked dtype, as the ufunc or reduction
            // of that iteration returned it.
            made = PyArray_Scalar(at, PyArray_DESCR(stacked), reinterpret_cast<PyObject*>(stacked));
            break;
        case surface::ndarray:
        {
            // A new array that owns a C-ordered copy of the row: the object
            // the iteration's own computation would have returned.
            py::object view = py::reinterpret_steal<py::object>(
                PySequence_GetItem(outputs[static_cast<size_t>(row.output)].ptr(), j));
            if (!view)
            {
                throw py::error_already_set();
            }
            made = PyArray_NewCopy(reinterpret_cast<PyArrayObject*>(view.ptr()), NPY_CORDER);
            break;
        }
        }
        if (made == nullptr)
        {
            throw py::error_already_set();
        }
        return py::reinterpret_steal<py::object>(made);
    }

    std::int64_t chunk_trip_count(const specialisation& spec,
                                  const std::vector<py::object>& outputs,
                                  const std::vector<PyObject*>& values)
    {
        if (spec.chunk_trips_output < 0)
        {
            return PyLong_AsLongLong(values[static_cast<size_t>(spec.chunk_trips)]);
        }
        py::object n = py::reinterpret_steal<py::object>(PyNumber_Index(
            outputs[static_cast<size_t>(spec.chunk_trips_output)].ptr())); // new reference
        const long long trips = n ? PyLong_AsLongLong(n.ptr()) : -1;
        if (trips < 0)
        {
            PyErr_Clear();
            throw std::runtime_error("trip count of a chunk not readable at commit");
        }
        return trips;
    }
} // namespace specula::engine
