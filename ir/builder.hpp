// The friendly way to build graphs: one method per op, types inferred on the way.
//
// Errors are sticky: the first failure (bad types, wrong arity) is kept in status(),
// and that call and every later call returns no_id. Check ok() once at the end.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/graph.hpp"
#include "ir/status.hpp"

namespace specula::ir
{
    // The dtype a Python scalar operand `s` of binary op `code` takes against
    // `other` so that the IR op computes exactly what NumPy 1.24 computes:
    // np.result_type(other, s) with value-based casting, except where NumPy's
    // loop search leaves that dtype. The only such answers within the IR's
    // dtypes come from a uint8 operand against a Python int above 255:
    // comparisons, logical ops and DIV (exact on any type holding both) use
    // int32/int64; other ops but ADD/SUB/MUL/MAXIMUM/MINIMUM use int16, the
    // loop NumPy's search finds first (for values up to 32767).
    std::optional<dtype> python_scalar_dtype(op code, const promotion_operand& other,
                                             const promotion_operand& s);

    class builder
    {
    public:
        explicit builder(graph& g);
        builder(const builder&) = delete;
        builder& operator=(const builder&) = delete;

        graph& target() { return *p_graph; }
        bool ok() const { return m_status.ok(); }
        const status& state() const { return m_status; }

        // Insertion point: new nodes go at the end of a region, or before a node.
        void set_insertion_end(region_id r);
        void set_insertion_before(node_id n);
        region_id insertion_region() const { return m_region; }

        // Restores the insertion point when it goes out of scope.
        class insertion_guard
        {
        public:
            explicit insertion_guard(builder& b)
                : m_builder(b), m_region(b.m_region), m_before(b.m_before)
            {
            }
            ~insertion_guard()
            {
                m_builder.m_region = m_region;
                m_builder.m_before = m_before;
            }
            insertion_guard(const insertion_guard&) = delete;
            insertion_guard& operator=(const insertion_guard&) = delete;

        private:
            builder& m_builder;
            region_id m_region;
            node_id m_before;
        };

        // Boundary. Indices are assigned in call order (INPUT and PARAM share them).
        value_id input(const value_type& type, std::string name = {});
        value_id param(const value_type& type, std::string name = {});
        void output(value_id v, std::string name = {});

        value_id constant(const scalar& s);
        value_id constant(constant_attr data);
        // A Python scalar `s` (what: python_bool/int/float) as the operand of the
        // binary elementwise op `code` whose other operand is `other`, lowered as
        // NumPy 1.24 does: a 0-d CONSTANT of python_scalar_dtype(), so the op
        // computes in NumPy's loop dtype (`f32_array < 0.1` in float32,
        // `int8_array + 300` in int16). A 0-d `other` needs `other_value`
        // (promotion_operand::zero_dim_*): NumPy looks at its value too. Fails when
        // NumPy's answer is outside the IR's dtypes (uint8 + 300, int8 * 0.5).
        value_id python_scalar(op code, const promotion_operand& s, value_id other,
                               const std::optional<promotion_operand>& other_value = {});

        value_id unary(op code, value_id x);
        value_id binary(op code, value_id a, value_id b);
        value_id cast(value_id x, dtype to);
        value_id where(value_id cond, value_id a, value_id b);
        value_id clip(value_id x, value_id lo, value_id hi);

        value_id matmul(value_id a, value_id b);
        value_id dot(value_id a, value_id b);
        value_id outer(value_id a, value_id b);

        // Axes (and the axis of concatenate/stack/gather/shape_dim) are stored
        // normalised: non-negative and sorted. Over all axes (axis=None):
        value_id reduce_all(op code, value_id x, bool keepdims = false, std::int64_t ddof = 0);
        value_id reduce(op code, value_id x, std::vector<int> axes, bool keepdims = false,
                        std::int64_t ddof = 0);

        value_id reshape(value_id x, const shape& dims);
        value_id transpose(value_id x, std::vector<int> perm);
        value_id expand_dims(value_id x, std::vector<int> axes);
        value_id squeeze(value_id x, std::vector<int> axes = {});
        value_id broadcast_to(value_id x, const shape& dims);
        value_id concatenate(const std::vector<value_id>& xs, int axis);
        value_id stack(const std::vector<value_id>& xs, int axis);
        value_id slice(value_id x, std::vector<slice_item> items);

        value_id gather(value_id x, value_id indices, int axis);
        value_id mask_select(value_id x, value_id mask);
        value_id slice_update(value_id x, value_id v, std::vector<slice_item> items);
        value_id gather_update(value_id x, value_id indices, value_id v, int axis);
        value_id mask_update(value_id x, value_id mask, value_id v);

        value_id fill(value_id x, value_id v);
        value_id zeros(const shape& dims, dtype elem);
        value_id ones(const shape& dims, dtype elem);
        value_id full(const shape& dims, dtype elem, const scalar& v);
        value_id arange(const scalar& start, const scalar& step, std::int64_t count, dtype elem);
        value_id eye(std::int64_t rows, std::int64_t cols, std::int64_t k, dtype elem);
        value_id shape_dim(value_id x, int axis);

        void assert_true(value_id cond, std::uint32_t exit_id, std::string reason);

        // Control flow. Build a region's body with the insertion point inside it, give
        // it results, then create the op with the insertion point back outside.
        region_id new_region(const std::vector<value_type>& arg_types = {});
        value_id arg(region_id r, int index) const;
        // An argument added to a region not yet given to its op.
        value_id add_arg(region_id r, const value_type& type);
        void set_results(region_id r, std::vector<value_id> results);
        std::vector<value_id> if_else(value_id cond, region_id then_region, region_id else_region);
        // trip_count / cond may be no_id according to attr. The body's args are
        // (iteration int64[], carried...), its results ([cond_next] carried_next...).
        std::vector<value_id> loop(const loop_attr& attr, value_id trip_count, value_id cond,
                                   const std::vector<value_id>& init, region_id body);
        // Result types come from the callee when the module has it, else from
        // `result_types` (needed while a recursive callee is being built).
        std::vector<value_id> call(const std::string& callee, const std::vector<value_id>& args,
                                   std::optional<std::vector<value_type>> result_types = {});

        // Any op, with explicit output types (skips inference) or inferred ones.
        std::vector<value_id> create(op code, std::vector<value_id> inputs, attribute attr,
                                     std::vector<region_id> regions = {},
                                     std::optional<std::vector<value_type>> out_types = {});

    private:
        value_id single(std::vector<value_id> outs);
        std::vector<int> canonical_axes(value_id x, std::vector<int> axes) const;
        int canonical_axis(value_id x, int axis, int extra_rank) const;
        bool check_inputs(const std::vector<value_id>& inputs);
        void fail(std::string message);

        graph* p_graph;
        region_id m_region;
        node_id m_before = no_id; // insert before this node, or append when no_id
        int m_next_boundary_in = 0;
        int m_next_boundary_out = 0;
        status m_status;
    };
} // namespace specula::ir
