#include <cstdio>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "kernel/kernel_options.hpp"

namespace sk = specula::kernel;

TEST(kernel_options, short_flag_with_separate_value)
{
    auto parsed = sk::parse_arguments({"-f", "/tmp/conn.json"});
    ASSERT_TRUE(parsed.ok()) << parsed.error;
    EXPECT_EQ(parsed.options.connection_file, "/tmp/conn.json");
}

TEST(kernel_options, long_flag_with_equals)
{
    auto parsed = sk::parse_arguments({"--connection-file=/a b/c.json"});
    ASSERT_TRUE(parsed.ok()) << parsed.error;
    EXPECT_EQ(parsed.options.connection_file, "/a b/c.json");
}

TEST(kernel_options, version_and_help_need_no_connection_file)
{
    EXPECT_TRUE(sk::parse_arguments({"--version"}).options.show_version);
    EXPECT_TRUE(sk::parse_arguments({"-h"}).options.show_help);
    EXPECT_TRUE(sk::parse_arguments({"--help"}).ok());
}

TEST(kernel_options, missing_value_is_an_error)
{
    auto parsed = sk::parse_arguments({"-f"});
    EXPECT_FALSE(parsed.ok());
    EXPECT_NE(parsed.error.find("-f"), std::string::npos);
    EXPECT_FALSE(sk::parse_arguments({"-f="}).ok());
}

TEST(kernel_options, unknown_argument_is_named)
{
    auto parsed = sk::parse_arguments({"-f", "x.json", "--frobnicate"});
    EXPECT_FALSE(parsed.ok());
    EXPECT_NE(parsed.error.find("--frobnicate"), std::string::npos);
}

TEST(kernel_options, no_arguments_asks_for_a_connection_file)
{
    auto parsed = sk::parse_arguments({});
    EXPECT_FALSE(parsed.ok());
    EXPECT_NE(parsed.error.find("connection file"), std::string::npos);
}

TEST(kernel_options, usage_names_the_program)
{
    EXPECT_NE(sk::usage_text("specula").find("specula -f"), std::string::npos);
}

namespace
{
    std::string write_temp(const std::string& text)
    {
        char name[] = "/tmp/specula-conn-XXXXXX";
        int fd = mkstemp(name);
        EXPECT_GE(fd, 0);
        std::ofstream(name) << text;
        close(fd);
        return name;
    }
} // namespace

TEST(connection_file, missing_file_is_reported)
{
    std::string problem = sk::check_connection_file("/nonexistent/specula.json");
    EXPECT_NE(problem.find("cannot read"), std::string::npos);
}

TEST(connection_file, malformed_json_is_reported)
{
    std::string path = write_temp("{not json");
    EXPECT_NE(sk::check_connection_file(path).find("not a JSON object"), std::string::npos);
    std::remove(path.c_str());
}

TEST(connection_file, missing_key_is_named)
{
    std::string path = write_temp(R"({"transport": "tcp", "ip": "127.0.0.1"})");
    EXPECT_NE(sk::check_connection_file(path).find("shell_port"), std::string::npos);
    std::remove(path.c_str());
}

TEST(connection_file, complete_file_is_accepted)
{
    std::string path = write_temp(
        R"({"transport": "tcp", "ip": "127.0.0.1", "shell_port": 1, "control_port": 2,
            "stdin_port": 3, "iopub_port": 4, "hb_port": 5, "key": "k",
            "signature_scheme": "hmac-sha256"})");
    EXPECT_EQ(sk::check_connection_file(path), "");
    std::remove(path.c_str());
}
