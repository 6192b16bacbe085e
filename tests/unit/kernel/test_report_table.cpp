#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kernel/report_table.hpp"

namespace sk = specula::kernel;

TEST(cell_names, cells_are_named_by_execution_count)
{
    sk::cell_names cells;
    cells.record("/tmp/xpython_12/abc.py", 3);
    EXPECT_EQ(cells.location("/tmp/xpython_12/abc.py", 7), "In [3], line 7");
    EXPECT_EQ(cells.location("/home/ada/model.py", 12), "model.py:12");
}

TEST(cell_names, cell_file_locations_in_text_are_rewritten)
{
    sk::cell_names cells;
    cells.record("/tmp/xpython_1/a.py", 4);
    EXPECT_EQ(cells.rewrite("not convertible: While statement at /tmp/xpython_1/a.py:12"),
              "not convertible: While statement at In [4], line 12");
    EXPECT_EQ(cells.rewrite("at /tmp/xpython_1/a.py: no line"), "at /tmp/xpython_1/a.py: no line");
    EXPECT_EQ(cells.rewrite("elsewhere.py:3"), "elsewhere.py:3");
}

TEST(report_table, empty_report_says_so)
{
    sk::cell_names cells;
    EXPECT_NE(sk::format_report_table({}, cells).find("No region"), std::string::npos);
}

TEST(report_table, rows_are_aligned_and_complete)
{
    sk::cell_names cells;
    cells.record("/tmp/c.py", 2);
    sk::report_row compiled{"step", "/tmp/c.py", 4,  "function", "compiled", 120, 1,  2,
                            0,      {},          {}, 0,          0.0,        0.0, 0.0};
    sk::report_row refused{
        "gen", "/tmp/c.py", 9,   "function", "not_convertible",
        0,     0,           0,   0,          "not convertible: yield at In [2], line 10",
        {},    0,           0.0, 0.0,        0.0};
    std::string table = sk::format_report_table({compiled, refused}, cells);
    std::vector<std::string> lines;
    for (std::size_t start = 0, end; (end = table.find('\n', start)) != std::string::npos;
         start = end + 1)
    {
        lines.push_back(table.substr(start, end - start));
    }
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0].find("region"), 0u);
    // Columns line up: "where" starts at the same offset in every line.
    auto where = lines[0].find("where");
    EXPECT_EQ(lines[1].find("In [2], line 4"), where);
    EXPECT_EQ(lines[2].find("In [2], line 9"), where);
    EXPECT_NE(lines[1].find("120"), std::string::npos);
    EXPECT_NE(lines[1].find("2/0"), std::string::npos);
    EXPECT_NE(lines[2].find("not convertible: yield"), std::string::npos);
    EXPECT_NE(lines[0].find("time saved"), std::string::npos);
}

TEST(report_table, time_saved_in_readable_units)
{
    EXPECT_EQ(sk::format_time_saved(std::nullopt), "-");
    EXPECT_EQ(sk::format_time_saved(0.0123), "12.3 ms");
    EXPECT_EQ(sk::format_time_saved(-0.00041), "-0.41 ms");
    EXPECT_EQ(sk::format_time_saved(2.05), "2.05 s");
    sk::cell_names cells;
    sk::report_row row{"step", "/tmp/c.py", 4,   "function", "compiled", 120, 1,  2,
                       0,      {},          0.5, 0,          0.0,        0.0, 0.0};
    EXPECT_NE(sk::format_report_table({row}, cells).find("500 ms"), std::string::npos);
}

TEST(report_table, graph_cpython_and_compile_time_side_by_side)
{
    EXPECT_EQ(sk::format_time_split(0.0, 0.0, 0.0), "0 / 0 / 0");
    EXPECT_EQ(sk::format_time_split(0.007, 0.0302, 0.012), "7 ms / 30.2 ms / 12 ms");
    sk::cell_names cells;
    sk::report_row row{"step", "/tmp/c.py", 4,  "function", "compiled", 120,  1,   2,
                       0,      {},          {}, 0,          1.5,        4.25, 0.25};
    std::string table = sk::format_report_table({row}, cells);
    EXPECT_NE(table.find("time graph / CPython / compiling"), std::string::npos);
    EXPECT_NE(table.find("1.5 s / 4.25 s / 250 ms"), std::string::npos);
}

TEST(report_table, calls_the_cost_check_sent_to_cpython_are_not_fallbacks)
{
    sk::cell_names cells;
    sk::report_row plain{"f", "/tmp/c.py", 4,  "function", "compiled", 9,   3,  0,
                         0,   {},          {}, 0,          0.0,        0.0, 0.0};
    sk::report_row judged = plain;
    judged.cost_cpython_calls = 25;
    EXPECT_EQ(sk::format_report_table({plain}, cells).find("by cost"), std::string::npos);
    EXPECT_NE(sk::format_report_table({judged}, cells).find("3 (+25 by cost)"), std::string::npos);
}

TEST(cell_names, file_of_an_execution_count)
{
    sk::cell_names cells;
    cells.record("/tmp/xpython_1/abc.py", 3);
    EXPECT_EQ(cells.file_of(3).value_or(""), "/tmp/xpython_1/abc.py");
    EXPECT_FALSE(cells.file_of(4).has_value());
}

TEST(cell_names, cell_locations_parse_as_the_report_writes_them)
{
    auto at = sk::parse_cell_location("In [3], line 7");
    ASSERT_TRUE(at.has_value());
    EXPECT_EQ(at->first, 3);
    EXPECT_EQ(at->second, 7);
    at = sk::parse_cell_location("\"In [12], line 1\"");
    ASSERT_TRUE(at.has_value());
    EXPECT_EQ(at->first, 12);
    at = sk::parse_cell_location("In[4]");
    ASSERT_TRUE(at.has_value());
    EXPECT_EQ(at->first, 4);
    EXPECT_GT(at->second, 1000000);
    EXPECT_FALSE(sk::parse_cell_location("step").has_value());
    EXPECT_FALSE(sk::parse_cell_location("In [x], line 2").has_value());
}
