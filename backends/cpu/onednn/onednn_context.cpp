#include "backends/cpu/onednn/onednn_context.hpp"

#include <omp.h>

#include <atomic>
#include <map>
#include <mutex>

namespace specula::backends::cpu::onednn
{
    namespace
    {
        std::atomic<std::int64_t> g_created{0};

        // One OpenMP thread for oneDNN while it builds or runs a primitive,
        // then the calling thread's own setting again: OpenMP's thread count
        // is per thread, and other OpenMP users on it (PyTorch in the same
        // process) keep theirs.
        class single_openmp_thread
        {
        public:
            single_openmp_thread() : m_saved(omp_get_max_threads()) { omp_set_num_threads(1); }
            ~single_openmp_thread() { omp_set_num_threads(m_saved); }
            single_openmp_thread(const single_openmp_thread&) = delete;
            single_openmp_thread& operator=(const single_openmp_thread&) = delete;

        private:
            int m_saved;
        };
    } // namespace

    const dnnl::engine& host_engine()
    {
        static const dnnl::engine e(dnnl::engine::kind::cpu, 0);
        return e;
    }

    dnnl::primitive_attr kernel_attr()
    {
        dnnl::primitive_attr attr;
        attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        return attr;
    }

    dnnl::memory scratchpad_of(const dnnl::primitive& prim)
    {
        const dnnl_memory_desc_t* md =
            dnnl_primitive_desc_query_md(prim.get_primitive_desc(), dnnl_query_scratchpad_md, 0);
        if (md == nullptr)
        {
            return dnnl::memory();
        }
        const dnnl::memory::desc desc(*md);
        if (desc.get_size() == 0)
        {
            return dnnl::memory();
        }
        return dnnl::memory(desc, host_engine()); // oneDNN allocates it, once
    }

    std::shared_ptr<dnnl::primitive> cached_primitive(const std::string& key,
                                                      const std::function<dnnl::primitive()>& make)
    {
        static std::mutex mutex;
        static std::map<std::string, std::shared_ptr<dnnl::primitive>> cache;
        std::lock_guard<std::mutex> lock(mutex);
        auto it = cache.find(key);
        if (it != cache.end())
        {
            return it->second;
        }
        std::shared_ptr<dnnl::primitive> made;
        {
            single_openmp_thread one;
            made = std::make_shared<dnnl::primitive>(make());
        }
        g_created.fetch_add(1, std::memory_order_relaxed);
        cache.emplace(key, made);
        return made;
    }

    void run_single_threaded(const dnnl::primitive& prim, dnnl::stream& stream,
                             const std::vector<dnnl_exec_arg_t>& args)
    {
        // The team size is the calling thread's OpenMP setting.
        single_openmp_thread one;
        dnnl::error::wrap_c_api(dnnl_primitive_execute(prim.get(), stream.get(),
                                                       static_cast<int>(args.size()), args.data()),
                                "could not execute a primitive");
        stream.wait();
    }

    std::int64_t primitives_created()
    {
        return g_created.load(std::memory_order_relaxed);
    }
} // namespace specula::backends::cpu::onednn
