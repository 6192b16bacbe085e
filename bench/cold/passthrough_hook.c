/* A PEP 523 hook that does nothing but call CPython's evaluator: what any
 * frame hook costs before it does any work (CPython 3.11 stops inlining
 * Python-to-Python calls while a hook is installed). Measurement only. */
#define Py_BUILD_CORE
#include <Python.h>
#include <internal/pycore_frame.h>

static PyObject* passthrough(PyThreadState* tstate, _PyInterpreterFrame* frame, int throwflag)
{
    return _PyEval_EvalFrameDefault(tstate, frame, throwflag);
}

static PyObject* install(PyObject* self, PyObject* unused)
{
    _PyInterpreterState_SetEvalFrameFunc(PyThreadState_Get()->interp, passthrough);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {{"install", install, METH_NOARGS, "install the hook"}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "passthrough_hook", NULL, -1, methods};

PyMODINIT_FUNC PyInit_passthrough_hook(void) { return PyModule_Create(&module); }
