// The iterator a live `for` loop's FOR_ITER holds (`__specula_iter__`): the
// loop's own iterator, wrapped so that an interrupt the engine took at an
// iteration's marker is raised where CPython could raise it.
//
// By the time the marker runs, FOR_ITER has bound the target to the next
// value. CPython checks for signals at calls and backward jumps only, so in a
// body such as `W += 0.001 * g; n += 1; hist.append(i)` it never raises
// between that binding and the body's first call: an interrupt leaves
// `i == n - 1` (a whole iteration run, i still bound to it). A marker that
// raised the interrupt with nothing of its iteration committed (a graph or
// chunk run stopped by it, or the engine's own work) left `i == n`, a state
// CPython cannot reach. Instead the engine holds the exception here and lets
// CPython run the body; this iterator raises it at the next FOR_ITER, before
// asking the loop's iterator for another value: the state of an interrupt at
// the end of the iteration, with the iterator where CPython leaves it. A loop
// left before that (`break`, `return`, an exception of the body) raises it at
// the next signal check after the loop, as a SIGINT arriving then would.
#pragma once

#include <Python.h>

namespace specula::engine::loop_iterator
{
    // A new reference to the wrapper of `inner` (a new reference it steals)
    // for loop `id` in the running frame; null with an exception set.
    PyObject* wrap(long id, PyObject* inner);

    // At loop `id`'s marker, when it answers with `error` (a BaseException
    // raised by a signal handler, or the engine's interrupt) set and nothing
    // of the iteration committed: the error is held by the running frame's
    // wrapper and true returned (the marker then lets CPython run the body);
    // false, with the error still set, when the loop has none.
    bool hold_pending(long id);
} // namespace specula::engine::loop_iterator
