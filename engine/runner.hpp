// The hot path of a compiled region: resolve sources and check guards
// (guard_checks.hpp), bind inputs zero-copy, run the executable, materialise
// outputs, commit the write buffer, build the return value.
#pragma once

#include <Python.h>

#include <cstdint>
#include <string>
#include <vector>

#include "engine/guard_checks.hpp"
#include "engine/py_ref.hpp"
#include "engine/specialisation.hpp"

namespace specula::engine
{
    enum class run_outcome
    {
        done,         // *result is a new reference, effects committed
        assert_exit,  // an in-graph assert fired: `exit_id`
        numpy_raises, // the graph hit what NumPy would raise on: run CPython
        interrupted,  // KeyboardInterrupt pending: exception set, nothing committed
        failed,       // internal error (message), nothing committed, no exception set
        commit_error, // an effect failed while committing: exception set
        // Not run: CPython runs the call (message says why), nothing to undo
        // (thread_rules.hpp: prints at commit while other threads run).
        left_to_cpython,
    };

    struct run_report
    {
        run_outcome outcome = run_outcome::failed;
        std::uint32_t exit_id = 0;
        std::string message;
        // In-place updates written straight into the users' arrays
        // (sunk_stores.hpp) by a run that is done.
        std::int64_t sunk_stores = 0;
    };

    // `values` come from a successful check_guards(). Returns the outcome;
    // on done, *result holds a new reference.
    run_report run_specialisation(const specialisation& spec, const std::vector<PyObject*>& values,
                                  PyObject** result);

    // How many runs have started to commit (the GIL orders them). The engine's
    // fallback for its own errors (CPython runs the call or iteration) is only
    // right before a commit: after one it would make the effects twice. So
    // the places that fall back (engine_core::enter_region, the loop markers'
    // boundary) compare this count with the one they entered with, and raise
    // an error past a commit (raise_after_commit) instead.
    std::uint64_t commits_started();
    // Sets SystemError for an internal error `why` thrown after a commit.
    void raise_after_commit(const std::string& why);
    // Tests: the n-th commit from now (1: the next) is followed by an
    // internal error, thrown once its effects are made (as a std::bad_alloc
    // binding a chunk's target would be).
    void fail_after_commit(std::uint64_t n);
} // namespace specula::engine
