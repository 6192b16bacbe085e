#include "ir/attrs.hpp"

#include <cmath>
#include <cstring>
#include <iomanip>
#include <sstream>

namespace specula::ir
{
    double scalar::as_double() const
    {
        return is_float(elem) ? fval : static_cast<double>(ival);
    }

    std::int64_t scalar::as_int() const
    {
        return is_float(elem) ? static_cast<std::int64_t>(fval) : ival;
    }

    bool scalar::operator==(const scalar& o) const
    {
        if (elem != o.elem)
        {
            return false;
        }
        if (!is_float(elem))
        {
            return ival == o.ival;
        }
        // Bit equality: 0.0 and -0.0 differ, a NaN equals the same NaN.
        return std::memcmp(&fval, &o.fval, sizeof(double)) == 0;
    }

    std::string scalar::to_string() const
    {
        if (elem == dtype::bool_)
        {
            return ival ? "true" : "false";
        }
        if (!is_float(elem))
        {
            return std::to_string(ival);
        }
        if (std::isnan(fval))
        {
            return "nan";
        }
        if (std::isinf(fval))
        {
            return fval > 0 ? "inf" : "-inf";
        }
        // Shortest text that reads back to the same double.
        for (int precision = 1; precision <= 17; ++precision)
        {
            std::ostringstream os;
            os << std::setprecision(precision) << fval;
            if (std::strtod(os.str().c_str(), nullptr) == fval)
            {
                std::string s = os.str();
                if (s.find_first_of(".en") == std::string::npos)
                {
                    s += ".0";
                }
                return s;
            }
        }
        return std::to_string(fval);
    }

    namespace
    {
        template <class T>
        T load(const std::byte* p)
        {
            T v;
            std::memcpy(&v, p, sizeof(T));
            return v;
        }

        template <class T>
        void store(std::byte* p, T v)
        {
            std::memcpy(p, &v, sizeof(T));
        }

        void store_scalar(std::byte* p, dtype elem, const scalar& s)
        {
            const bool f = is_float(s.elem);
            switch (elem)
            {
            case dtype::bool_:
                store<bool>(p, f ? s.fval != 0.0 : s.ival != 0);
                break;
            case dtype::int8:
                store<std::int8_t>(p, static_cast<std::int8_t>(s.as_int()));
                break;
            case dtype::int16:
                store<std::int16_t>(p, static_cast<std::int16_t>(s.as_int()));
                break;
            case dtype::int32:
                store<std::int32_t>(p, static_cast<std::int32_t>(s.as_int()));
                break;
            case dtype::int64:
                store<std::int64_t>(p, s.as_int());
                break;
            case dtype::uint8:
                store<std::uint8_t>(p, static_cast<std::uint8_t>(s.as_int()));
                break;
            case dtype::float32:
                store<float>(p, static_cast<float>(s.as_double()));
                break;
            case dtype::float64:
                store<double>(p, s.as_double());
                break;
            }
        }
    } // namespace

    std::int64_t constant_attr::size() const
    {
        return dims.num_elements().value_or(0);
    }

    scalar constant_attr::element(std::int64_t i) const
    {
        const std::byte* p = bytes.data() + i * itemsize(elem);
        switch (elem)
        {
        case dtype::bool_:
            return scalar::of_bool(load<bool>(p));
        case dtype::int8:
            return scalar::of_int(elem, load<std::int8_t>(p));
        case dtype::int16:
            return scalar::of_int(elem, load<std::int16_t>(p));
        case dtype::int32:
            return scalar::of_int(elem, load<std::int32_t>(p));
        case dtype::int64:
            return scalar::of_int(elem, load<std::int64_t>(p));
        case dtype::uint8:
            return scalar::of_int(elem, load<std::uint8_t>(p));
        case dtype::float32:
            return scalar::of_float(elem, load<float>(p));
        case dtype::float64:
            return scalar::of_float(elem, load<double>(p));
        }
        return scalar{};
    }

    constant_attr constant_attr::from_scalar(const scalar& s)
    {
        return from_values(s.elem, shape::scalar(), {s});
    }

    constant_attr constant_attr::from_values(dtype elem, const shape& dims,
                                             const std::vector<scalar>& values)
    {
        constant_attr c;
        c.elem = elem;
        c.dims = dims;
        const int size = itemsize(elem);
        c.bytes.resize(values.size() * static_cast<size_t>(size));
        for (size_t i = 0; i < values.size(); ++i)
        {
            store_scalar(c.bytes.data() + i * static_cast<size_t>(size), elem, values[i]);
        }
        return c;
    }
} // namespace specula::ir
