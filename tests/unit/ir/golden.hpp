// Golden-file comparison. SPECULA_UPDATE_GOLDEN=1 rewrites the files instead.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace specula::ir::testing
{
    inline void expect_golden(const std::string& name, const std::string& actual)
    {
        const std::string path = std::string(SPECULA_IR_GOLDEN_DIR) + "/" + name;
        const char* update = std::getenv("SPECULA_UPDATE_GOLDEN");
        if (update != nullptr && std::string(update) == "1")
        {
            std::ofstream(path) << actual;
            return;
        }
        std::ifstream in(path);
        ASSERT_TRUE(in.good()) << "missing golden file " << path
                               << " (run with SPECULA_UPDATE_GOLDEN=1 to create it)";
        std::stringstream expected;
        expected << in.rdbuf();
        EXPECT_EQ(expected.str(), actual) << "golden mismatch: " << path;
    }
} // namespace specula::ir::testing
