#include "engine/loop_iterator.hpp"

#include <algorithm>
#include <csignal>
#include <vector>

namespace specula::engine::loop_iterator
{
    namespace
    {
        struct wrapper
        {
            PyObject ob_base;
            PyObject* inner; // the loop's iterator (strong)
            // The interrupt the marker took, raised at the next FOR_ITER
            // (strong references; all null when none is held).
            PyObject* held_type;
            PyObject* held_value;
            PyObject* held_traceback;
            long id;
            PyFrameObject* frame; // borrowed, identity only: the frame running the loop
        };

        // The wrappers alive, newest last: a marker finds its loop's in the
        // running frame (a function's loop runs in several frames when it
        // recurses). Never destroyed: wrappers may die at interpreter exit.
        std::vector<wrapper*>& g_alive = *new std::vector<wrapper*>();

        void drop_held(wrapper* w)
        {
            Py_CLEAR(w->held_type);
            Py_CLEAR(w->held_value);
            Py_CLEAR(w->held_traceback);
        }

        PyObject* next(PyObject* self)
        {
            auto* w = reinterpret_cast<wrapper*>(self);
            if (w->held_type != nullptr)
            {
                // Raised by FOR_ITER before the loop's iterator moves on: the
                // body of the iteration the marker entered has run.
                PyErr_Restore(w->held_type, w->held_value, w->held_traceback); // steals
                w->held_type = w->held_value = w->held_traceback = nullptr;
                return nullptr;
            }
            return Py_TYPE(w->inner)->tp_iternext(w->inner);
        }

        int traverse(PyObject* self, visitproc visit, void* arg)
        {
            auto* w = reinterpret_cast<wrapper*>(self);
            Py_VISIT(Py_TYPE(self)); // a heap type's instances own a reference to it
            Py_VISIT(w->inner);
            Py_VISIT(w->held_type);
            Py_VISIT(w->held_value);
            Py_VISIT(w->held_traceback);
            return 0;
        }

        int clear(PyObject* self)
        {
            auto* w = reinterpret_cast<wrapper*>(self);
            Py_CLEAR(w->inner);
            drop_held(w);
            return 0;
        }

        void dealloc(PyObject* self)
        {
            auto* w = reinterpret_cast<wrapper*>(self);
            PyObject_GC_UnTrack(self);
            g_alive.erase(std::remove(g_alive.begin(), g_alive.end(), w), g_alive.end());
            // The loop was left (break, return, an exception of the body)
            // before the next FOR_ITER could raise the interrupt: it is
            // delivered again, raised at the next signal check after the
            // loop, as a SIGINT arriving then would be. Unless the loop is
            // left by another KeyboardInterrupt (a second SIGINT raised in
            // the body): two SIGINTs before one signal check raise once.
            const bool undelivered =
                w->held_type != nullptr && !PyErr_ExceptionMatches(PyExc_KeyboardInterrupt);
            clear(self);
            PyTypeObject* type = Py_TYPE(self);
            type->tp_free(self);
            Py_DECREF(type);
            if (undelivered)
            {
                PyErr_SetInterruptEx(SIGINT);
            }
        }

        PyTypeObject* wrapper_type()
        {
            static PyTypeObject* type = []
            {
                static PyType_Slot slots[] = {
                    {Py_tp_dealloc, reinterpret_cast<void*>(&dealloc)},
                    {Py_tp_traverse, reinterpret_cast<void*>(&traverse)},
                    {Py_tp_clear, reinterpret_cast<void*>(&clear)},
                    {Py_tp_iter, reinterpret_cast<void*>(&PyObject_SelfIter)},
                    {Py_tp_iternext, reinterpret_cast<void*>(&next)},
                    {0, nullptr}};
                static PyType_Spec spec = {"specula.loop_iterator", sizeof(wrapper), 0,
                                           Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC |
                                               Py_TPFLAGS_DISALLOW_INSTANTIATION,
                                           slots};
                return reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&spec)); // never released
            }();
            return type;
        }
    } // namespace

    PyObject* wrap(long id, PyObject* inner)
    {
        PyTypeObject* type = wrapper_type();
        if (type == nullptr)
        {
            Py_DECREF(inner);
            return nullptr;
        }
        wrapper* w = PyObject_GC_New(wrapper, type); // new reference (and one to the type)
        if (w == nullptr)
        {
            Py_DECREF(inner);
            return nullptr;
        }
        w->inner = inner;
        w->held_type = w->held_value = w->held_traceback = nullptr;
        w->id = id;
        w->frame = PyEval_GetFrame();
        g_alive.push_back(w);
        PyObject_GC_Track(w);
        return reinterpret_cast<PyObject*>(w);
    }

    bool hold_pending(long id)
    {
        // Only the user's interrupt: a signal handler's other exceptions
        // are raised at the marker, as before (dealloc could not deliver
        // them again).
        if (!PyErr_ExceptionMatches(PyExc_KeyboardInterrupt))
        {
            return false;
        }
        PyFrameObject* frame = PyEval_GetFrame();
        for (auto it = g_alive.rbegin(); it != g_alive.rend(); ++it)
        {
            wrapper* w = *it;
            if (w->id == id && w->frame == frame)
            {
                if (w->held_type != nullptr)
                {
                    return false;
                }
                PyErr_Fetch(&w->held_type, &w->held_value, &w->held_traceback);
                return true;
            }
        }
        return false;
    }
} // namespace specula::engine::loop_iterator
