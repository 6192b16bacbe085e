#include "engine/sunk_stores.hpp"

#include "backends/deferred_store.hpp"
#include "engine/numpy_api.hpp"

namespace specula::engine
{
    bool numpy_ignores_fp_errors()
    {
        // NumPy 1.24 keeps the thread's error state as [bufsize, errmask,
        // errobj] under "UFUNC_PYVALS" in the thread-state dict (absent: the
        // default, which warns); errmask 0 ignores every category.
        static PyObject* key = PyUnicode_InternFromString("UFUNC_PYVALS"); // immortal
        PyObject* dict = PyThreadState_GetDict();                          // borrowed
        if (key == nullptr || dict == nullptr)
        {
            PyErr_Clear();
            return false;
        }
        PyObject* pyvals = PyDict_GetItemWithError(dict, key); // borrowed
        if (pyvals == nullptr || !PyList_CheckExact(pyvals) || PyList_GET_SIZE(pyvals) != 3)
        {
            PyErr_Clear();
            return false;
        }
        PyObject* mask = PyList_GET_ITEM(pyvals, 1); // borrowed
        return PyLong_CheckExact(mask) && PyLong_AsLong(mask) == 0;
    }

    namespace
    {
        // Uses of graph output `o` in a value plan.
        int uses_of(const value_plan& p, int o)
        {
            int n = p.k == value_plan::kind::output && p.index == o ? 1 : 0;
            for (const value_plan& item : p.items)
            {
                n += uses_of(item, o);
            }
            return n;
        }

    } // namespace

    int output_uses(const specialisation& spec, int o)
    {
        int n = uses_of(spec.result, o);
        for (const effect_plan& e : spec.effects)
        {
            n += uses_of(e.value, o);
            for (const value_plan& a : e.args)
            {
                n += uses_of(a, o);
            }
        }
        return n;
    }

    namespace
    {
        // A write into the memory of an array source (whole or a slice).
        bool writes_array(const effect_plan& e)
        {
            return e.k == effect_plan::kind::array_write || e.k == effect_plan::kind::slice_write;
        }

        // Program order: every effect before `k` is another array's
        // in-place update (committed after the sunk store, but nothing can
        // see the difference: no I/O, no user code), and `k` is the only
        // write of its array in the call.
        bool order_allows(const specialisation& spec, std::size_t k)
        {
            const effect_plan& e = spec.effects[k];
            for (std::size_t j = 0; j < spec.effects.size(); ++j)
            {
                const effect_plan& other = spec.effects[j];
                if (j < k && !writes_array(other))
                {
                    return false;
                }
                if (j != k && writes_array(other) && other.target == e.target)
                {
                    return false;
                }
            }
            return true;
        }

        backends::buffer buffer_of(PyArrayObject* a)
        {
            std::vector<std::int64_t> shape(PyArray_DIMS(a), PyArray_DIMS(a) + PyArray_NDIM(a));
            std::vector<std::int64_t> strides(PyArray_STRIDES(a),
                                              PyArray_STRIDES(a) + PyArray_NDIM(a));
            return backends::buffer::borrow(PyArray_DATA(a),
                                            *dtype_of_type_num(PyArray_DESCR(a)->type_num),
                                            std::move(shape), std::move(strides));
        }

        // The user's memory of every in-place update of this call: a sunk
        // store must not share bytes with another (guards only keep written
        // arrays apart from the arrays they read).
        bool apart_from_other_writes(const specialisation& spec, std::size_t k,
                                     const std::vector<PyObject*>& values,
                                     const backends::buffer& target)
        {
            for (std::size_t j = 0; j < spec.effects.size(); ++j)
            {
                const effect_plan& other = spec.effects[j];
                if (j == k || !writes_array(other))
                {
                    continue;
                }
                auto* a =
                    reinterpret_cast<PyArrayObject*>(values[static_cast<size_t>(other.target)]);
                if (backends::overlap(buffer_of(a), target))
                {
                    return false;
                }
            }
            return true;
        }
    } // namespace

    void choose_sunk_stores(const specialisation& spec, const std::vector<PyObject*>& values,
                            std::vector<int>& effect_of_output,
                            std::vector<backends::buffer>& targets)
    {
        effect_of_output.clear();
        targets.clear();
        if (!spec.trees.empty())
        {
            return; // its node-attribute effect reads outputs outside the value plans
        }
        bool any = false;
        for (std::size_t k = 0; k < spec.effects.size(); ++k)
        {
            const effect_plan& e = spec.effects[k];
            if (e.k != effect_plan::kind::array_write || e.value.k != value_plan::kind::output ||
                e.when >= 0)
            {
                continue; // a conditional effect is written at commit, if at all
            }
            const int o = e.value.index;
            if (!spec.exe->may_hold_store(static_cast<std::size_t>(o)) ||
                output_uses(spec, o) != 1 || !order_allows(spec, k))
            {
                continue;
            }
            if (!any && !numpy_ignores_fp_errors())
            {
                // A sunk store cannot be undone, and CPython must rerun the
                // call when a flag NumPy would act on is raised.
                return;
            }
            auto* a = reinterpret_cast<PyArrayObject*>(values[static_cast<size_t>(e.target)]);
            backends::buffer target = buffer_of(a);
            if (!PyArray_IS_C_CONTIGUOUS(a) || !apart_from_other_writes(spec, k, values, target))
            {
                continue;
            }
            if (!any)
            {
                effect_of_output.assign(spec.outputs.size(), -1);
                targets.assign(spec.outputs.size(), backends::buffer{});
                any = true;
            }
            effect_of_output[static_cast<std::size_t>(o)] = static_cast<int>(k);
            targets[static_cast<std::size_t>(o)] = std::move(target);
        }
    }
} // namespace specula::engine
