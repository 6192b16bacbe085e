#include "oracle_reader.hpp"

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

namespace specula::backends::testing
{
    using reference::scalar;

    std::int64_t oracle_array::size() const
    {
        std::int64_t n = 1;
        for (auto d : shape)
        {
            n *= d;
        }
        return n;
    }

    std::size_t oracle_array::bytes() const
    {
        return static_cast<std::size_t>(size()) * reference::scalar_size(type);
    }

    reference::strided_view oracle_array::view()
    {
        return reference::contiguous_view(data(), type, static_cast<int>(shape.size()),
                                          shape.data());
    }

    oracle_array oracle_array::zeros(scalar type, std::vector<std::int64_t> shape)
    {
        oracle_array a;
        a.type = type;
        a.shape = std::move(shape);
        a.storage.assign((a.bytes() + 7) / 8 + 1, 0);
        return a;
    }

    std::optional<scalar> scalar_from_name(const std::string& name)
    {
        for (int i = 0; i < reference::scalar_count; ++i)
        {
            const auto s = static_cast<scalar>(i);
            if (name == reference::scalar_name(s))
            {
                return s;
            }
        }
        return std::nullopt;
    }

    namespace
    {
        int hex_digit(char c)
        {
            return c <= '9' ? c - '0' : c - 'a' + 10;
        }

    } // namespace

    bool parse_array(std::istringstream& in, oracle_array& a)
    {
        std::string type_name;
        int rank = 0;
        in >> type_name >> rank;
        const auto type = scalar_from_name(type_name);
        if (!type)
        {
            return false;
        }
        std::vector<std::int64_t> shape(static_cast<std::size_t>(rank));
        for (auto& d : shape)
        {
            in >> d;
        }
        a = oracle_array::zeros(*type, shape);
        std::string hex;
        in >> hex;
        if (hex == "-")
        {
            return a.bytes() == 0;
        }
        if (hex.size() != a.bytes() * 2)
        {
            return false;
        }
        auto* out = reinterpret_cast<unsigned char*>(a.data());
        for (std::size_t i = 0; i < a.bytes(); ++i)
        {
            out[i] =
                static_cast<unsigned char>(hex_digit(hex[2 * i]) * 16 + hex_digit(hex[2 * i + 1]));
        }
        return true;
    }

    std::vector<oracle_case> read_cases(const std::string& path, std::string& error)
    {
        std::vector<oracle_case> cases;
        std::ifstream file(path);
        if (!file)
        {
            error = "cannot open " + path;
            return cases;
        }
        std::string line;
        int number = 0;
        while (std::getline(file, line))
        {
            ++number;
            std::istringstream in(line);
            std::string tag;
            in >> tag;
            if (tag == "case")
            {
                oracle_case c;
                std::size_t n = 0;
                in >> c.kind >> c.op >> c.tolerance >> n;
                c.params.resize(n);
                for (auto& p : c.params)
                {
                    in >> p;
                }
                c.line = number;
                cases.push_back(std::move(c));
                continue;
            }
            if (cases.empty() || tag == "end" || tag == "error")
            {
                continue;
            }
            oracle_array a;
            if (!parse_array(in, a))
            {
                error = path + ":" + std::to_string(number) + ": bad array";
                return {};
            }
            if (tag == "in")
            {
                cases.back().inputs.push_back(std::move(a));
            }
            else
            {
                cases.back().expected = std::move(a);
            }
        }
        return cases;
    }

    namespace
    {
        template <class T>
        T element(oracle_array& a, std::int64_t i)
        {
            return reference::load<T>(a.data() + i * static_cast<std::int64_t>(sizeof(T)));
        }

        // Distance in representable values; huge when signs or NaN-ness differ.
        template <class F>
        std::uint64_t ulp_distance(F a, F b)
        {
            using bits_t = std::conditional_t<sizeof(F) == 4, std::int32_t, std::int64_t>;
            if (std::isnan(a) || std::isnan(b))
            {
                return std::isnan(a) && std::isnan(b) ? 0 : ~0ULL;
            }
            if (a == b)
            {
                return 0;
            }
            bits_t ia;
            bits_t ib;
            std::memcpy(&ia, &a, sizeof(F));
            std::memcpy(&ib, &b, sizeof(F));
            if ((ia < 0) != (ib < 0))
            {
                return ~0ULL;
            }
            const auto d = static_cast<long double>(ia) - static_cast<long double>(ib);
            return static_cast<std::uint64_t>(d < 0 ? -d : d);
        }

        template <class F>
        std::string compare_float(const std::string& tol, oracle_array& got, oracle_array& want,
                                  oracle_array* bound, std::int64_t depth)
        {
            const double eps = std::numeric_limits<F>::epsilon();
            for (std::int64_t i = 0; i < want.size(); ++i)
            {
                const F g = element<F>(got, i);
                const F w = element<F>(want, i);
                bool ok;
                if (tol == "dot" && (std::isnan(w) || std::isinf(w)))
                {
                    ok = ulp_distance(g, w) == 0;
                }
                else if (tol == "dot")
                {
                    const double limit =
                        4.0 * static_cast<double>(depth + 1) * eps * element<double>(*bound, i);
                    ok = std::fabs(static_cast<double>(g) - static_cast<double>(w)) <= limit;
                }
                else
                {
                    const std::uint64_t allowed = tol == "ulp2" ? 2 : 0;
                    ok = ulp_distance(g, w) <= allowed &&
                         (allowed > 0 || std::isnan(w) || std::signbit(g) == std::signbit(w));
                }
                if (!ok)
                {
                    std::ostringstream msg;
                    msg.precision(std::numeric_limits<F>::max_digits10);
                    msg << "element " << i << ": got " << g << " want " << w;
                    return msg.str();
                }
            }
            return {};
        }
    } // namespace

    std::string compare(const std::string& tolerance, oracle_array& got, oracle_array& want,
                        oracle_array* bound, std::int64_t depth)
    {
        if (got.type != want.type || got.size() != want.size())
        {
            return "dtype or size differs";
        }
        if (want.type == scalar::f32)
        {
            return compare_float<float>(tolerance, got, want, bound, depth);
        }
        if (want.type == scalar::f64)
        {
            return compare_float<double>(tolerance, got, want, bound, depth);
        }
        const std::size_t item = reference::scalar_size(want.type);
        for (std::int64_t i = 0; i < want.size(); ++i)
        {
            if (std::memcmp(got.data() + i * item, want.data() + i * item, item) != 0)
            {
                return "element " + std::to_string(i) + " differs";
            }
        }
        return {};
    }
} // namespace specula::backends::testing
