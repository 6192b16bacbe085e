// NumPy's C API for the engine's sources. numpy_api.cpp owns the API table;
// every other source includes this header (NO_IMPORT_ARRAY).
#pragma once

#define PY_ARRAY_UNIQUE_SYMBOL specula_engine_numpy_api
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#ifndef SPECULA_NUMPY_API_OWNER
#define NO_IMPORT_ARRAY
#endif
#include <Python.h>
#include <numpy/arrayobject.h>

#include <optional>

#include "ir/dtype.hpp"

namespace specula::engine
{
    // Imports NumPy's C API once. Returns false with a Python exception set
    // when NumPy cannot be imported.
    bool ensure_numpy();

    // The IR dtype of a NumPy type number, if the engine converts it.
    std::optional<ir::dtype> dtype_of_type_num(int type_num);
    int type_num_of(ir::dtype t);
} // namespace specula::engine
