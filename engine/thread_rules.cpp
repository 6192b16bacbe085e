#include "engine/thread_rules.hpp"

#include <cstring>

#include "engine/branch_tracer.hpp"

namespace specula::engine::thread_rules
{
    bool traced_by_user(const PyThreadState* ts)
    {
        return ts->c_profilefunc != nullptr ||
               (ts->c_tracefunc != nullptr && !branch_tracer::owns(ts->c_tracefunc));
    }

    bool main_thread()
    {
        return _PyOS_IsMainThread() != 0;
    }

    namespace
    {
        bool kernel_thread(PyObject* thread)
        {
            PyTypeObject* type = Py_TYPE(thread);
            return std::strcmp(type->tp_name, "HistorySavingThread") == 0;
        }
    } // namespace

    bool other_threads_alive()
    {
        static PyObject* const name = PyUnicode_InternFromString("threading"); // kept for good
        PyObject* threading = name != nullptr ? PyImport_GetModule(name) : nullptr; // new reference
        if (threading == nullptr)
        {
            PyErr_Clear();
            return false;
        }
        // {ident: Thread} of the started threads, this one included.
        PyObject* active = PyObject_GetAttrString(threading, "_active"); // new reference
        Py_DECREF(threading);
        if (active == nullptr || !PyDict_Check(active))
        {
            Py_XDECREF(active);
            PyErr_Clear();
            return true; // not the module we know: assume there are
        }
        const unsigned long self = PyThread_get_thread_ident();
        bool others = false;
        PyObject* key = nullptr;   // borrowed
        PyObject* thread = nullptr; // borrowed
        Py_ssize_t pos = 0;
        while (!others && PyDict_Next(active, &pos, &key, &thread))
        {
            const bool mine = PyLong_Check(key) && PyLong_AsUnsignedLong(key) == self;
            PyErr_Clear();
            others = !mine && !kernel_thread(thread);
        }
        Py_DECREF(active);
        return others;
    }
} // namespace specula::engine::thread_rules
