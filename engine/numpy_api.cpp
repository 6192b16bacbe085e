#define SPECULA_NUMPY_API_OWNER
#include "engine/numpy_api.hpp"

namespace specula::engine
{
    bool ensure_numpy()
    {
        static bool imported = false;
        if (!imported)
        {
            if (_import_array() < 0)
            {
                return false;
            }
            imported = true;
        }
        return true;
    }

    std::optional<ir::dtype> dtype_of_type_num(int type_num)
    {
        switch (type_num)
        {
        case NPY_BOOL:
            return ir::dtype::bool_;
        case NPY_INT8:
            return ir::dtype::int8;
        case NPY_INT16:
            return ir::dtype::int16;
        case NPY_INT32:
            return ir::dtype::int32;
        case NPY_LONG: // int64 on this platform (NPY_INT64 aliases NPY_LONG)
        case NPY_LONGLONG:
            return ir::dtype::int64;
        case NPY_UINT8:
            return ir::dtype::uint8;
        case NPY_FLOAT32:
            return ir::dtype::float32;
        case NPY_FLOAT64:
            return ir::dtype::float64;
        default:
            return std::nullopt;
        }
    }

    int type_num_of(ir::dtype t)
    {
        switch (t)
        {
        case ir::dtype::bool_:
            return NPY_BOOL;
        case ir::dtype::int8:
            return NPY_INT8;
        case ir::dtype::int16:
            return NPY_INT16;
        case ir::dtype::int32:
            return NPY_INT32;
        case ir::dtype::int64:
            return NPY_LONG;
        case ir::dtype::uint8:
            return NPY_UINT8;
        case ir::dtype::float32:
            return NPY_FLOAT32;
        case ir::dtype::float64:
            return NPY_FLOAT64;
        }
        return NPY_FLOAT64;
    }
} // namespace specula::engine
