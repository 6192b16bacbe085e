// Array copies of a commit made with the GIL held throughout. NumPy's own
// assignment (PyArray_CopyInto, `a[key] = v`) releases the GIL around its
// copy loop whatever the size, so another Python thread could run between a
// graph's reads of an array and the commit's write of it and lose its update
// (`W += g` from four threads). CPython's `W += g` on a small array is one
// ufunc call that keeps the GIL: a commit must be at least as atomic.
#pragma once

#include <Python.h>

namespace specula::engine
{
    // dst[...] = src for arrays of equivalent dtypes, src broadcast to dst's
    // shape, overlap allowed; anything else (a cast, a shape NumPy refuses)
    // goes to PyArray_CopyInto, which casts and raises as NumPy does.
    // Returns 0, or -1 with a Python exception set. Both borrowed.
    int assign_array(PyObject* dst, PyObject* src);

    // target[key] = value: an ndarray value into an exact ndarray target at
    // a basic index (ints, slices, None, Ellipsis) is copied into NumPy's
    // view of that index by assign_array; anything else is
    // PyObject_SetItem. Returns 0, or -1 with a Python exception set.
    int assign_item(PyObject* target, PyObject* key, PyObject* value);
} // namespace specula::engine
