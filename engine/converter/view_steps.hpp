// How a view the converted code made of an array is made again by NumPy in
// Python when it escapes (escaping_views.cpp).
#pragma once

#include <pybind11/pybind11.h>

#include <vector>

#include "ir/slice.hpp"

namespace specula::engine::converter
{
    // The index that gives NumPy's view for basic indexing `items` (ranges
    // with their bounds as the converter resolved them, ints, None): the
    // same offset, shape and strides as the code's own index.
    pybind11::object basic_index_key(const std::vector<ir::slice_item>& items);
} // namespace specula::engine::converter
