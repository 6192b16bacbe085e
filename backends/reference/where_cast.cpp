#include "backends/reference/elementwise.hpp"

namespace specula::backends::reference
{
    namespace
    {
        template <class T>
        status where_typed(const strided_view& c, const strided_view& a, const strided_view& b,
                           const strided_view& out)
        {
            strided_view vc;
            strided_view va;
            strided_view vb;
            if (!broadcast_view(c, out.rank, out.shape.data(), vc) ||
                !broadcast_view(a, out.rank, out.shape.data(), va) ||
                !broadcast_view(b, out.rank, out.shape.data(), vb))
            {
                return status::invalid("where: shapes do not broadcast");
            }
            for_each_element<4>(
                out.rank, out.shape.data(), {out.data, vc.data, va.data, vb.data},
                {out.strides.data(), vc.strides.data(), va.strides.data(), vb.strides.data()},
                [&](const auto& p)
                {
                    const bool pick_a = load_as<bool>(p[1], vc.type);
                    store<T>(p[0], pick_a ? load_as<T>(p[2], va.type) : load_as<T>(p[3], vb.type));
                });
            return status::ok();
        }

        template <class T>
        status cast_typed(const strided_view& in, const strided_view& out)
        {
            strided_view src;
            if (!broadcast_view(in, out.rank, out.shape.data(), src))
            {
                return status::invalid("cast: shapes do not broadcast");
            }
            for_each_element<2>(out.rank, out.shape.data(), {out.data, src.data},
                                {out.strides.data(), src.strides.data()},
                                [&](const auto& p) { store<T>(p[0], load_as<T>(p[1], src.type)); });
            return status::ok();
        }
    } // namespace

    status run_where(const strided_view& cond, const strided_view& a, const strided_view& b,
                     const strided_view& out)
    {
        return visit_scalar(out.type, [&](auto t)
                            { return where_typed<typename decltype(t)::type>(cond, a, b, out); });
    }

    status run_cast(const strided_view& in, const strided_view& out)
    {
        return visit_scalar(out.type, [&](auto t)
                            { return cast_typed<typename decltype(t)::type>(in, out); });
    }
} // namespace specula::backends::reference
