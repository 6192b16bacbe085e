// Starts an embedded interpreter and fills NumPy's loop table once, as the
// engine does at start-up, then runs the tests.

#include "cpu_test_support.hpp"

#include "backends/cpu/numpy_loops/numpy_loops.hpp"

#include <Python.h>
#include <gtest/gtest.h>

namespace specula::backends::cpu::testing
{
    std::shared_ptr<const loop_table>& numpy_table()
    {
        static std::shared_ptr<const loop_table> table;
        return table;
    }
} // namespace specula::backends::cpu::testing

int main(int argc, char** argv)
{
    ::testing::InitGoogleTest(&argc, argv);
    Py_InitializeEx(0);
    auto table = std::make_shared<specula::backends::cpu::loop_table>();
    auto filled = specula::backends::cpu::fill_numpy_loops(*table);
    if (!filled || filled.value() == 0)
    {
        std::fprintf(stderr, "NumPy loops unavailable: %s\n",
                     filled ? "none found" : filled.error().to_string().c_str());
        return 1;
    }
    specula::backends::cpu::testing::numpy_table() = table;
    // The interpreter stays up: the loops live in numpy's extension module.
    return RUN_ALL_TESTS();
}
