#include <gtest/gtest.h>

#include "kernel/kernel_info.hpp"
#include "kernel/version.hpp"

namespace sk = specula::kernel;

TEST(kernel_info, reports_specula_and_the_running_python)
{
    auto info = sk::kernel_info_content("3.11.2");
    EXPECT_EQ(info["status"], "ok");
    EXPECT_EQ(info["implementation"], "specula");
    EXPECT_EQ(info["implementation_version"], sk::specula_version);
    EXPECT_EQ(info["language_info"]["name"], "python");
    EXPECT_EQ(info["language_info"]["version"], "3.11.2");
    EXPECT_EQ(info["language_info"]["file_extension"], ".py");
    EXPECT_EQ(info["language_info"]["pygments_lexer"], "ipython3");
    EXPECT_EQ(info["debugger"], false);
}
