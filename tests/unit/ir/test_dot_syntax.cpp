// DOT export is syntactically valid Graphviz (graphviz is not installed here): a small
// recursive-descent parser of the DOT grammar subset to_dot emits (graph, subgraph,
// node, edge and attribute statements; IDs, numerals and quoted strings with escapes).
#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <sstream>

#include "ir/builder.hpp"
#include "ir/dot.hpp"

namespace
{
    using namespace specula::ir;

    class dot_parser
    {
    public:
        explicit dot_parser(std::string text) : m_text(std::move(text)) {}

        // Empty when the whole text is one valid digraph, else what went wrong.
        std::string check()
        {
            if (!keyword("digraph") || !id() || !punct("{") || !statements() || !punct("}"))
            {
                return m_error.empty() ? "bad graph header" : m_error;
            }
            skip_space();
            return m_pos == m_text.size() ? "" : "text after the graph";
        }

    private:
        void skip_space()
        {
            while (m_pos < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_pos])))
            {
                ++m_pos;
            }
        }
        bool punct(const std::string& p)
        {
            skip_space();
            if (m_text.compare(m_pos, p.size(), p) != 0)
            {
                return fail("expected '" + p + "'");
            }
            m_pos += p.size();
            return true;
        }
        bool peek(const std::string& p)
        {
            skip_space();
            return m_text.compare(m_pos, p.size(), p) == 0;
        }
        bool keyword(const std::string& k) { return peek(k) && punct(k); }
        bool fail(std::string why)
        {
            if (m_error.empty())
            {
                m_error = why + " at offset " + std::to_string(m_pos);
            }
            return false;
        }
        bool id()
        {
            skip_space();
            if (m_pos < m_text.size() && m_text[m_pos] == '"')
            {
                for (++m_pos; m_pos < m_text.size() && m_text[m_pos] != '"'; ++m_pos)
                {
                    m_pos += m_text[m_pos] == '\\' ? 1 : 0;
                }
                return m_pos++ < m_text.size() || fail("unterminated string");
            }
            const size_t start = m_pos;
            while (m_pos < m_text.size() &&
                   (std::isalnum(static_cast<unsigned char>(m_text[m_pos])) ||
                    m_text[m_pos] == '_' || m_text[m_pos] == '.'))
            {
                ++m_pos;
            }
            return m_pos > start || fail("expected an ID");
        }
        bool attr_list()
        {
            while (peek("["))
            {
                punct("[");
                while (!peek("]"))
                {
                    if (!id() || !punct("=") || !id())
                    {
                        return false;
                    }
                    if (peek(",") || peek(";"))
                    {
                        ++m_pos;
                    }
                }
                punct("]");
            }
            return true;
        }
        bool statement()
        {
            if (keyword("subgraph"))
            {
                return id() && punct("{") && statements() && punct("}");
            }
            if (!id())
            {
                return false;
            }
            if (peek("="))
            {
                return punct("=") && id();
            }
            while (peek("->"))
            {
                if (!punct("->") || !id())
                {
                    return false;
                }
            }
            return attr_list();
        }
        bool statements()
        {
            while (!peek("}") && m_pos < m_text.size())
            {
                if (!statement())
                {
                    return false;
                }
                if (peek(";"))
                {
                    ++m_pos;
                }
            }
            return true;
        }

        std::string m_text;
        size_t m_pos = 0;
        std::string m_error;
    };

    std::string read(const std::string& name)
    {
        std::ifstream in(std::string(SPECULA_IR_GOLDEN_DIR) + "/" + name);
        std::stringstream s;
        s << in.rdbuf();
        return s.str();
    }

    TEST(dot_syntax, golden_exports_parse)
    {
        for (const char* name : {"control.dot", "passes.dot"})
        {
            const std::string text = read(name);
            ASSERT_FALSE(text.empty()) << name;
            EXPECT_EQ(dot_parser(text).check(), "") << name;
        }
    }

    TEST(dot_syntax, hostile_names_and_reasons_are_escaped)
    {
        module m;
        graph& g = m.add_graph("we\"ird\\name");
        builder b(g);
        auto x = b.input({dtype::float64, shape{3}}, "x \"quoted\" \\ back");
        auto ok = b.reduce_all(
            op::ALL, b.binary(op::GT, x, b.constant(scalar::of_float(dtype::float64, 0.0))));
        b.assert_true(ok, 3, "x > 0 \"really\"\\\nsecond line {braces} [brackets]; -> arrow");
        b.output(b.unary(op::SQRT, x), "y;}");
        ASSERT_TRUE(b.ok()) << b.state().message();
        EXPECT_EQ(dot_parser(to_dot(g)).check(), "") << to_dot(g);
        EXPECT_NE(dot_parser("digraph g { a -> ; }").check(), "");
        EXPECT_NE(dot_parser("digraph g { a [label=\"x] }").check(), "");
    }
} // namespace
