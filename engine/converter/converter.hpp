// Python AST -> IR for one function call, specialised to what the call sees
// (MLIR Toy style: one visitor class, one method per AST node kind, located
// diagnostics for anything outside the whitelist).
//
// Split over files by concern: converter.cpp (sources, values, finishing the
// graph), statements.cpp, expressions.cpp, numpy_calls.cpp and
// builtin_calls.cpp (the whitelist); the README lists the rest.
#pragma once

#include <pybind11/pybind11.h>

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/config.hpp"
#include "engine/converter/ast_nodes.hpp"
#include "engine/frame_hook.hpp"
#include "engine/int_expr.hpp"
#include "engine/loop_sequences.hpp"
#include "engine/profiler.hpp"
#include "engine/specialisation.hpp"
#include "engine/whitelist.hpp"
#include "ir/builder.hpp"

namespace specula::engine::converter
{
    namespace py = pybind11;

    // Thrown inside the visitor; convert() turns it into the diagnostic
    // "not convertible: <construct> at <file>:<line>".
    struct not_convertible : std::runtime_error
    {
        using std::runtime_error::runtime_error;
    };

    // An array the converted code holds. Several names may share one entry
    // (Python references); in-place updates change `value` for all of them.
    struct array_entry
    {
        ir::value_id value = ir::no_id;
        surface surf = surface::ndarray;
        int src = -1;     // the source array this entry *is* (writes become effects)
        int view_of = -1; // entry this one is a NumPy view of
        // How NumPy makes this view of view_of in Python: an attribute (`.T`,
        // view_args None) or a method called with view_args (`.transpose(1, 0)`).
        // Empty when not replayable. A view of an input array escaping is made
        // again this way at commit (escaping_views.cpp).
        std::string view_attr;
        py::object view_args;
        // The view made again from view_of's value (a slice, transpose or
        // reshape of it) after an in-place update of the memory they share
        // (escaping_views.cpp, refresh_views). Null where NumPy may have
        // copied instead (a reshape of a non-contiguous array): `stale` then
        // names the update, and a later read of the entry is refused.
        std::function<ir::value_id(ir::value_id)> remake;
        std::string stale;
        bool escaped = false; // stored, printed or returned: no in-place after this
        // Escaped only into global name bindings (cell mode): the object committed is the
        // entry's final value and nothing sees it before the commit, so an in-place
        // update after the binding stays exact (`logits = ...; logits -= m`).
        bool bound_only = false;
        // Bound before a cell loop's exit on data (cell_exits.cpp): fixed since.
        bool sealed = false;
        bool unwritten = false; // np.empty_like: no element may be read before a whole write
        std::vector<bool> rows_written; // np.empty_like filled row by row (empty_rows.cpp)
        // py_int: the values the graph may hold, so int arithmetic provably
        // stays within int64 (Python ints never wrap).
        std::int64_t int_lo = 0;
        std::int64_t int_hi = 0;
        // py_int/py_bool: the value as an expression of relaxed int sources
        // and literals (counter_values.cpp); null when it is not one.
        int_expr_ptr expr;
        // Inside a chunk's LOOP (chunk_slices.cpp): the value as an expression
        // of the loop's target (leaf source 0) and literals; null otherwise.
        int_expr_ptr chunk_expr;
    };

    // A converted Python value.
    struct cval
    {
        enum class kind
        {
            constant, // a Python value known at conversion (guarded or literal)
            array,    // arrays[arr]
            object,   // an object read from source `src` (module, function, plain object...)
            tuple,    // items
            dict,     // dicts[dict]: a dict built by the converted code
            tree,     // a node of the tree a recursion walks (recursion.cpp):
                      // arrays[arr] holds its post-order index
        };
        kind k = kind::constant;
        py::object obj; // constant: the value; object: the object seen at conversion
        int src = -1;
        int arr = -1;
        int dict = -1;
        // tuple kind with obj "list": the list the code built, lists[list]
        // (code_lists.cpp); -1 for a tuple
        int list = -1;
        std::vector<cval> items;
    };

    // A list the converted code builds (code_lists.cpp): its items as they
    // are now (values hold copies, updated on every append).
    struct code_list
    {
        std::vector<cval> items;
        size_t depth = 0;         // m_inlined.size() where it was built
        bool planned = false;     // reaches Python: its plan is filled at finish
        bool lazily_read = false; // by zip/enumerate/reversed: no append after
        bool sealed = false;      // planned before a cell loop's exit on data: no append after
        py::object where;         // the node where it reached Python
    };

    // A dict the converted code builds (containers.cpp): constant keys in
    // insertion order. Names share one entry, as Python references do.
    struct dict_entry
    {
        std::vector<py::object> keys;
        std::vector<cval> values;
        bool escaped = false; // returned or stored: its plan is fixed
    };

    // An item a run sets in a list or dict it reads from a source
    // (item_writes.cpp): a constant `key`, or an `index` the guards compute.
    struct item_write
    {
        py::object key;
        int_expr_ptr index;
        cval value;
        py::object source_object; // the container, as seen at conversion
    };

    // How an array index reads or writes elements (indexing.cpp).
    struct index_plan
    {
        enum class kind
        {
            basic,   // `items`: specialised ints, slices, None (a NumPy view)
            mask,    // x[mask] with one bool array
            integer, // x[i0, i1...]: int arrays or changing Python ints
        };
        kind k = kind::basic;
        std::vector<ir::slice_item> items;
        bool element = false; // basic: an int for every axis
        ir::value_id mask = ir::no_id;
        ir::value_id flat = ir::no_id; // integer: index into the leading `axes` axes, flattened
        int axes = 0;
        bool scalar_ints = false; // integer: Python ints only (NumPy's basic indexing)
        int axis = 0; // integer: after this many full slices (x[:, i]), one index, no flattening
    };

    // NumPy's memory order of an array the converted code holds, as far as
    // it decides results: reductions add in memory order, and elementwise
    // results take their operands' order (order='K').
    enum class layout
    {
        contiguous, // C-contiguous
        c_like,     // a view whose strides are positive and in C order
        other,      // transposed, negative steps, an input that is not C-contiguous...
    };

    // The operand lists to try when some operands' values are known only at
    // run time (promotion.cpp): a result type is trusted only when NumPy 1.24's
    // value-based promotion gives the same for every list.
    std::vector<std::vector<ir::promotion_operand>>
    promotion_variants(const std::vector<ir::promotion_operand>& known,
                       const std::vector<std::pair<size_t, ir::promotion_operand>>& unknown);

    // The range a relaxed Python int is guarded to: sums and products of a
    // few such values provably stay inside int64.
    inline constexpr std::int64_t relaxed_int_lo = -(std::int64_t{1} << 31);
    inline constexpr std::int64_t relaxed_int_hi = (std::int64_t{1} << 31) - 1;

    // What probe conversions of a recursion learned before the real one:
    // the type a call returns and the attributes it sets on its node (the
    // loop's tables need their types before the body is converted).
    struct tree_knowledge
    {
        bool returns_none = false; // no `return <value>` in the function
        ir::value_type row;        // the type a call returns (from the base case)
        bool row_known = false;
        struct attr
        {
            std::string name;
            ir::value_type type;
            std::string view_path; // a path stores a row view of this source (`L[word]`)
        };
        std::vector<attr> attrs; // in the order first met
        // Attributes every path of the body sets (from the last probe): a
        // child's row of those needs no "was it set" check.
        std::set<std::string> always_set;
        const attr* find(const std::string& name) const;
    };

    // Thrown out of a probe conversion that learned something.
    struct tree_learned
    {
        tree_knowledge known;
    };

    // Thrown out of a probe conversion that converted the recursion's body
    // to its end: the attributes some path of it leaves unset.
    struct tree_probe_done
    {
        std::set<std::string> maybe_unset;
    };

    // A recursion a caller ran (tree_calls.cpp), as the caller's code after
    // the call sees it: the attributes it set on the nodes, and the tables
    // whose root row holds the root's.
    struct tree_site
    {
        int root_src = -1;
        py::object node_class;
        std::shared_ptr<tree_plan> plan;
        std::vector<std::string> reads; // fields, children and methods its walk reads
        struct written
        {
            std::string name;
            ir::value_id values = ir::no_id; // loop outputs: (nodes, *shape)
            ir::value_id tags = ir::no_id;
            bool always_set = false;
        };
        std::vector<written> writes;
        ir::value_id root_index = ir::no_id; // the root's row: the last in post-order
    };

    // Converting a function that recurses over a tree of Python objects
    // (recursion.cpp): its body becomes the body of an IR LOOP over the
    // nodes in post-order, carrying the table of per-node results.
    struct tree_state
    {
        std::shared_ptr<tree_plan> plan;
        int plan_index = -1;  // in the specialisation's `trees`
        bool probing = false; // a throw-away conversion learning types (tree_knowledge)
        // The recursive function, the inlining depth its body is converted
        // at (0: the function converted itself) and the root node's object.
        PyCodeObject* code = nullptr;
        size_t depth = 0;
        PyObject* root_obj = nullptr;
        // A caller's call site (tree_calls.cpp): its index among the sites
        // (-1: the function converted itself), whether its types are known
        // from an earlier probe, and what the caller's code after it reads.
        int site = -1;
        bool learned = false;
        tree_site info;
        tree_knowledge known;
        ir::value_id node = ir::no_id; // loop arg: the post-order index of the current node
        // Per attribute set on nodes (tree_writes.cpp): loop args, the
        // (nodes, *shape) values and the int64 tags (tree_attr_write).
        std::map<std::string, std::pair<ir::value_id, ir::value_id>> attr_tables;
        std::map<std::string, std::pair<int, std::int64_t>>
            view_src;                         // attribute -> (source, rows) of its views
        std::vector<std::string> path_writes; // set so far on some path to here (for order)
        std::set<std::string> path_sure;      // set so far on every path to here
        std::set<std::string> maybe_unset;    // not set on some path that ends the body
        std::set<std::pair<std::string, std::string>> before; // (a, b): a set before b on a path
        // tree_tables.cpp: the loop body, the current node's table entries
        // gathered at its top, int64 constants, checks asserted per region.
        ir::region_id body = ir::no_id;
        std::map<std::pair<ir::value_id, ir::region_id>, ir::value_id> gathered; // (table, region)
        std::map<std::int64_t, ir::value_id> ints;
        std::set<std::pair<std::string, ir::region_id>> asserted;
        std::int32_t symbol = -1; // the node count's symbolic dim
        ir::value_id count = ir::no_id;
        ir::value_id results = ir::no_id;         // loop arg: one row per node
        ir::value_id aliases = ir::no_id;         // loop arg: the node's result is a view or input
        std::map<int, ir::value_id> alias_of;     // array entry of a call's result -> its flag
        std::map<int, ir::value_id> table_values; // plan table -> graph input
    };

    // What a recursion's body may not change in the converted code around
    // it (tree_calls.cpp): its body runs once per node, converted once.
    struct outer_snapshot
    {
        size_t effects = 0;
        size_t heap_writes = 0;
        size_t item_writes = 0;
        size_t written_sources = 0;
        std::vector<ir::value_id> arrays; // each entry's value
        std::vector<dict_entry> dicts;
    };

    struct call_args
    {
        std::vector<cval> positional;
        std::map<std::string, cval> keywords;
        std::vector<std::pair<std::string, cval>> keyword_order; // as written in the call
        bool is_call = true; // false for a plain attribute read (x.T, x.shape)
    };

    // A Python function, or an instance of a plain class (called through
    // its class's __call__): what calls.cpp may inline. Borrowed `o`.
    bool python_callable(PyObject* o);

    // A loop inside a function (function_loop.cpp): `locals` are the
    // function's locals the loop mentions, in the order of the values the
    // frame view's `locals` holds; `globals` every other name it mentions;
    // `bound` the names its body binds.
    struct function_loop_scope
    {
        std::vector<std::string> names;
        std::vector<std::string> locals;
        std::vector<std::string> globals;
        std::vector<std::string> bound;
    };

    // The code of an empty module (cell_body.cpp): no locals, no free
    // variables, so a name the converted code does not assign resolves as a
    // global. Borrowed; created once and never freed (null with a Python
    // error on failure).
    PyCodeObject* module_level_code();

    // A chunk of a stable `for` loop over a range (loop_chunk.cpp): `target`
    // the loop's name, `names` every name the body mentions, `bound` the ones
    // it binds; a loop in a function (`in_function`) also splits them into
    // its `locals` (the frame view's `locals`, in this order) and `globals`.
    // An item of a list or tuple named by a global or a loop local
    // (`params[0]`), an array a chunk's body updates in place
    // (chunk_items.cpp).
    struct chunk_item_source
    {
        std::string container;
        Py_ssize_t index = 0;
        bool operator==(const chunk_item_source& o) const
        {
            return container == o.container && index == o.index;
        }
    };

    struct loop_chunk_scope
    {
        std::string file;
        std::string target;
        std::vector<std::string> names;
        std::vector<std::string> bound;
        bool in_function = false;
        std::vector<std::string> locals;
        std::vector<std::string> globals;
        // A loop over a list or tuple: what its items are, one per name of a
        // tuple target (`parts`, in order; empty for one name): the frame
        // view's locals after the step and the effect rows are their stacks
        // (chunk_sequences.cpp). Empty for a range.
        std::vector<sequence_items> items;
        std::vector<std::string> parts;
        // A `while` loop's test (while_chunk.cpp): the LOOP's condition,
        // evaluated after every trip; `target` is then empty. Null for `for`.
        py::object while_test;
        // Arrays the body updates in place through a list's or tuple's items,
        // carried by source (chunk_items.cpp): found by a first conversion.
        std::vector<chunk_item_source> item_sources;
    };

    // A first-axis slice of an array carried by a chunk whose bounds the
    // loop's target computes (`X[i:i + bs]`, chunk_slices.cpp). The graph
    // reads `length` rows from the raw start, which is NumPy's slice only
    // while 0 <= start <= size and the clipped slice has `length` rows: the
    // engine checks that for every iteration of a chunk before its run (leaf
    // source 0 of `start`/`stop` = the target's value; null: absent bound).
    struct chunk_slice_check
    {
        int_expr_ptr start;
        int_expr_ptr stop;
        std::int64_t size = 0;
        std::int64_t length = 0;
    };

    // Whether NumPy's slice at this value of the target is the rows the
    // chunk's graph reads (chunk_slices.cpp).
    bool chunk_slice_holds(const chunk_slice_check& c, PyObject* target);

    // What the engine must respect when it sizes a chunk: a multiple of
    // `period` iterations (names trading arrays, chunk_swaps.cpp), each one
    // passing the `slices` checks.
    struct loop_chunk_plan
    {
        std::int64_t period = 1;
        std::vector<chunk_slice_check> slices;
        // A refused conversion's in-place updates of items (chunk_items.cpp):
        // the engine converts again with them carried by source.
        std::vector<chunk_item_source> item_writes;
    };

    // A name a loop converted as an IR LOOP carries (loop_carried_names.cpp):
    // its value before the loop (`init`; entry `orig`, -1 for a Python
    // number constant) and the loop argument (`arg`, entry `fresh`) the body
    // sees.
    struct carried_slot
    {
        std::string name;
        ir::value_id init = ir::no_id;
        ir::value_id arg = ir::no_id;
        surface surf = surface::ndarray;
        int orig = -1;
        int fresh = -1;
        bool in_place = false; // updated in place through the name, never rebound
        int source = -1;       // an item carried by source: its source (chunk_items.cpp)
        // The body names `orig` itself (the name is only updated in place):
        // its other names, views and source see each trip's updates. The
        // first such slot of an entry holds the entry's source while the
        // body runs (`orig_src`; -1 in the others).
        bool shares_object = false;
        int orig_src = -1;
    };

    // One loop being built as an IR LOOP (loop_carried_names.cpp): what its
    // refusals call it, what it may carry, its slots, and the state a trip
    // must leave unchanged.
    struct carried_loop
    {
        std::string what;           // "a while loop converted as an IR loop"...
        bool python_ints = false;   // bools and Python ints carried (range asserted)
        bool known_layouts = false; // arguments laid out as their initial values
        std::vector<carried_slot> slots;
        size_t effects = 0;
        size_t heap_writes = 0;
        std::vector<dict_entry> dicts;
        std::vector<ir::value_id> values; // every array entry's value before the loop
        // Names the body binds by augmented assignment only (range and while
        // loops): an array's object stays theirs (shares_object).
        std::set<std::string> augmented_only;
    };

    class converter
    {
    public:
        converter(const frame_hook::frame_view& frame, const profile& prof, const whitelist& wl,
                  const config& cfg);
        converter(const converter&) = delete;
        converter& operator=(const converter&) = delete;

        // A compiled specialisation, or nullptr with `diagnostic` set. When the
        // failure depends on what this call saw, `guards_so_far` holds the
        // guards that describe it (for a fallback-only cache entry).
        std::shared_ptr<specialisation> convert(std::string& diagnostic);
        // cell_body.cpp: one iteration of a loop at a cell's module level
        // (`body` its statements, `names` every name they mention); the
        // result is True when the iteration takes a `break`.
        std::shared_ptr<specialisation> convert_cell_body(py::handle body, const std::string& file,
                                                          const std::vector<std::string>& names,
                                                          std::string& diagnostic);

        // function_loop.cpp: one iteration of a loop inside a running
        // function (on-stack replacement); the result is the tuple
        // (broke, names of the locals it rebound, their values...).
        std::shared_ptr<specialisation> convert_function_loop(py::handle body,
                                                              const function_loop_scope& scope,
                                                              std::string& diagnostic);

        // loop_chunk.cpp: the next iterations of a stable loop as one IR LOOP;
        // the frame view's `locals` end with the chunk's start, trip count
        // and step. The result is False (cell loops) or, in a function,
        // (False, names of the locals rebound, their values...). `plan`: how
        // the engine may size the chunks of this graph.
        std::shared_ptr<specialisation> convert_loop_chunk(py::handle body,
                                                           const loop_chunk_scope& scope,
                                                           std::string& diagnostic,
                                                           loop_chunk_plan& plan);

        // The specialisation as far as conversion got (its guards describe the
        // situation a failure depends on).
        std::shared_ptr<specialisation> partial() const { return m_spec; }
        // The conversion failed for this call's situation only (written
        // arrays overlapping others): calls in other situations may convert.
        bool situational() const { return m_situational; }

        // Friends for the per-file visitors.
        [[noreturn]] void fail(const std::string& construct, py::handle node) const;

    private:
        // Runs one conversion: a not_convertible or a Python error becomes the
        // diagnostic (and nullptr); the user's KeyboardInterrupt propagates.
        std::shared_ptr<specialisation> guarded(const std::function<void()>& convert_body,
                                                std::string& diagnostic);

        // converter.cpp: sources and values
        cval read_source(int src, PyObject* object);
        cval read_global(const std::string& name, py::handle node);
        cval read_attribute(const cval& obj, const std::string& name, py::handle node);
        cval array_input(int src, PyObject* array, py::handle node);
        cval new_array(ir::value_id v, surface s, int view_of = -1);
        ir::value_id value_of(const cval& v, py::handle node);
        const ir::value_type& type_of(ir::value_id v) const;
        // `identity_visible`: the object itself reaches Python (returned or
        // stored), not only its text (print).
        value_plan plan_of(const cval& v, py::handle node, bool identity_visible = true);
        // escaping_views.cpp: the plan of a view of an input array made again
        // from the user's array at commit; false when a step is not replayable.
        bool input_view_plan(int arr, value_plan& out) const;
        // escaping_views.cpp: a view of entry `of` that `remake` makes again
        // from a new value of it; after `arr` took a new value in place, its
        // views (and theirs) made again; a stale view refused where read.
        cval new_view(ir::value_id v, surface s, int of,
                      std::function<ir::value_id(ir::value_id)> remake);
        void refresh_views(int arr, py::handle node);
        void check_fresh(const array_entry& e, py::handle node) const;
        // name_bindings.cpp: plan_of for a value bound to a global name.
        value_plan plan_of_binding(const cval& v, py::handle node);
        int output_of(int arr);
        void finish_graph();
        void add_alias_guards();
        void refuse_overlapping_writes();
        std::string where(py::handle node) const;

        // layout.cpp
        layout layout_of(ir::value_id v);
        // The order a converter step knows for `v` (not derivable from its node).
        void note_layout(ir::value_id v, layout l);
        // NumPy's order of a LOOP's outputs: its trips' fixed point.
        void loop_layouts(const ir::node& loop);
        std::vector<layout> trip_layouts(const ir::node& loop, const std::vector<layout>& assumed);
        void check_escape_layout(const array_entry& e, py::handle node);
        void check_reduction_order(ir::op code, ir::value_id v, py::handle node);
        bool strides_match(ir::value_id v);
        void check_product_operands(ir::value_id a, ir::value_id b, py::handle node);
        ir::value_id matrix_product(bool is_dot, ir::value_id a, ir::value_id b, py::handle node);
        ir::value_id product_of(bool is_dot, ir::value_id a, ir::value_id b, py::handle node);
        ir::value_id transposed_source(ir::value_id v);
        // transposed_elementwise.cpp: `lr * X.T` as NumPy lays it out.
        ir::value_id elementwise_binary(ir::op code, ir::value_id a, ir::value_id b);
        int add_assert(ir::value_id cond, const std::string& why);

        // statements.cpp
        void visit_body(py::handle statements);
        void visit_stmt(py::handle node);
        void visit_assign(py::handle node);
        void visit_aug_assign(py::handle node);
        void visit_expr_stmt(py::handle node);
        void visit_return(py::handle node);
        void visit_if(py::handle node);
        void visit_for(py::handle node);
        void visit_assert(py::handle node);
        void assign_to(py::handle target, const cval& value);
        void assign_subscript(py::handle target, const cval& value);
        void write_array(int arr, ir::value_id v, py::handle node);
        // statements.cpp: an in-place operator's result cast into its target (same_kind).
        ir::value_id cast_for_in_place(const cval& target, ir::value_id updated, py::handle node);
        void visit_print(const call_args& args, py::handle node);
        // print_format.cpp: print with f-strings, formatted at commit
        void visit_print_call(py::handle call);
        value_plan format_plan(py::handle joined);
        py::object format_sample(const cval& v, py::handle node);
        std::vector<cval> iteration_items(py::handle iter, cval& seq);
        bool is_range_call(py::handle iter);
        std::vector<cval> sequence_items(const cval& seq, py::handle node);

        // expressions.cpp
        cval visit_expr(py::handle node);
        cval visit_name(py::handle node);
        cval visit_binop(py::handle node);
        cval visit_unaryop(py::handle node);
        cval visit_compare(py::handle node);
        cval visit_boolop(py::handle node);
        cval visit_subscript(py::handle node);
        cval read_item(const cval& container, const py::object& key, py::handle node);
        cval visit_call(py::handle node);
        call_args visit_args(py::handle node);
        cval binary(ir::op code, const cval& a, const cval& b, py::handle node);
        // power.cpp: the `**` operator, which NumPy serves differently from np.power
        cval power_operator(const cval& a, const cval& b, bool in_place, py::handle node);
        cval fold(py::handle node, const cval& a, const cval& b, const char* op);
        cval python_int_binary(ir::op code, const cval& a, const cval& b, py::handle node);
        // counter_values.cpp: relaxed ints whose values the guards compute
        int_expr_ptr int_expr_of(const cval& v) const;
        cval with_int_expr(cval out, ir::op code, const cval& a, const cval& b);
        cval read_computed_item(const cval& container, const cval& key, py::handle node);
        // computed_slices.cpp
        PyObject* seen_source(int src, owned_refs& owned);
        bool read_computed_slice(const cval& container, py::handle index, py::handle node,
                                 cval& out);
        bool read_computed_row(const cval& container, py::handle index, cval& out);
        // The outcome of an `if` on a relaxed int in a loop region, decided
        // under a guard (`known` false when it is not such a branch).
        bool counter_branch(const cval& test, bool& known);
        // Whether this run appends to the list source `src` (a buffered
        // append the object seen at conversion does not show yet).
        bool appended_in_this_run(int src) const;
        // counter_logic.cpp: `and` / `or` from operand `next` on (after the
        // first non-constant one, `first`) and `not`, on such values
        bool counter_truth(const cval& v, ir::value_id& value, int_expr_ptr& expr, py::handle node);
        cval counter_boolop(bool is_and, const cval& first, py::handle operands, size_t next,
                            py::handle node);
        cval counter_not(const cval& x, py::handle node);
        // int_division.cpp: `%` and `//` on Python ints of known ranges, with
        // Python's sign rules and ZeroDivisionError as an exit
        cval python_int_division(ir::op code, const ir::value_id* v, const std::int64_t* lo,
                                 const std::int64_t* hi, py::handle node);
        ir::value_id as_float64(const cval& v, py::handle node);
        bool is_python_scalar(const cval& v) const;

        // calls.cpp: Python functions, methods and property getters inlined,
        // free variables read through their cells
        cval read_name(const std::string& name, py::handle node);
        cval call_python(const cval& fn, const call_args& args, py::handle node,
                         const cval* self = nullptr);
        cval call_attribute(const cval& self, const std::string& name, py::handle node);
        cval call_value(const cval& fn, py::handle node);
        bool read_property(const cval& obj, const std::string& name, py::handle node, cval& out);
        cval raw_attribute(const cval& obj, const char* name, bool identity, py::handle node);
        cval object_at(int src, PyObject* value, bool first_read, const std::string& path);
        std::vector<cval> bind_arguments(const cval& fn, PyCodeObject* code, call_args args,
                                         py::handle node);
        cval inline_body(const cval& fn, PyCodeObject* code, std::vector<cval> arguments);
        cval read_free_var(const std::string& name, int index, py::handle node);
        // function_loop.cpp: a local of the function whose loop is converted,
        // read from the frame (false for any other name).
        bool read_loop_local(const std::string& name, cval& out);
        py::object parsed_body(PyCodeObject* code, int& first_line);
        py::object parsed_def(PyCodeObject* code, int& first_line);
        // The callee's scope around `body` (inline_body and recursion_call).
        cval in_callee_scope(const cval& fn, PyCodeObject* code, std::vector<cval> arguments,
                             const std::function<void(py::handle statements)>& body);

        // chunk_sequences.cpp
        cval chunk_items(int index, engine::sequence_items kind, py::handle node);
        cval chunk_item(const cval& items, ir::value_id counter, engine::sequence_items kind);

        // loop_chunk.cpp
        cval chunk_range_target(const cval& start, ir::value_id counter, long long step_value,
                                const loop_chunk_scope& scope);
        void build_loop_chunk(py::handle body, const loop_chunk_scope& scope,
                              loop_chunk_plan& plan);
        PyObject* chunk_name_object(const std::string& name) const;
        cval chunk_initial(const std::string& name, const loop_chunk_scope& scope, py::handle node,
                           bool& carried);
        cval chunk_parameter(int index, const char* path, bool relaxed, int& src);
        void chunk_trip(const py::list& statements, const carried_loop& loop);
        // chunk_swaps.cpp: names trading arrays; the permutation's order
        std::int64_t chunk_swaps(carried_loop& loop, std::vector<ir::value_id>& results,
                                 const std::function<py::handle(const std::string&)>& at);
        // while_chunk.cpp: a `while` loop's test and trip count in a chunk
        void check_chunk_while_test(py::handle test);
        bool numpy_function(py::handle func) const;
        bool array_receiver(py::handle node);
        bool python_number(py::handle node) const;
        bool shadowed(py::handle name) const;
        ir::value_id chunk_while_next(py::handle test);
        void carry_chunk_trips(ir::region_id region, std::vector<ir::value_id>& init,
                               std::vector<ir::value_id>& results);
        cval chunk_trips_value(ir::value_id out);
        void finish_loop_chunk(const loop_chunk_scope& scope,
                               const std::vector<carried_slot>& slots,
                               const std::vector<bool>& rebound,
                               const std::vector<ir::value_id>& outs, py::handle node,
                               const cval* trips = nullptr);
        // chunk_slices.cpp: slices of carried arrays computed from the target
        int_expr_ptr chunk_expr_of(const cval& v) const;
        bool chunk_slice(const cval& container, const cval& lo, const cval& hi, py::handle index,
                         py::handle node, cval& out);
        std::vector<int> settle_chunk_views(const carried_loop& loop, const loop_chunk_scope& scope,
                                            py::handle node);
        cval chunk_view_after(int view, py::handle node);
        // chunk_effects.cpp: a chunk's per-iteration appends and prints, their
        // values stacked one row per trip
        value_plan chunk_row_plan(int arr, py::handle node, bool identity_visible);
        bool chunk_trip_effects(const carried_loop& loop, py::handle node);
        void stack_chunk_rows(const carried_loop& loop, ir::region_id region,
                              std::vector<ir::value_id>& init, std::vector<ir::value_id>& results,
                              const std::vector<bool>& rebound, py::handle node);
        ir::value_id chunk_rows_input(py::handle node);
        void finish_chunk_rows(const std::vector<ir::value_id>& outs, size_t first);
        void chunk_row_final(size_t slot, const cval& now);
        // chunk_items.cpp: arrays updated in place through list items
        void note_chunk_item_write(int src);
        bool note_chunk_item(int src);
        void note_chunk_item_names(const loop_chunk_scope& scope);
        carried_slot carry_item_source(const carried_loop& loop, const chunk_item_source& item,
                                       const loop_chunk_scope& scope, py::handle node);
        bool chunk_item_alias(const std::string& name, PyObject* now, const carried_loop& loop);
        void bind_chunk_aliases(const carried_loop& loop);
        void check_chunk_aliases(const carried_loop& loop, py::handle node);

        // recursion.cpp: recursion over tree objects
        bool calls_itself(py::handle fdef) const;
        void convert_recursion(py::handle fdef);
        // The recursion's LOOP in the graph being built, from the root `root`
        // (a source's object); the parameters after the node are bound in
        // m_locals. Gives the root's result (None when it returns none).
        cval build_recursion(py::handle fdef, PyCodeObject* code, const cval& root,
                             const std::string& node_param);
        // converter.cpp: the function's own body (convert() and the probes
        // of a recursion it calls)
        void convert_function_body(py::handle fdef);
        // tree_calls.cpp: a recursion called by the converted function
        bool recursion_call(const cval& fn, PyCodeObject* code, std::vector<cval>& arguments,
                            py::handle node, cval& out);
        void check_site_effects(const tree_site& site, size_t effects_before, py::handle node);
        bool tree_site_attribute(const cval& obj, const std::string& name, py::handle node,
                                 cval& out);
        bool tree_site_read(int arr) const;
        outer_snapshot snapshot_outer() const;
        bool outer_changed(const outer_snapshot& before) const;
        void check_recursive_calls(py::handle fdef, std::vector<std::string>& children);
        ir::value_type probe_row_type(py::handle fdef);
        ir::value_id tree_table_value(tree_table::kind k, const std::string& field);
        ir::value_id hoisted_input(const ir::value_type& type, const std::string& name);
        cval numpy_scalar_input(int src, PyObject* object);
        void refuse_checked_scalar_math(ir::op code, const cval& a, const cval& b, ir::dtype result,
                                        py::handle node);
        // tree_tables.cpp
        ir::value_id tree_gather(tree_table::kind k, const std::string& field, ir::value_id index);
        ir::value_id tree_int(std::int64_t v);
        bool tree_asserted(const std::string& key);
        void tree_drop_implied_asserts(ir::region_id r,
                                       std::set<std::pair<ir::value_id, bool>> facts);
        void tree_hoist_child_checks(ir::region_id body);
        int tree_child_check(ir::value_id cond) const;
        void tree_hoist_in(ir::region_id r, int when_table, bool when);
        cval tree_node_at(ir::value_id index);
        ir::value_id tree_index(const cval& n, py::handle node);
        cval tree_attribute(const cval& n, const std::string& name, py::handle node);
        bool tree_none_test(py::handle compare, cval& out);
        cval tree_method(const cval& self, const std::string& name, py::handle node);
        cval tree_call(const cval& fn, const call_args& args, py::handle node);
        void tree_return(py::handle node);
        void learn_tree_types(py::handle fdef);
        // tree_writes.cpp: attributes set on the recursion's nodes
        void tree_set_attribute(const cval& n, const std::string& name, const cval& value,
                                py::handle node);
        bool tree_written_attribute(const cval& n, const std::string& name, py::handle node,
                                    cval& out);
        void tree_init_attrs();
        void tree_outcome(std::vector<cval>& items);
        void tree_commit_plan(const std::vector<ir::value_id>& tables, py::handle fdef);

        // cell_exits.cpp: `if <test on data>: ... break` (or continue) in
        // the body of a loop at a cell's module level or of an OSR loop
        void find_cell_exits(py::handle body);
        cval cell_exit_test(py::handle node);
        bool cell_exit(py::handle node, const cval& test);
        void visit_exit_side(const py::list& statements, ir::value_id taken, py::handle node);
        void seal_for_exit();
        void finish_cell_exits();
        cval exits_taken();

        // control_flow.cpp
        cval visit_comprehension(py::handle node, bool consumed_at_once);
        void visit_while(py::handle node);
        void visit_data_if(py::handle node, const cval& test, py::object rest);
        bool visit_branch(py::handle body, ir::region_id region, py::handle node);

        // profiled_flow.cpp: `if`/`while` on array data after the profiled
        // outcomes (an observed side, an observed trip count) under asserts
        ir::value_id truth_value(const cval& test, py::handle node);
        const branch_observation* profiled_branch(py::handle node) const;
        bool visit_profiled_if(py::handle node, const cval& test);
        bool profiled_while_test(py::handle node, const cval& test, int trips);
        cval merge_values(const cval& a, const cval& b, std::vector<std::pair<int, int>>& pairs,
                          const std::string& what, py::handle node);
        cval number_value(const cval& v, surface s, py::handle node);

        // while_loop.cpp: `while` on data as an IR LOOP with a condition
        bool wants_while_loop(py::handle node) const;
        bool exits_on_data(py::handle node);
        bool test_turns_data(py::handle node);
        cval loop_test(py::handle test);
        void build_while_loop(py::handle node, const cval& first);
        bool identity_visible(int arr, const std::string& name) const;
        ir::value_id while_trip(const py::list& statements, carried_loop& loop, py::handle node);
        ir::value_id while_exit(const cval& test, bool is_break, const py::list& rest,
                                carried_loop& loop, py::handle stmt, py::handle node);
        ir::value_id next_test(py::handle node, ir::value_id broke);

        // loop_carried_names.cpp: the names an IR LOOP carries
        void carried_names(carried_loop& loop, const std::set<std::string>& bound,
                           const std::string& target, std::set<std::string>& loop_only,
                           py::handle node);
        carried_slot carry_value(const carried_loop& loop, const std::string& name, const cval& v,
                                 py::handle node);
        ir::region_id open_carried_loop(carried_loop& loop, std::vector<ir::value_id>& init);
        void bind_carried_args(carried_loop& loop, ir::region_id body);
        void check_carried_trip(const carried_loop& loop, py::handle node);
        ir::value_id slot_value(const carried_loop& loop, const carried_slot& s, py::handle node,
                                std::int64_t& lo, std::int64_t& hi);
        void refuse_shared_array(const carried_loop& loop, const carried_slot& s, const cval& now,
                                 py::handle node);
        ir::value_id carried_result(carried_loop& loop, carried_slot& s, py::handle node);
        void assert_carried_int(const carried_slot& s, ir::value_id v, const carried_loop& loop,
                                py::handle node);
        void close_carried_loop(const carried_loop& loop, const std::vector<ir::value_id>& outs,
                                py::handle node);

        // relaxed_ints.cpp: relaxed Python ints with arrays, NumPy's value-based
        // result dtype fixed over the int's (possibly narrowed) range
        bool relaxed_int_with_array(ir::op code, const cval& a, const cval& b, py::handle node,
                                    cval& out);
        std::optional<ir::dtype> relaxed_int_result(ir::dtype elem, const cval& num);
        cval full_of_relaxed(const std::vector<std::int64_t>& dims, const cval& fill,
                             py::handle node);

        // symbolic_dims.cpp: a dim's size as a Python int (an int64 scalar when symbolic)
        cval dim_value(ir::value_id x, int axis, py::handle node);

        // range_loop.cpp: `for` over range(...) as an IR LOOP
        bool range_loop(py::handle node, const call_args& args);
        void build_range_loop(py::handle node, const std::vector<cval>& p,
                              const std::set<std::string>& bound);
        void check_loop_locals_unread(py::handle node, const std::set<std::string>& names);

        // indexing.cpp
        index_plan plan_index(const cval& container, py::handle index, py::handle node);
        index_plan plan_axis_index(ir::value_id x, const std::vector<cval>& values,
                                   const std::vector<py::handle>& parts, py::handle node);
        index_plan plan_integer_index(ir::value_id x, const std::vector<cval>& values,
                                      const std::vector<py::handle>& parts, py::handle node,
                                      int first_axis = 0);
        ir::value_id leading_flat(ir::value_id x, int axes, py::handle node);
        cval index_array(const cval& container, py::handle node);
        void assign_array_index(const cval& container, py::handle target, const cval& value);
        void assert_broadcast(ir::value_id v, const ir::shape& to, py::handle node);

        // item_writes.cpp: items set in list/dict sources, read back in the run
        void assign_container_item(const cval& container, const cval& key, const cval& value,
                                   py::handle target);
        void guard_list_index(const cval& container, const int_expr_ptr& index,
                              const std::string& error, py::handle node);
        int_expr_ptr list_position(const int_expr_ptr& index, const cval& container);
        bool same_item(const cval& container, const item_write& w, const py::object& key,
                       const int_expr_ptr& index, py::handle node);
        // The value a write earlier in the run gave this item (`key`
        // constant, or `index` computed); false when the heap has it.
        bool written_item(const cval& container, const py::object& key, const int_expr_ptr& index,
                          py::handle node, cval& out);

        // code_lists.cpp: lists the converted code builds ([h], comprehensions)
        cval new_code_list(cval items);
        bool is_code_list(const cval& v) const;
        cval append_to_code_list(const cval& list, const call_args& args, py::handle node);
        value_plan code_list_plan(const cval& v, py::handle node, bool identity_visible);
        void fill_list_plans(value_plan& p);
        void fill_code_lists();

        // containers.cpp
        cval visit_dict(py::handle node);
        cval dict_get(const cval& d, const cval& key, py::handle node);
        void dict_set(const cval& d, const cval& key, const cval& value, py::handle node);
        cval dict_method(const cval& d, const std::string& name, const call_args& args,
                         py::handle node);
        value_plan dict_plan(const cval& d, py::handle node, bool identity_visible);
        cval container_len(const cval& c, py::handle node);
        bool dict_view_items(py::handle iter, cval& seq, std::vector<cval>& items);
        bool dict_changed(const dict_entry& before, int dict) const;
        // dict_sources.cpp: iterating a dict source under a guard on its keys
        void source_dict_items(const cval& d, const std::string& view, py::handle iter,
                               std::vector<cval>& items);
        bool source_dict_written(int src, PyObject* dict, size_t effects_before);
        bool aliases_written_dict(int src, PyObject* dict, int writer);
        // str_slices.cpp: `[d[ch] for ch in s[p:p + n]]` at a loop counter p
        void note_run_time_str_slice(py::handle clause, py::handle elt);
        cval str_slice(const cval& s, py::handle index, py::handle node);
        cval run_time_str_slice(const cval& s, const int_expr_ptr& lo, const int_expr_ptr& hi,
                                py::handle node);
        cval read_keyed_item(const cval& container, const cval& key, py::handle node);
        bool str_items(const cval& s, std::vector<cval>& items, py::handle node);
        void guard_keys_of(const cval& container, py::handle node);
        cval call_arange(const call_args& args, py::handle node);
        cval float_arange(const py::tuple& bounds, py::handle node);
        cval call_empty_like(const call_args& args, py::handle node);
        void note_unwritten_write(int arr, const index_plan& plan, py::handle target);
        cval call_add_at(const call_args& args, py::handle node);

        // scalar_math.cpp
        cval call_math(const std::string& name, const call_args& args, py::handle node);

        // numpy_calls.cpp
        cval call_numpy(const std::string& name, const call_args& args, py::handle node);
        // scalar_types.cpp
        static bool is_scalar_type_call(const std::string& name);
        cval call_scalar_type(const std::string& name, const call_args& args, py::handle node);
        // float_classes.cpp: np.isnan, np.isinf, np.isfinite
        static bool is_float_class_call(const std::string& name);
        cval call_float_class(const std::string& name, const call_args& args, py::handle node);
        // copyto.cpp
        cval call_copyto(const call_args& args, py::handle node);
        // builtin_calls.cpp
        cval call_builtin(const std::string& name, const call_args& args, py::handle node);
        // builtin_folds.cpp: sum/min/max over run-time values or a generator
        bool call_builtin_fold(const std::string& name, py::handle node, cval& out);
        cval python_sum(const std::vector<cval>& items, const cval& start, py::handle node);
        cval python_extreme(bool is_max, const std::vector<cval>& items, py::handle node);
        cval extreme_step(bool is_max, const cval& kept, const cval& item, size_t position,
                          py::handle node);
        // numpy_calls.cpp
        cval call_method(const cval& self, const std::string& name, const call_args& args,
                         py::handle node);
        cval reduction(ir::op code, const cval& x, const call_args& args, size_t first_kw,
                       py::handle node);
        cval with_out(const cval& result, const call_args& args, py::handle node);
        ir::dtype dtype_arg(const cval& v, py::handle node);
        std::vector<std::int64_t> shape_arg(const cval& v, py::handle node);
        cval const_array(py::handle node, const cval& v, ir::dtype elem);
        ir::value_id scalar_constant(const cval& v, ir::dtype elem, py::handle node);

        const frame_hook::frame_view& m_frame;
        const profile& m_profile;
        const whitelist& m_whitelist;
        config m_config;
        std::shared_ptr<specialisation> m_spec;
        ir::graph* p_graph = nullptr;
        std::unique_ptr<ir::builder> m_builder;
        std::string m_file;
        int m_first_line = 1;
        // The code being converted: the frame's own, or the innermost of the
        // callees being inlined (`m_inlined`, outermost first; object values).
        PyCodeObject* p_code = nullptr;
        std::vector<cval> m_inlined;
        std::map<PyCodeObject*, std::pair<py::object, int>> m_parsed; // def, first line
        // calls_itself() of each parsed callee: asked at every call site.
        std::map<PyCodeObject*, bool> m_recurses;

        std::map<std::string, cval> m_locals;
        std::set<std::string> m_declared_globals;
        std::vector<array_entry> m_arrays;
        std::vector<dict_entry> m_dicts;
        std::map<int, int> m_array_of_source;    // source -> array entry
        std::map<int, py::object> m_seen_arrays; // source -> the array seen
        bool m_situational = false;
        std::map<std::string, cval> m_heap_writes;            // "self.h", "G[x]" -> value written
        std::map<int, std::vector<item_write>> m_item_writes; // container source -> writes
        std::set<std::pair<int, int>> m_distinct_containers;  // distinct guards added
        std::set<int> m_relaxed_sources;      // Python ints/floats read as inputs at once
        std::set<int> m_length_guarded;       // list/tuple sources with a length guard
        std::set<int> m_dict_keys_guarded;    // dict sources with a dict_keys guard
        std::set<int> m_written_sources;      // arrays written in place
        std::set<int> m_setattr_sources;      // objects given attributes
        std::map<int, int> m_output_of_array; // array entry -> output slot
        std::map<std::int64_t, int> m_symbol_of_size;
        std::map<ir::value_id, bool> m_input_contiguous; // graph input -> C_CONTIGUOUS
        std::map<ir::value_id, layout> m_layouts;        // memo of layout_of()
        std::set<ir::value_id> m_layout_facts;           // m_layouts set by note_layout()

        // code_lists.cpp
        std::vector<code_list> m_lists;
        std::set<int> m_lazily_read_sources; // lists read by zip/enumerate/reversed
        int m_comprehension_depth = 0;       // inside a comprehension's element or filter
        // The iterable of the comprehension being converted when it is a str
        // slice whose characters are only used as dict keys (str_slices.cpp).
        PyObject* m_run_time_str_slice = nullptr;
        PyObject* m_statement_call = nullptr; // the call an expression statement makes
        // The `for` loops over a sequence being unrolled: the items they
        // took when they started (copies) and the list they iterate, if the
        // code built it.
        std::vector<std::pair<int, const std::vector<cval>*>> m_sequence_loops;

        std::unique_ptr<tree_state> m_tree; // set while converting a recursion over a tree
        // Recursions called by the converted function (tree_calls.cpp): the
        // knowledge learned per call site (in conversion order), the site a
        // probe conversion learns about, the sites met so far, and what the
        // code after each call reads from it.
        std::vector<tree_knowledge> m_site_known;
        int m_probe_site = -1;
        int m_sites_met = 0;
        std::vector<tree_site> m_tree_sites;
        std::set<int> m_tree_reads; // array entries read from a recursion's tables
        // convert_function_loop(): the loop's locals (name -> index in the
        // frame view's `locals`) and the value each had when first read.
        std::map<std::string, int> m_loop_locals;
        std::map<std::string, cval> m_loop_initial;

        // chunk_slices.cpp, set while a chunk's trip is converted: the
        // chunk's start and trip-count sources, its step, the slices the
        // engine checks, and the views of carried arrays the trip made (by
        // array entry) with their bounds.
        struct chunk_view
        {
            int parent_slot = -1; // the carried slot of the sliced array
            int_expr_ptr start;
            int_expr_ptr stop;
        };
        bool m_in_chunk = false;
        int m_chunk_start_src = -1;
        int m_chunk_trips_src = -1;
        std::int64_t m_chunk_step = 1;
        const carried_loop* p_chunk_loop = nullptr;
        std::vector<chunk_slice_check> m_chunk_checks;
        std::map<int, chunk_view> m_chunk_views;
        std::vector<int> m_views_after; // per carried slot: its view's entry, or -1
        // chunk_effects.cpp: the values the trip's effects use, one stacked
        // output each (index = specialisation::chunk_rows); the chunk's
        // [K] int8 rows input their buffers are shaped after.
        struct chunk_stack
        {
            int arr = -1;
            bool identity = false; // appended (its identity visible), not only printed
            int last_slot = -1;    // the carried name it stays bound to after the trip
        };
        std::vector<chunk_stack> m_chunk_stacks;
        bool m_chunk_over_items = false; // a loop over a list or tuple
        // chunk_items.cpp: items the trip updated in place, not carried; the
        // carried items (object, slot) and the names bound to one of them
        // (name, slot)
        std::vector<chunk_item_source> m_chunk_item_writes;
        std::set<int> m_chunk_item_write_sources;
        std::vector<std::pair<PyObject*, size_t>> m_chunk_items; // borrowed: the list's
        std::vector<std::pair<std::string, size_t>> m_chunk_aliases;
        ir::value_id m_chunk_rows = ir::no_id;

        // cell_exits.cpp: the exit `if`s of the cell loop's body (borrowed
        // nodes of it), the region its iteration is built in, the bool
        // "the iteration still runs here" (no_id: it does), the bool "it
        // took a break on data", and from which effect on which bool holds.
        std::set<PyObject*> m_cell_exits;
        ir::region_id m_cell_region = 0;
        ir::value_id m_live = ir::no_id;
        ir::value_id m_broke = ir::no_id;
        std::vector<std::pair<size_t, ir::value_id>> m_exit_masks;
        // A loop inside a function: the locals at each exit and at the end of
        // each exit's own statements (a local must leave every path alike).
        std::vector<std::pair<py::object, std::map<std::string, cval>>> m_exit_locals;

        py::object m_rest;        // the statements after the one being visited (visit_if takes it)
        bool m_cell_mode = false; // convert_cell_body(): module-level names are globals
        bool m_whole_function = false; // convert() of a plain function: loops may become IR LOOPs
        bool m_returned = false;
        bool m_breaking = false;
        bool m_continuing = false;
        cval m_result;
        int m_statements = 0;
    };
} // namespace specula::engine::converter
