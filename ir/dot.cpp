#include "ir/dot.hpp"

#include <map>
#include <sstream>

#include "ir/printer.hpp"

namespace specula::ir
{
    namespace
    {
        std::string escape(const std::string& s)
        {
            std::string out;
            for (char c : s)
            {
                if (c == '"' || c == '\\')
                {
                    out += '\\';
                }
                out += c;
            }
            return out;
        }

        class dot_writer
        {
        public:
            explicit dot_writer(const graph& g) : m_graph(g) {}

            std::string run()
            {
                m_out << "digraph \"" << escape(m_graph.name()) << "\" {\n";
                m_out << "  node [shape=box, fontname=\"monospace\"];\n";
                write_region(m_graph.body(), 1);
                write_edges();
                m_out << "}\n";
                return m_out.str();
            }

        private:
            void write_region(region_id r, int depth)
            {
                const region& reg = m_graph.get_region(r);
                const std::string indent(static_cast<size_t>(depth) * 2, ' ');
                for (value_id a : reg.args)
                {
                    m_out << indent << "v" << a << " [shape=ellipse, label=\"arg "
                          << m_graph.get(a).index << ": " << m_graph.type_of(a).to_string()
                          << "\"];\n";
                }
                // Group consecutive members of one fusion group into a cluster.
                std::map<int, std::vector<node_id>> groups;
                for (node_id n : reg.nodes)
                {
                    const int g = m_graph.get_node(n).group;
                    if (g >= 0)
                    {
                        groups[g].push_back(n);
                    }
                    else
                    {
                        write_node(n, depth);
                    }
                }
                for (const auto& [g, members] : groups)
                {
                    m_out << indent << "subgraph cluster_group" << g << " {\n";
                    m_out << indent << "  label=\"fused group " << g
                          << "\"; style=filled; color=lightblue;\n";
                    for (node_id n : members)
                    {
                        write_node(n, depth + 1);
                    }
                    m_out << indent << "}\n";
                }
            }

            void write_node(node_id id, int depth)
            {
                const node& n = m_graph.get_node(id);
                const std::string indent(static_cast<size_t>(depth) * 2, ' ');
                std::string label = std::string(mnemonic(n.code));
                const std::string attr = print_attr(n.attr);
                if (!attr.empty())
                {
                    label += "\\n" + escape(attr);
                }
                for (value_id v : n.outputs)
                {
                    label += "\\n" + m_graph.type_of(v).to_string();
                }
                m_out << indent << "n" << id << " [label=\"" << label << "\"";
                if (has(n.code, prop::ASSERT))
                {
                    m_out << ", color=red, fontcolor=red, shape=octagon";
                }
                else if (has(n.code, prop::BOUNDARY))
                {
                    m_out << ", shape=invhouse";
                }
                m_out << "];\n";
                for (size_t i = 0; i < n.regions.size(); ++i)
                {
                    m_out << indent << "subgraph cluster_region" << n.regions[i] << " {\n";
                    m_out << indent << "  label=\"" << mnemonic(n.code) << " region " << i
                          << "\"; style=dashed;\n";
                    write_region(n.regions[i], depth + 1);
                    m_out << indent << "}\n";
                }
            }

            std::string source(value_id v) const
            {
                const value& val = m_graph.get(v);
                return val.def == no_id ? "v" + std::to_string(v) : "n" + std::to_string(val.def);
            }

            void write_edges()
            {
                for (node_id id : m_graph.walk())
                {
                    const node& n = m_graph.get_node(id);
                    for (value_id v : n.inputs)
                    {
                        m_out << "  " << source(v) << " -> n" << id << ";\n";
                    }
                    for (region_id r : n.regions)
                    {
                        for (value_id v : m_graph.get_region(r).results)
                        {
                            m_out << "  " << source(v) << " -> n" << id << " [style=dashed];\n";
                        }
                    }
                }
            }

            const graph& m_graph;
            std::ostringstream m_out;
        };
    } // namespace

    std::string to_dot(const graph& g)
    {
        return dot_writer(g).run();
    }
} // namespace specula::ir
