#include "backends/cpu/onednn/onednn_matmul.hpp"

#include "backends/cpu/onednn/onednn_context.hpp"
#include "backends/cpu/onednn/onednn_graph_util.hpp"
#include "backends/cpu/threading.hpp"

#include "ir/passes/fuse_elementwise.hpp"

#include <omp.h>

#include <cstring>
#include <optional>
#include <unordered_map>

namespace specula::backends::cpu::onednn
{
    namespace
    {
        using tag = dnnl::memory::format_tag;

        std::string key_of(const matmul_spec& s)
        {
            return "matmul " + std::to_string(static_cast<int>(s.elem)) + " " +
                   std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n) +
                   (s.bias ? " bias" : "") + " act" + std::to_string(static_cast<int>(s.act));
        }

        dnnl::primitive build(const matmul_spec& s)
        {
            const dnnl::engine& eng = host_engine();
            const dnnl::memory::desc a_md({s.m, s.k}, s.elem, tag::ab);
            const dnnl::memory::desc w_md({s.k, s.n}, s.elem, tag::ab);
            const dnnl::memory::desc c_md({s.m, s.n}, s.elem, tag::ab);
            dnnl::post_ops ops;
            // ReLU is not a post-op: oneDNN's relu (vmaxps) turns NaN into 0
            // where np.maximum(y, 0) keeps it; the kernel applies it after.
            if (s.act == activation::tanh)
            {
                ops.append_eltwise(1.f, dnnl::algorithm::eltwise_tanh, 0.f, 0.f);
            }
            dnnl::primitive_attr attr;
            attr.set_post_ops(ops);
            const auto desc =
                s.bias ? dnnl::matmul::desc(a_md, w_md,
                                            dnnl::memory::desc({1, s.n}, s.elem, tag::ab), c_md)
                       : dnnl::matmul::desc(a_md, w_md, c_md);
            return dnnl::matmul(dnnl::matmul::primitive_desc(desc, attr, eng));
        }

        // A [rows, cols] float32 operand of the product, or nothing.
        std::optional<std::pair<std::int64_t, std::int64_t>> matrix_of(const ir::graph& g,
                                                                       ir::value_id v)
        {
            const ir::value_type& t = g.type_of(v);
            auto sizes = t.dims.static_sizes();
            if (t.elem != ir::dtype::float32 || !sizes || sizes->size() != 2)
            {
                return std::nullopt;
            }
            return std::make_pair((*sizes)[0], (*sizes)[1]);
        }

        std::optional<matmul_spec> spec_of_matmul(const ir::graph& g, const ir::node& n)
        {
            if (n.code != ir::op::MATMUL || n.inputs.size() != 2)
            {
                return std::nullopt;
            }
            auto a = matrix_of(g, n.inputs[0]);
            auto w = matrix_of(g, n.inputs[1]);
            if (!a || !w || a->second != w->first)
            {
                return std::nullopt;
            }
            matmul_spec s;
            s.m = a->first;
            s.k = a->second;
            s.n = w->second;
            if (s.m * s.k * s.n < min_matmul_work)
            {
                return std::nullopt;
            }
            return s;
        }

        ir::value_id other_operand(const ir::node& n, ir::value_id v)
        {
            if (n.inputs.size() != 2 || (n.inputs[0] == v) == (n.inputs[1] == v))
            {
                return ir::no_id;
            }
            return n.inputs[0] == v ? n.inputs[1] : n.inputs[0];
        }

        bool is_bias_row(const ir::graph& g, ir::value_id b, std::int64_t n)
        {
            const ir::value_type& t = g.type_of(b);
            auto sizes = t.dims.static_sizes();
            if (t.elem != ir::dtype::float32 || !sizes)
            {
                return false;
            }
            return *sizes == std::vector<std::int64_t>{n} ||
                   *sizes == std::vector<std::int64_t>{1, n};
        }

        bool is_zero_constant(const ir::graph& g, ir::value_id v)
        {
            const ir::node_id def = g.get(v).def;
            if (def == ir::no_id || g.get_node(def).code != ir::op::CONSTANT)
            {
                return false;
            }
            const auto& c = g.get_node(def).attr_as<ir::constant_attr>();
            return c.size() == 1 && c.element(0).as_double() == 0.0;
        }

        // np.maximum(y, 0): y where y >= 0 or y is NaN (so -0.0 and NaN stay).
        void relu_like_numpy(float* y, std::int64_t n)
        {
            for (std::int64_t i = 0; i < n; ++i)
            {
                const float v = y[i];
                y[i] = (v >= 0.f || v != v) ? v : 0.f;
            }
        }

        class matmul_kernel final : public kernel
        {
        public:
            matmul_kernel(const matmul_spec& s, std::shared_ptr<dnnl::primitive> prim)
                : m_spec(s), m_prim(std::move(prim)), m_stream(host_engine())
            {
                const dnnl::engine& eng = host_engine();
                auto md = [&](std::int64_t r, std::int64_t c) {
                    return dnnl::memory::desc({r, c}, s.elem, tag::ab);
                };
                m_args[DNNL_ARG_SRC] = dnnl::memory(md(s.m, s.k), eng, DNNL_MEMORY_NONE);
                m_args[DNNL_ARG_WEIGHTS] = dnnl::memory(md(s.k, s.n), eng, DNNL_MEMORY_NONE);
                m_args[DNNL_ARG_DST] = dnnl::memory(md(s.m, s.n), eng, DNNL_MEMORY_NONE);
                if (s.bias)
                {
                    m_args[DNNL_ARG_BIAS] = dnnl::memory(md(1, s.n), eng, DNNL_MEMORY_NONE);
                }
            }

        private:
            // A C-contiguous view of `b`: its own bytes, or a copy in `scratch`
            // (made only when the caller passed a strided array).
            static void* contiguous(const buffer& b, std::vector<float>& scratch)
            {
                if (b.is_contiguous())
                {
                    return b.data();
                }
                scratch.resize(static_cast<std::size_t>(b.size()));
                const auto& shape = b.shape();
                const auto& strides = b.strides();
                const std::int64_t cols = shape.empty() ? 1 : shape.back();
                const std::int64_t rows = cols == 0 ? 0 : b.size() / cols;
                const std::int64_t row_step = shape.size() == 2 ? strides[0] : 0;
                const std::int64_t col_step = shape.empty() ? 0 : strides.back();
                for (std::int64_t i = 0; i < rows; ++i)
                {
                    for (std::int64_t j = 0; j < cols; ++j)
                    {
                        std::memcpy(&scratch[static_cast<std::size_t>(i * cols + j)],
                                    b.data() + i * row_step + j * col_step, sizeof(float));
                    }
                }
                return scratch.data();
            }

            status run_impl(const kernel_io& io) const override
            {
                try
                {
                    m_args.at(DNNL_ARG_SRC).set_data_handle(contiguous(io.in(0), m_copies[0]));
                    m_args.at(DNNL_ARG_WEIGHTS).set_data_handle(contiguous(io.in(1), m_copies[1]));
                    if (m_spec.bias)
                    {
                        m_args.at(DNNL_ARG_BIAS).set_data_handle(contiguous(io.in(2), m_copies[2]));
                    }
                    m_args.at(DNNL_ARG_DST).set_data_handle(io.out(0).data());
                    // The team size is the calling thread's OpenMP setting.
                    omp_set_num_threads(onednn_threads());
                    m_prim->execute(m_stream, m_args);
                    m_stream.wait();
                    if (m_spec.act == activation::relu)
                    {
                        relu_like_numpy(reinterpret_cast<float*>(io.out(0).data()),
                                        m_spec.m * m_spec.n);
                    }
                }
                catch (const dnnl::error& e)
                {
                    return status::runtime(std::string("oneDNN matmul: ") + e.what());
                }
                return status::ok();
            }

            matmul_spec m_spec;
            std::shared_ptr<dnnl::primitive> m_prim;
            mutable dnnl::stream m_stream;
            mutable std::unordered_map<int, dnnl::memory> m_args;
            mutable std::vector<float> m_copies[3];
        };
    } // namespace

    result<std::shared_ptr<dnnl::primitive>> matmul_primitive(const matmul_spec& spec)
    {
        try
        {
            return cached_primitive(key_of(spec), onednn_threads(), [&] { return build(spec); });
        }
        catch (const dnnl::error& e)
        {
            // "Unimplemented" (or any refusal) is a normal answer: fall back.
            return status::unimplemented(std::string("oneDNN: ") + e.what());
        }
    }

    std::vector<fused_group> matmul_patterns(const ir::graph& g)
    {
        std::vector<fused_group> found;
        for (ir::region_id r = 0; r < g.num_regions(); ++r)
        {
            const ir::region& reg = g.get_region(r);
            for (ir::node_id id : reg.nodes)
            {
                const ir::node& mm = g.get_node(id);
                auto spec = spec_of_matmul(g, mm);
                if (!spec)
                {
                    continue;
                }
                const ir::node* add = only_user(g, mm.outputs[0]);
                if (add == nullptr || add->code != ir::op::ADD ||
                    !is_bias_row(g, other_operand(*add, mm.outputs[0]), spec->n))
                {
                    continue;
                }
                fused_group fg;
                fg.region = r;
                fg.members = {&mm, add};
                const ir::node* act = only_user(g, add->outputs[0]);
                if (act != nullptr && act->outputs.size() == 1 &&
                    g.type_of(act->outputs[0]).elem == ir::dtype::float32 &&
                    ((act->code == ir::op::MAXIMUM &&
                      is_zero_constant(g, other_operand(*act, add->outputs[0]))) ||
                     act->code == ir::op::TANH))
                {
                    fg.members.push_back(act);
                }
                if (finish_group(g, fg) && fg.outputs.size() == 1)
                {
                    found.push_back(std::move(fg));
                }
            }
        }
        return found;
    }

    result<group_kernel> make_matmul_group(const ir::graph& g, const fused_group& fg)
    {
        auto spec = spec_of_matmul(g, *fg.members.front());
        if (!spec || fg.members.size() < 2)
        {
            return status::unimplemented("not a matmul pattern");
        }
        const ir::node& mm = *fg.members[0];
        const ir::node& add = *fg.members[1];
        spec->bias = true;
        if (fg.members.size() == 3)
        {
            spec->act = fg.members[2]->code == ir::op::TANH ? activation::tanh : activation::relu;
        }
        auto prim = matmul_primitive(*spec);
        if (!prim)
        {
            return prim.error();
        }
        group_kernel gk;
        gk.m_inputs = {mm.inputs[0], mm.inputs[1], other_operand(add, mm.outputs[0])};
        gk.m_kernel = std::make_unique<matmul_kernel>(*spec, std::move(prim.value()));
        return gk;
    }

    result<std::unique_ptr<kernel>> make_matmul_node(const ir::graph& g, const ir::node& n)
    {
        auto spec = spec_of_matmul(g, n);
        if (!spec)
        {
            return status::unimplemented("not a large float32 matmul");
        }
        auto prim = matmul_primitive(*spec);
        if (!prim)
        {
            return prim.error();
        }
        return std::unique_ptr<kernel>(new matmul_kernel(*spec, std::move(prim.value())));
    }
} // namespace specula::backends::cpu::onednn
