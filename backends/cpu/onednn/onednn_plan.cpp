#include "backends/cpu/onednn/onednn_plan.hpp"

#include "backends/cpu/onednn/onednn_context.hpp"

#include <atomic>

namespace specula::backends::cpu::onednn
{
    namespace
    {
        std::atomic<std::int64_t> g_kernels{0};
        float g_one = 1.f; // oneDNN only reads it (operand::one)

        using tag = dnnl::memory::format_tag;

        std::int64_t product(const dnnl::memory::dims& d, std::size_t from = 0)
        {
            std::int64_t p = 1;
            for (std::size_t i = from; i < d.size(); ++i)
            {
                p *= d[i];
            }
            return p;
        }

        std::string dims_key(const dnnl::memory::dims& d)
        {
            std::string s = "[";
            for (auto x : d)
            {
                s += std::to_string(x) + ",";
            }
            return s + "]";
        }

        // One lane's call: its primitive and the memories it binds, each with
        // the element offset of the lane's first row in that operand.
        struct lane_call
        {
            std::shared_ptr<dnnl::primitive> prim;
            std::int64_t r0 = 0, r1 = 0;       // the lane's rows
            std::vector<std::int64_t> offsets; // per operand
            // The memories bound to the call, per operand, then the
            // scratchpad when the primitive needs one; `args` is the C API's
            // view of them (kept: execute() must not build one per run).
            std::vector<dnnl::memory> memories;
            std::vector<dnnl_exec_arg_t> args;
            std::vector<std::vector<float>> scratch; // operand::scratch memories
        };

        class plan_kernel final : public kernel
        {
        public:
            plan_kernel(call_plan plan, std::vector<lane_call> lanes,
                        std::shared_ptr<thread_pool> pool)
                : m_operands(std::move(plan.operands)), m_after(std::move(plan.after)),
                  m_lanes(std::move(lanes)), m_pool(std::move(pool))
            {
                for (std::size_t i = 0; i < m_lanes.size(); ++i)
                {
                    m_streams.emplace_back(host_engine());
                }
                m_status.assign(m_lanes.size(), status::ok());
            }

        private:
            status run_lane(const kernel_io& io, std::size_t lane) const
            {
                lane_call& c = m_lanes[lane];
                try
                {
                    for (std::size_t i = 0; i < m_operands.size(); ++i)
                    {
                        const operand& o = m_operands[i];
                        if (o.scratch)
                        {
                            continue; // bound once, at compile time
                        }
                        if (o.one)
                        {
                            c.memories[i].set_data_handle(&g_one);
                            continue;
                        }
                        std::byte* base = o.output ? io.out(o.index).data() : io.in(o.index).data();
                        c.memories[i].set_data_handle(
                            base + c.offsets[i] * static_cast<std::int64_t>(sizeof(float)));
                    }
                    // One thread per lane: the lanes are the parallelism.
                    run_single_threaded(*c.prim, m_streams[lane], c.args);
                    if (m_after)
                    {
                        m_after(io, c.r0, c.r1);
                    }
                }
                catch (const dnnl::error& e)
                {
                    return status::runtime(std::string("oneDNN: ") + e.what());
                }
                return status::ok();
            }

            status run_impl(const kernel_io& io) const override
            {
                if (m_lanes.size() == 1)
                {
                    return run_lane(io, 0);
                }
                // Per-lane answers in a member: no allocation on the hot path.
                std::vector<status>& st = m_status;
                m_pool->run(
                    [&](int lane)
                    {
                        if (static_cast<std::size_t>(lane) < m_lanes.size())
                        {
                            st[static_cast<std::size_t>(lane)] =
                                run_lane(io, static_cast<std::size_t>(lane));
                        }
                    });
                for (status& s : st)
                {
                    if (!s)
                    {
                        status failed = s;
                        s = status::ok();
                        return failed;
                    }
                }
                return status::ok();
            }

            std::vector<operand> m_operands;
            std::function<void(const kernel_io&, std::int64_t, std::int64_t)> m_after;
            mutable std::vector<lane_call> m_lanes;
            mutable std::vector<dnnl::stream> m_streams;
            mutable std::vector<status> m_status;
            std::shared_ptr<thread_pool> m_pool;
        };

        std::int64_t output_rows(const call_plan& plan)
        {
            for (const operand& o : plan.operands)
            {
                if (o.output)
                {
                    return o.dims.empty() ? 1 : o.dims[0];
                }
            }
            return 1;
        }

        std::int64_t output_elements(const call_plan& plan)
        {
            for (const operand& o : plan.operands)
            {
                if (o.output)
                {
                    return product(o.dims);
                }
            }
            return 0;
        }

        // The call over rows [r0, r1) of the plan's full row count `rows`.
        lane_call make_lane(const call_plan& plan, std::int64_t rows, std::int64_t r0,
                            std::int64_t r1)
        {
            std::vector<dnnl::memory::desc> mds;
            lane_call c;
            c.r0 = r0;
            c.r1 = r1;
            std::string key = plan.what;
            for (const operand& o : plan.operands)
            {
                dnnl::memory::dims d = o.dims;
                const bool split = !o.fixed && !d.empty() && d[0] == rows && rows > 1;
                if (split)
                {
                    d[0] = r1 - r0;
                }
                c.offsets.push_back(split ? r0 * product(o.dims, 1) : 0);
                key += " " + dims_key(d);
                mds.push_back(f32_desc(d));
            }
            c.prim = cached_primitive(key, [&] { return plan.make(mds); });
            // Reserved up front: `args` points into the memories' handles.
            c.scratch.reserve(mds.size());
            for (std::size_t i = 0; i < mds.size(); ++i)
            {
                void* handle = DNNL_MEMORY_NONE;
                if (plan.operands[i].scratch)
                {
                    c.scratch.emplace_back(mds[i].get_size() / sizeof(float) + 1);
                    handle = c.scratch.back().data();
                }
                c.memories.emplace_back(mds[i], host_engine(), handle);
                c.args.push_back({plan.operands[i].arg, c.memories.back().get()});
            }
            if (dnnl::memory pad = scratchpad_of(*c.prim))
            {
                c.memories.push_back(pad);
                c.args.push_back({DNNL_ARG_SCRATCHPAD, pad.get()});
            }
            return c;
        }
    } // namespace

    std::int64_t plan_kernels_made()
    {
        return g_kernels.load(std::memory_order_relaxed);
    }

    dnnl::memory::desc f32_desc(const dnnl::memory::dims& dims)
    {
        static const tag tags[] = {tag::a, tag::ab, tag::abc, tag::abcd, tag::abcde, tag::abcdef};
        if (dims.empty() || dims.size() > 6)
        {
            throw dnnl::error(dnnl_unimplemented, "rank outside 1..6");
        }
        return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, tags[dims.size() - 1]);
    }

    result<std::unique_ptr<kernel>> make_plan_kernel(call_plan plan,
                                                     std::shared_ptr<thread_pool> pool,
                                                     std::int64_t split_min_elements)
    {
        const std::int64_t rows = output_rows(plan);
        const int lanes = pool ? pool->lanes() : 1;
        const bool split = plan.rows_independent && lanes > 1 && rows >= lanes &&
                           output_elements(plan) >= split_min_elements;
        try
        {
            std::vector<lane_call> calls;
            const std::int64_t n = split ? lanes : 1;
            for (std::int64_t l = 0; l < n; ++l)
            {
                calls.push_back(make_lane(plan, rows, rows * l / n, rows * (l + 1) / n));
            }
            g_kernels.fetch_add(1, std::memory_order_relaxed);
            return std::unique_ptr<kernel>(
                new plan_kernel(std::move(plan), std::move(calls), std::move(pool)));
        }
        catch (const dnnl::error& e)
        {
            // "Unimplemented" (or any refusal) is a normal answer: fall back.
            return status::unimplemented(std::string("oneDNN: ") + e.what());
        }
    }
} // namespace specula::backends::cpu::onednn
