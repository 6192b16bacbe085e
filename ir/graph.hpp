// SSA graphs with typed values, nested regions for control flow, and modules of named
// graphs for calls. See ir/README.md ("API for backends") for how to walk one.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/attrs.hpp"
#include "ir/dtype.hpp"
#include "ir/op.hpp"
#include "ir/shape.hpp"

namespace specula::ir
{
    using value_id = std::uint32_t;
    using node_id = std::uint32_t;
    using region_id = std::uint32_t;
    inline constexpr std::uint32_t no_id = 0xffffffffu;

    // The static type of a value: element dtype and (possibly symbolic) dims.
    struct value_type
    {
        dtype elem = dtype::float64;
        shape dims;
        bool operator==(const value_type& o) const { return elem == o.elem && dims == o.dims; }
        bool operator!=(const value_type& o) const { return !(*this == o); }
        // "f64[2,?0]"
        std::string to_string() const;
    };

    struct value
    {
        value_id id = no_id;
        value_type type;
        node_id def = no_id;      // defining node, or no_id for a region argument
        region_id region = no_id; // region the value is defined in
        std::uint32_t index = 0;  // output index in def, or argument index in region
        std::string name;         // optional hint for dumps
    };

    struct node
    {
        node_id id = no_id;
        op code = op::CONSTANT;
        std::vector<value_id> inputs;
        std::vector<value_id> outputs;
        attribute attr;
        std::vector<region_id> regions; // IF: {then, else}; LOOP: {body}
        region_id parent = no_id;       // region holding this node
        bool erased = false;            // removed by a pass; not in any region
        int group = -1;                 // fusion group set by fuse_elementwise, or -1

        template <class T>
        const T& attr_as() const
        {
            return std::get<T>(attr);
        }
        template <class T>
        T& attr_as()
        {
            return std::get<T>(attr);
        }
    };

    // An ordered list of nodes (program order, a valid topological order) with
    // arguments bound by the parent op and results handed back to it. Nodes may read
    // values of enclosing regions that are defined before the parent op.
    struct region
    {
        region_id id = no_id;
        node_id parent = no_id; // owning control-flow node; no_id for the graph body
        std::vector<value_id> args;
        std::vector<node_id> nodes;
        std::vector<value_id> results;
    };

    class module;

    class graph
    {
    public:
        explicit graph(std::string name = "main");
        graph(const graph&) = default;
        graph& operator=(const graph&) = default;
        graph(graph&&) = default;
        graph& operator=(graph&&) = default;

        const std::string& name() const { return m_name; }
        // The module holding this graph (for CALL resolution), or nullptr.
        const module* parent_module() const { return p_module; }
        region_id body() const { return 0; }

        const value& get(value_id v) const { return m_values[v]; }
        value& get(value_id v) { return m_values[v]; }
        const node& get_node(node_id n) const { return m_nodes[n]; }
        node& get_node(node_id n) { return m_nodes[n]; }
        const region& get_region(region_id r) const { return m_regions[r]; }
        region& get_region(region_id r) { return m_regions[r]; }
        const value_type& type_of(value_id v) const { return m_values[v].type; }

        std::size_t num_values() const { return m_values.size(); }
        std::size_t num_nodes() const { return m_nodes.size(); }
        std::size_t num_regions() const { return m_regions.size(); }

        // Boundary nodes of the body region, ordered by boundary_attr::index.
        std::vector<node_id> inputs() const; // INPUT and PARAM
        std::vector<node_id> outputs() const;

        // A fresh symbol id for a symbolic dim.
        std::int32_t new_symbol() { return m_next_symbol++; }
        std::int32_t num_symbols() const { return m_next_symbol; }
        void reserve_symbols(std::int32_t count);
        // The symbol for max(0, ?base - trim), one per (base, trim): slices that drop
        // the same number of elements of one symbolic dim have equal sizes
        // (u[1:-1], u[2:] and u[:-2] are all ?base - 2), so they broadcast together.
        // A trimmed symbol trimmed again folds into its base's trim.
        std::int32_t trimmed_symbol(std::int32_t base, std::int64_t trim);
        // The symbol trimmed_symbol() gave for this pair, if any (read-only users).
        std::optional<std::int32_t> find_trimmed_symbol(std::int32_t base, std::int64_t trim) const;

        // Low-level construction; the builder is the friendly way.
        region_id add_region(const std::vector<value_type>& arg_types);
        // One more argument of region `r` (a LOOP body that learns a carried
        // value while its trip is built); before its op is created.
        value_id add_region_arg(region_id r, value_type type);
        // Creates the node and its outputs; inserts it in `r` before position `pos`
        // (pos == size appends). Regions listed in `regions` get this node as parent.
        node_id add_node(op code, std::vector<value_id> inputs,
                         const std::vector<value_type>& output_types, attribute attr,
                         std::vector<region_id> regions, region_id r, std::size_t pos);

        // Mutation for passes.
        void replace_all_uses(value_id from, value_id to);
        void erase_node(node_id n); // detaches from its region; outputs must be unused
        // Position of n in its parent region's node list.
        std::size_t position(node_id n) const;

        // Every live node, regions visited in pre-order (a node before the nodes of its
        // regions), each region in program order.
        std::vector<node_id> walk() const;
        // Readers of every value (indexed by value id): operands of live nodes in
        // every region, and region results (a value handed back to its parent).
        std::vector<int> count_uses() const;
        // Regions nested (transitively) inside node n's regions, including them.
        bool is_ancestor_region(region_id outer, region_id inner) const;

    private:
        friend class module;
        value_id add_value(value_type type, node_id def, region_id r, std::uint32_t index);

        std::string m_name;
        const module* p_module = nullptr;
        std::vector<value> m_values;
        std::vector<node> m_nodes;
        std::vector<region> m_regions;
        std::int32_t m_next_symbol = 0;
        std::map<std::pair<std::int32_t, std::int64_t>, std::int32_t>
            m_trimmed; // (root, trim) -> symbol
        std::map<std::int32_t, std::pair<std::int32_t, std::int64_t>>
            m_trim_of; // symbol -> (root, trim)
    };

    // Named graphs; CALL nodes name their callee here. Graphs have stable addresses.
    class module
    {
    public:
        module() = default;
        module(const module&) = delete;
        module& operator=(const module&) = delete;
        // Moving re-points each graph's parent_module() at the new module.
        module(module&& other) noexcept;
        module& operator=(module&& other) noexcept;

        // Creates (or returns the existing) graph with this name.
        graph& add_graph(const std::string& name);
        graph* find(const std::string& name);
        const graph* find(const std::string& name) const;
        std::vector<std::string> names() const; // sorted

    private:
        std::map<std::string, std::unique_ptr<graph>> m_graphs;
    };
} // namespace specula::ir
