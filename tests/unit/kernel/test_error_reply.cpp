#include <gtest/gtest.h>

#include "kernel/error_reply.hpp"

namespace sk = specula::kernel;

TEST(error_reply, class_repr_becomes_plain_name)
{
    EXPECT_EQ(sk::plain_exception_name("<class 'ZeroDivisionError'>"), "ZeroDivisionError");
    EXPECT_EQ(sk::plain_exception_name("<class 'numpy.core._exceptions._UFuncNoLoopError'>"),
              "_UFuncNoLoopError");
    EXPECT_EQ(sk::plain_exception_name("KeyError"), "KeyError");
    EXPECT_EQ(sk::plain_exception_name("<class ''>"), "<class ''>");
}

TEST(error_reply, content_has_protocol_fields)
{
    sk::cell_error error{"<class 'ValueError'>", "bad", {"line 1", "ValueError: bad"}};
    auto content = sk::error_reply_content(error);
    EXPECT_EQ(content["status"], "error");
    EXPECT_EQ(content["ename"], "ValueError");
    EXPECT_EQ(content["evalue"], "bad");
    ASSERT_EQ(content["traceback"].size(), 2u);
    EXPECT_EQ(content["traceback"][1], "ValueError: bad");
}

#include "kernel/protocol_fixes.hpp"

TEST(protocol_fixes, input_request_gets_the_protocol_password_field)
{
    auto fixed = sk::input_request_content({{"prompt", "pw: "}, {"pwd", true}});
    EXPECT_EQ(fixed["password"], true);
    EXPECT_EQ(fixed["prompt"], "pw: ");
    EXPECT_EQ(sk::input_request_content({{"prompt", ""}, {"pwd", false}})["password"], false);
    EXPECT_EQ(sk::input_request_content({{"prompt", ""}})["password"], false);
}
