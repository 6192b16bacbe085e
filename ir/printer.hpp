// A stable text form of graphs and modules, for dumps (SPECULA_DUMP=ir) and golden tests.
// Values are renumbered %0, %1, ... in print order, so the text does not depend on how
// a pass left the value table.
#pragma once

#include <string>

#include "ir/graph.hpp"

namespace specula::ir
{
    std::string print(const graph& g);
    // Every graph of the module, in name order.
    std::string print(const module& m);
    // The attribute as printed after the operands, e.g. "{axes=[1], keepdims=true}";
    // empty for none_attr.
    std::string print_attr(const attribute& attr);
} // namespace specula::ir
