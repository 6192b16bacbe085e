#pragma once

// Shared by the CPU backend tests: the NumPy loop table filled in main().

#include "backends/cpu/cpu_backend.hpp"

#include <memory>

namespace specula::backends::cpu::testing
{
    std::shared_ptr<const loop_table>& numpy_table();
} // namespace specula::backends::cpu::testing
