#include "graph_program.hpp"

#include "backends/reference/view.hpp"

#include <cstring>
#include <fstream>

namespace specula::backends::testing
{
    std::vector<graph_program> read_programs(const std::string& path, std::string& error)
    {
        std::vector<graph_program> programs;
        std::ifstream file(path);
        if (!file)
        {
            error = "cannot open " + path;
            return programs;
        }
        std::string line;
        while (std::getline(file, line))
        {
            std::istringstream in(line);
            std::string tag;
            in >> tag;
            if (tag == "program")
            {
                programs.emplace_back();
                in >> programs.back().name;
                continue;
            }
            if (programs.empty() || tag == "end")
            {
                continue;
            }
            graph_program& p = programs.back();
            if (tag == "step")
            {
                program_step s;
                std::size_t n = 0;
                in >> s.mnemonic >> s.tolerance >> n;
                s.refs.resize(n);
                for (auto& r : s.refs)
                {
                    in >> r;
                }
                in >> n;
                s.params.resize(n);
                for (auto& v : s.params)
                {
                    in >> v;
                }
                p.steps.push_back(std::move(s));
                continue;
            }
            oracle_array a;
            if (!parse_array(in, a))
            {
                error = "bad array in " + p.name;
                return {};
            }
            if (tag == "in")
            {
                p.inputs.push_back(std::move(a));
            }
            else if (tag == "out")
            {
                p.steps.back().expected = std::move(a);
            }
            else
            {
                p.steps.back().bound = std::move(a);
            }
        }
        return programs;
    }

    namespace
    {
        ir::value_type type_of(const oracle_array& a)
        {
            return {*ir::dtype_from_name(reference::scalar_name(a.type)), ir::shape::of(a.shape)};
        }

        std::vector<int> ints(const std::vector<std::int64_t>& v, std::size_t from = 0)
        {
            return std::vector<int>(v.begin() + static_cast<std::ptrdiff_t>(from), v.end());
        }

        std::vector<ir::slice_item> slice_items(const std::vector<std::int64_t>& p)
        {
            std::vector<ir::slice_item> items;
            for (std::size_t i = 0; i + 5 < p.size(); i += 6)
            {
                ir::slice_item it;
                it.what = static_cast<ir::slice_item::kind>(p[i]);
                it.start = p[i + 1];
                it.stop = p[i + 2];
                it.step = p[i + 3];
                it.has_start = p[i + 4] != 0;
                it.has_stop = p[i + 5] != 0;
                items.push_back(it);
            }
            return items;
        }

        ir::value_id build_reduce(ir::builder& b, ir::op code, ir::value_id x,
                                  const std::vector<std::int64_t>& p)
        {
            const bool keep = p[0] != 0;
            if (p[2] != 0)
            {
                return b.reduce_all(code, x, keep, p[1]);
            }
            return b.reduce(code, x, ints(p, 3), keep, p[1]);
        }

        std::vector<std::int64_t> tail(const std::vector<std::int64_t>& p, std::size_t from)
        {
            return std::vector<std::int64_t>(p.begin() + static_cast<std::ptrdiff_t>(from),
                                             p.end());
        }

        // A numerator/denominator pair as the IR scalar NumPy would see.
        ir::scalar number(ir::dtype elem, std::int64_t num, std::int64_t den)
        {
            if (ir::is_float(elem))
            {
                return ir::scalar::of_float(ir::dtype::float64,
                                            static_cast<double>(num) / static_cast<double>(den));
            }
            return ir::scalar::of_int(ir::dtype::int64, num);
        }

        ir::value_id build_indexing_or_creation(ir::builder& b, ir::op code, const program_step& s,
                                                const std::vector<ir::value_id>& in)
        {
            const auto& p = s.params;
            const ir::dtype elem = p.empty() ? ir::dtype::float64 : ir::all_dtypes[p[0] & 7];
            switch (code)
            {
            case ir::op::GATHER:
                return b.gather(in[0], in[1], static_cast<int>(p[0]));
            case ir::op::MASK_SELECT:
                return b.mask_select(in[0], in[1]);
            case ir::op::SLICE_UPDATE:
                return b.slice_update(in[0], in[1], slice_items(p));
            case ir::op::GATHER_UPDATE:
                return b.gather_update(in[0], in[1], in[2], static_cast<int>(p[0]));
            case ir::op::MASK_UPDATE:
                return b.mask_update(in[0], in[1], in[2]);
            case ir::op::FILL:
                return b.fill(in[0], in[1]);
            case ir::op::SQUEEZE:
                return b.squeeze(in[0], ints(p));
            case ir::op::SHAPE_DIM:
                return b.shape_dim(in[0], static_cast<int>(p[0]));
            case ir::op::ZEROS:
                return b.zeros(ir::shape::of(tail(p, 1)), elem);
            case ir::op::ONES:
                return b.ones(ir::shape::of(tail(p, 1)), elem);
            case ir::op::FULL:
                return b.full(ir::shape::of(tail(p, 3)), elem, number(elem, p[1], p[2]));
            case ir::op::ARANGE:
                return b.arange(number(elem, p[1], p[2]), number(elem, p[3], p[4]), p[5], elem);
            case ir::op::EYE:
                return b.eye(p[1], p[2], p[3], elem);
            default:
                return ir::no_id;
            }
        }

        // NumPy's shape must be an instance of the IR's (symbolic dims match any size).
        bool type_matches(const ir::value_type& ir_type, const ir::value_type& numpy)
        {
            if (ir_type.elem != numpy.elem || ir_type.dims.rank() != numpy.dims.rank())
            {
                return false;
            }
            for (int d = 0; d < ir_type.dims.rank(); ++d)
            {
                if (ir_type.dims[d].is_static() && ir_type.dims[d] != numpy.dims[d])
                {
                    return false;
                }
            }
            return true;
        }

        ir::value_id build_step(ir::builder& b, const program_step& s,
                                const std::vector<ir::value_id>& v)
        {
            const auto code = ir::op_from_mnemonic(s.mnemonic);
            if (!code)
            {
                return ir::no_id;
            }
            const auto in = [&](int i) { return v[static_cast<std::size_t>(s.refs[i])]; };
            const auto& p = s.params;
            if (*code == ir::op::CAST)
            {
                return b.cast(in(0), ir::all_dtypes[p[0]]);
            }
            if (ir::has(*code, ir::prop::ELEMENTWISE | ir::prop::UNARY))
            {
                return b.unary(*code, in(0));
            }
            if (ir::has(*code, ir::prop::ELEMENTWISE | ir::prop::BINARY))
            {
                return b.binary(*code, in(0), in(1));
            }
            if (ir::has(*code, ir::prop::REDUCTION))
            {
                return build_reduce(b, *code, in(0), p);
            }
            std::vector<ir::value_id> all;
            for (std::size_t i = 0; i < s.refs.size(); ++i)
            {
                all.push_back(in(static_cast<int>(i)));
            }
            switch (*code)
            {
            case ir::op::WHERE:
                return b.where(in(0), in(1), in(2));
            case ir::op::CLIP:
                return b.clip(in(0), in(1), in(2));
            case ir::op::MATMUL:
                return b.matmul(in(0), in(1));
            case ir::op::DOT:
                return b.dot(in(0), in(1));
            case ir::op::OUTER:
                return b.outer(in(0), in(1));
            case ir::op::TRANSPOSE:
                return b.transpose(in(0), ints(p));
            case ir::op::RESHAPE:
                return b.reshape(in(0), ir::shape::of(p));
            case ir::op::EXPAND_DIMS:
                return b.expand_dims(in(0), ints(p));
            case ir::op::BROADCAST_TO:
                return b.broadcast_to(in(0), ir::shape::of(p));
            case ir::op::CONCATENATE:
                return b.concatenate(all, static_cast<int>(p[0]));
            case ir::op::STACK:
                return b.stack(all, static_cast<int>(p[0]));
            case ir::op::SLICE:
                return b.slice(in(0), slice_items(p));
            default:
                return build_indexing_or_creation(b, *code, s, all);
            }
        }
    } // namespace

    std::string build_program(const graph_program& p, ir::graph& g)
    {
        ir::builder b(g);
        std::vector<ir::value_id> values;
        for (const auto& a : p.inputs)
        {
            values.push_back(b.input(type_of(a)));
        }
        for (std::size_t i = 0; i < p.steps.size(); ++i)
        {
            const program_step& s = p.steps[i];
            const ir::value_id v = build_step(b, s, values);
            if (!b.ok() || v == ir::no_id)
            {
                return "step " + std::to_string(i) + " (" + s.mnemonic +
                       "): the IR refuses what NumPy accepts: " + b.state().message();
            }
            const ir::value_type want = type_of(s.expected);
            if (!type_matches(g.type_of(v), want))
            {
                return "step " + std::to_string(i) + " (" + s.mnemonic + "): IR infers " +
                       g.type_of(v).to_string() + ", NumPy gives " + want.to_string();
            }
            values.push_back(v);
            b.output(v);
        }
        return b.ok() ? "" : b.state().message();
    }

    buffer to_buffer(oracle_array& a)
    {
        auto elem = *ir::dtype_from_name(reference::scalar_name(a.type));
        auto b = buffer::allocate(elem, a.shape);
        std::memcpy(b->data(), a.data(), a.bytes());
        return b.value();
    }

    oracle_array from_buffer(const buffer& b)
    {
        auto a = oracle_array::zeros(reference::to_scalar(b.dtype()), b.shape());
        if (b.is_contiguous())
        {
            std::memcpy(a.data(), b.data(), a.bytes());
        }
        return a;
    }
} // namespace specula::backends::testing
