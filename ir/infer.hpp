// Type rules: the dtype and shape of each op's outputs from its inputs and attribute.
// Used by the builder for every node it creates and by the infer_types pass.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "ir/attrs.hpp"
#include "ir/graph.hpp"
#include "ir/status.hpp"

namespace specula::ir
{
    struct infer_request
    {
        op code = op::CONSTANT;
        std::vector<value_type> inputs;
        const attribute* attr = nullptr;
        // IF: results of {then, else}; LOOP: {body results}.
        std::vector<std::vector<value_type>> region_results;
        // LOOP: the body's argument types; CALL: the callee's output types.
        std::vector<value_type> extra;
        // Allocates a symbol for a data-dependent dim (MASK_SELECT).
        std::function<std::int32_t()> fresh_symbol;
        // The symbol for max(0, ?base - trim) (graph::trimmed_symbol); when unset,
        // such slices get fresh symbols.
        std::function<std::int32_t(std::int32_t base, std::int64_t trim)> trimmed_symbol;
    };

    result<std::vector<value_type>> infer_output_types(const infer_request& request);

    // The result dtype of an elementwise op (NumPy's ufunc loop selection) for input
    // dtypes already promoted as arrays. Empty when NumPy has no loop (e.g. bitwise on
    // floats, negative of bool) or the result dtype is unsupported (float16, uint64).
    std::optional<dtype> elementwise_dtype(op code, const std::vector<dtype>& inputs);

    // The result dtype of a reduction of `in` (sum of int8 is int64, mean of int is
    // float64, ...). Empty when unsupported (sum of uint8 is uint64 in NumPy).
    std::optional<dtype> reduction_dtype(op code, dtype in);

    // Inference for a node already in a graph (reads its inputs' and regions' types).
    result<std::vector<value_type>> infer_node(graph& g, node_id n);
} // namespace specula::ir
