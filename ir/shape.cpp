#include "ir/shape.hpp"

namespace specula::ir
{
    std::string dim::to_string() const
    {
        return is_static() ? std::to_string(m_raw) : "?" + std::to_string(symbol_id());
    }

    shape::shape(std::initializer_list<std::int64_t> sizes)
    {
        for (std::int64_t s : sizes)
        {
            m_dims.push_back(dim::fixed(s));
        }
    }

    shape shape::of(const std::vector<std::int64_t>& sizes)
    {
        shape out;
        for (std::int64_t s : sizes)
        {
            out.m_dims.push_back(dim::fixed(s));
        }
        return out;
    }

    bool shape::is_static() const
    {
        for (const dim& d : m_dims)
        {
            if (!d.is_static())
            {
                return false;
            }
        }
        return true;
    }

    std::optional<std::int64_t> shape::num_elements() const
    {
        std::int64_t n = 1;
        for (const dim& d : m_dims)
        {
            if (!d.is_static())
            {
                return std::nullopt;
            }
            n *= d.size();
        }
        return n;
    }

    std::optional<std::vector<std::int64_t>> shape::static_sizes() const
    {
        std::vector<std::int64_t> out;
        for (const dim& d : m_dims)
        {
            if (!d.is_static())
            {
                return std::nullopt;
            }
            out.push_back(d.size());
        }
        return out;
    }

    std::optional<std::vector<std::int64_t>> shape::contiguous_strides() const
    {
        auto sizes = static_sizes();
        if (!sizes)
        {
            return std::nullopt;
        }
        std::vector<std::int64_t> strides(sizes->size(), 1);
        for (int i = rank() - 2; i >= 0; --i)
        {
            const auto k = static_cast<size_t>(i);
            strides[k] = strides[k + 1] * std::max<std::int64_t>((*sizes)[k + 1], 1);
        }
        return strides;
    }

    std::string shape::to_string() const
    {
        std::string out = "[";
        for (size_t i = 0; i < m_dims.size(); ++i)
        {
            out += (i ? "," : "") + m_dims[i].to_string();
        }
        return out + "]";
    }

    namespace
    {
        result<dim> broadcast_dim(const dim& a, const dim& b)
        {
            if (a == b || b.is(1))
            {
                return a;
            }
            if (a.is(1))
            {
                return b;
            }
            if (a.is_static() && b.is_static())
            {
                return error{"cannot broadcast dims " + a.to_string() + " and " + b.to_string()};
            }
            if (a.is_symbolic() && b.is_symbolic())
            {
                return error{"cannot broadcast different symbolic dims " + a.to_string() + " and " +
                             b.to_string()};
            }
            // Static n > 1 (or 0) against a symbol: only n (or the symbol being 1) works.
            return a.is_static() ? a : b;
        }
    } // namespace

    result<shape> broadcast_shapes(const shape& a, const shape& b)
    {
        const int rank = std::max(a.rank(), b.rank());
        std::vector<dim> dims(static_cast<size_t>(rank));
        for (int i = 0; i < rank; ++i)
        {
            const int ia = a.rank() - rank + i;
            const int ib = b.rank() - rank + i;
            const dim da = ia >= 0 ? a[ia] : dim::fixed(1);
            const dim db = ib >= 0 ? b[ib] : dim::fixed(1);
            auto d = broadcast_dim(da, db);
            if (!d)
            {
                return error{d.message() + " (shapes " + a.to_string() + " and " + b.to_string() +
                             ")"};
            }
            dims[static_cast<size_t>(i)] = *d;
        }
        return shape(std::move(dims));
    }

    std::optional<int> normalize_axis(int axis, int rank)
    {
        const int a = axis < 0 ? axis + rank : axis;
        if (a < 0 || a >= rank)
        {
            return std::nullopt;
        }
        return a;
    }
} // namespace specula::ir
