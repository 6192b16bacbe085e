#include "ir/printer.hpp"

#include <sstream>
#include <unordered_map>

namespace specula::ir
{
    namespace
    {
        template <class T>
        std::string join_list(const std::vector<T>& xs)
        {
            std::string out = "[";
            for (size_t i = 0; i < xs.size(); ++i)
            {
                out += (i ? "," : "") + std::to_string(xs[i]);
            }
            return out + "]";
        }

        std::string quote(const std::string& s)
        {
            std::string out = "\"";
            for (char c : s)
            {
                out += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
            }
            return out + "\"";
        }

        std::string constant_text(const constant_attr& c)
        {
            const std::int64_t n = c.size();
            if (c.dims.rank() == 0 && n == 1)
            {
                return c.element(0).to_string();
            }
            constexpr std::int64_t max_shown = 16;
            std::string out = "[";
            for (std::int64_t i = 0; i < n && i < max_shown; ++i)
            {
                out += (i ? ", " : "") + c.element(i).to_string();
            }
            return out + (n > max_shown ? ", ...]" : "]");
        }

        struct attr_printer
        {
            std::string operator()(const none_attr&) const { return ""; }
            std::string operator()(const boundary_attr& a) const
            {
                return "{index=" + std::to_string(a.index) +
                       (a.name.empty() ? "" : ", name=" + quote(a.name)) + "}";
            }
            std::string operator()(const constant_attr& a) const
            {
                return "{value=" + constant_text(a) + "}";
            }
            std::string operator()(const cast_attr& a) const
            {
                return "{to=" + std::string(dtype_name(a.to)) + "}";
            }
            std::string operator()(const reduce_attr& a) const
            {
                std::string out = "{axes=" + (a.all_axes ? std::string("all") : join_list(a.axes));
                out += a.keepdims ? ", keepdims" : "";
                out += a.ddof ? ", ddof=" + std::to_string(a.ddof) : "";
                return out + "}";
            }
            std::string operator()(const shape_attr& a) const
            {
                return "{shape=" + a.dims.to_string() + "}";
            }
            std::string operator()(const perm_attr& a) const
            {
                return "{perm=" + join_list(a.perm) + "}";
            }
            std::string operator()(const axes_attr& a) const
            {
                return "{axes=" + join_list(a.axes) + "}";
            }
            std::string operator()(const axis_attr& a) const
            {
                return "{axis=" + std::to_string(a.axis) + "}";
            }
            std::string operator()(const slice_attr& a) const
            {
                std::string out = "{index=[";
                for (size_t i = 0; i < a.items.size(); ++i)
                {
                    out += (i ? ", " : "") + a.items[i].to_string();
                }
                return out + "]}";
            }
            std::string operator()(const fill_attr& a) const
            {
                return "{shape=" + a.dims.to_string() +
                       ", dtype=" + std::string(dtype_name(a.elem)) +
                       ", value=" + a.value.to_string() + "}";
            }
            std::string operator()(const arange_attr& a) const
            {
                return "{start=" + a.start.to_string() + ", step=" + a.step.to_string() +
                       ", count=" + std::to_string(a.count) +
                       ", dtype=" + std::string(dtype_name(a.elem)) + "}";
            }
            std::string operator()(const eye_attr& a) const
            {
                return "{rows=" + std::to_string(a.rows) + ", cols=" + std::to_string(a.cols) +
                       ", k=" + std::to_string(a.k) + ", dtype=" + std::string(dtype_name(a.elem)) +
                       "}";
            }
            std::string operator()(const loop_attr& a) const
            {
                std::string out = "{";
                out += a.has_trip_count ? "trip_count" : "";
                out += a.has_trip_count && a.has_condition ? ", " : "";
                out += a.has_condition ? "condition" : "";
                return out + "}";
            }
            std::string operator()(const call_attr& a) const
            {
                return "{callee=@" + a.callee + "}";
            }
            std::string operator()(const assert_attr& a) const
            {
                return "{exit=" + std::to_string(a.exit_id) + ", reason=" + quote(a.reason) + "}";
            }
        };

        class printer
        {
        public:
            explicit printer(const graph& g) : m_graph(g) {}

            std::string run()
            {
                m_out << "graph @" << m_graph.name() << " {\n";
                print_nodes(m_graph.get_region(m_graph.body()), 1);
                m_out << "}\n";
                return m_out.str();
            }

        private:
            std::string name(value_id v)
            {
                auto it = m_names.find(v);
                if (it == m_names.end())
                {
                    // A use the verifier would reject; print it recognisably.
                    return "%<undef " + std::to_string(v) + ">";
                }
                return "%" + std::to_string(it->second);
            }

            std::string define(value_id v)
            {
                const int k = static_cast<int>(m_names.size());
                m_names[v] = k;
                return "%" + std::to_string(k);
            }

            std::string names(const std::vector<value_id>& vs)
            {
                std::string out;
                for (size_t i = 0; i < vs.size(); ++i)
                {
                    out += (i ? ", " : "") + name(vs[i]);
                }
                return out;
            }

            void print_nodes(const region& r, int depth)
            {
                for (node_id n : r.nodes)
                {
                    print_node(m_graph.get_node(n), depth);
                }
            }

            void print_node(const node& n, int depth)
            {
                const std::string indent(static_cast<size_t>(depth) * 2, ' ');
                m_out << indent;
                std::string head = std::string(mnemonic(n.code));
                if (!n.inputs.empty())
                {
                    head += " " + names(n.inputs);
                }
                const std::string attr = print_attr(n.attr);
                if (!attr.empty())
                {
                    head += " " + attr;
                }
                if (n.group >= 0)
                {
                    head += " #group" + std::to_string(n.group);
                }
                std::string lhs;
                for (size_t i = 0; i < n.outputs.size(); ++i)
                {
                    lhs += (i ? ", " : "") + define(n.outputs[i]);
                }
                m_out << (lhs.empty() ? "" : lhs + " = ") << head;
                if (!n.outputs.empty())
                {
                    m_out << " : " << types(n.outputs);
                }
                if (n.regions.empty())
                {
                    m_out << "\n";
                    return;
                }
                m_out << " {\n";
                for (size_t i = 0; i < n.regions.size(); ++i)
                {
                    print_region(m_graph.get_region(n.regions[i]), depth + 1);
                    if (i + 1 < n.regions.size())
                    {
                        m_out << indent << "} {\n";
                    }
                }
                m_out << indent << "}\n";
            }

            std::string types(const std::vector<value_id>& vs)
            {
                std::string out = vs.size() == 1 ? "" : "(";
                for (size_t i = 0; i < vs.size(); ++i)
                {
                    out += (i ? ", " : "") + m_graph.type_of(vs[i]).to_string();
                }
                return out + (vs.size() == 1 ? "" : ")");
            }

            void print_region(const region& r, int depth)
            {
                const std::string indent(static_cast<size_t>(depth) * 2, ' ');
                if (!r.args.empty())
                {
                    m_out << indent << "(";
                    for (size_t i = 0; i < r.args.size(); ++i)
                    {
                        m_out << (i ? ", " : "") << define(r.args[i]) << ": "
                              << m_graph.type_of(r.args[i]).to_string();
                    }
                    m_out << "):\n";
                }
                print_nodes(r, depth);
                m_out << indent << "yield" << (r.results.empty() ? "" : " " + names(r.results))
                      << "\n";
            }

            const graph& m_graph;
            std::ostringstream m_out;
            std::unordered_map<value_id, int> m_names;
        };
    } // namespace

    std::string print_attr(const attribute& attr)
    {
        return std::visit(attr_printer{}, attr);
    }

    std::string print(const graph& g)
    {
        return printer(g).run();
    }

    std::string print(const module& m)
    {
        std::string out;
        for (const std::string& name : m.names())
        {
            out += (out.empty() ? "" : "\n") + print(*m.find(name));
        }
        return out;
    }
} // namespace specula::ir
