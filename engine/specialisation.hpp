// One compiled version of a region: the graph, its executable, the sources it
// reads, the guards it was built under, the effects to commit and how to build
// the return value. Built by the converter, run by the runner.
#pragma once

#include <pybind11/pybind11.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backends/executable.hpp"
#include "engine/cost_verdict.hpp"
#include "engine/guards.hpp"
#include "engine/sources.hpp"
#include "engine/tree_inputs.hpp"
#include "ir/graph.hpp"

namespace specula::engine
{
    namespace py = pybind11;

    // How a graph value shows up in Python.
    enum class surface
    {
        ndarray,   // a new array
        np_scalar, // a NumPy scalar (0-d result of a ufunc or reduction)
        py_float,  // a Python float (Python float arithmetic)
        py_bool,   // a Python bool
        py_int,    // a Python int (int64 in the graph, range-checked at conversion)
    };

    struct value_plan
    {
        enum class kind
        {
            output,   // graph output `index`, materialised once per call
            constant, // `constant` itself
            source,   // the resolved source `index` (identity preserved)
            tuple,    // a tuple of `items`
            dict,     // a new dict: keys from the tuple `constant`, values `items`
            list,     // a new list of `items`; `index` >= 0: one object per run for that index
            // NumPy's view of items[0] made by `constant` = (attribute, args
            // or None) (write_buffer.hpp, make_view): one object per run for `index`
            view,
            // The object iteration j of a chunk computed for chunk row `index`
            // (specialisation::chunk_rows): replayed effects only.
            row,
            // An f-string: `constant` = its parts, literal strs and (item,
            // conversion, spec) tuples formatting items[item] (formatted_text.hpp)
            format,
        };
        kind k = kind::constant;
        int index = -1;
        py::object constant;
        std::vector<value_plan> items;
    };

    struct effect_plan
    {
        enum class kind
        {
            set_global, // globals[key] = value
            set_attr,   // setattr(source target, key, value)
            set_item,   // source target[key] = value
            // source target[i] = value, i computed by `index` from the
            // sources (a loop counter's `hs[t + 1] = v`)
            set_computed_item,
            array_write, // copy value (an output) into the array of source target
            // source target[key] = value (an output): a slice assignment into
            // a user's array whose graph computes only the slice (sunk_slices.hpp)
            slice_write,
            list_append, // source target.append(value)
            print,       // print(*args, sep=sep, end=end)
            tree_attrs,  // the node attributes of tree plan `target` (tree_commit.hpp)
        };
        kind k = kind::print;
        int target = -1;
        py::object key;
        int_expr_ptr index; // set_computed_item
        value_plan value;
        std::vector<value_plan> args;
        py::object sep;
        py::object end;
        // A graph output (a Python bool): the effect is committed only when
        // it holds (the path past a cell loop's `break` on data, cell_exits.cpp).
        int when = -1;
    };

    // A value a chunk's trips compute for their effects (converter/
    // chunk_effects.cpp): output `output` stacks it, row j for iteration j.
    // At the last iteration the object is output `last` (the name the value
    // stays bound to after the loop) when set, as CPython's one object.
    struct chunk_row
    {
        int output = -1;
        surface surf = surface::ndarray;
        int last = -1;
    };

    // A graph input fed from a source: an array (zero-copy) or a Python float.
    struct graph_input
    {
        int src = -1;
        bool py_float = false;
        bool py_int = false; // a relaxed Python int, fed as int64
        // A NumPy scalar (np.float64(...), x.sum() kept from an earlier call),
        // fed as a 0-d input of `scalar_elem` read out of the scalar object.
        bool np_scalar = false;
        ir::dtype scalar_elem = ir::dtype::float64;
        // Recursion over a tree (tree_inputs.hpp): table `tree_table` of the
        // walk of plan `tree`, or its node count when `tree_count`.
        int tree = -1;
        int tree_table = -1;
        bool tree_count = false;
    };

    // What the runner keeps from one run to the next (run_inputs.cpp): the
    // layouts of the array inputs and of the result arrays, so a steady run
    // allocates none.
    struct run_layouts
    {
        std::vector<backends::layout_ref> inputs; // per graph input
        bool outputs_made = false;
        bool outputs_static = false; // every output's type is static
        std::vector<backends::executable::output_layout> outputs;
        std::vector<backends::layout_ref> destinations; // per output
    };

    struct specialisation
    {
        std::unique_ptr<ir::module> module;
        std::unique_ptr<backends::executable> exe;
        source_table sources;
        guard_set guards;
        std::vector<graph_input> inputs;
        std::vector<surface> outputs;
        std::vector<effect_plan> effects;
        // A chunk's per-iteration effects (appends, prints), committed once
        // per iteration in order before `effects`; the trip count is the
        // value of source `chunk_trips`, or, for a `while` loop's chunk, of
        // output `chunk_trips_output` (the trips that ran).
        std::vector<effect_plan> trip_effects;
        std::vector<chunk_row> chunk_rows;
        int chunk_trips = -1;
        int chunk_trips_output = -1;
        value_plan result;
        std::vector<std::string> exit_reasons; // per assert exit id
        std::map<std::uint32_t, std::int64_t> exit_failures;
        // Assert exits that check a profiled branch side or trip count: exit
        // id -> the statement's "file:line" in the profile.
        std::map<std::uint32_t, std::string> exit_branches;
        // Set when this entry only remembers "these guards lead to a construct
        // the converter cannot handle": run CPython without trying again.
        bool fallback_only = false;
        // Its graph holds float32 values, whose kernels the numerics mode
        // picks: changing the mode drops it.
        bool numerics_dependent = false;
        std::string fallback_reason;
        // The recursions over trees of Python objects the graph runs: the
        // function's own, or one per call site of a caller (in program order).
        std::vector<std::shared_ptr<tree_plan>> trees;
        std::int64_t runs = 0;
        // Its own cost verdict (graph or CPython in this situation), shared
        // with the region while a CPython call of its situation is timed.
        std::shared_ptr<spec_cost> cost = std::make_shared<spec_cost>();
        py::object globals; // the function's globals dict it was built for
        mutable run_layouts layouts;
    };
} // namespace specula::engine
