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
    } // namespace

    const dnnl::engine& host_engine()
    {
        static const dnnl::engine e(dnnl::engine::kind::cpu, 0);
        return e;
    }

    std::shared_ptr<dnnl::primitive> cached_primitive(const std::string& key, int threads,
                                                      const std::function<dnnl::primitive()>& make)
    {
        static std::mutex mutex;
        static std::map<std::string, std::shared_ptr<dnnl::primitive>> cache;
        const std::string full = key + " threads " + std::to_string(threads);
        std::lock_guard<std::mutex> lock(mutex);
        auto it = cache.find(full);
        if (it != cache.end())
        {
            return it->second;
        }
        omp_set_num_threads(threads);
        auto made = std::make_shared<dnnl::primitive>(make());
        g_created.fetch_add(1, std::memory_order_relaxed);
        cache.emplace(full, made);
        return made;
    }

    std::int64_t primitives_created()
    {
        return g_created.load(std::memory_order_relaxed);
    }
} // namespace specula::backends::cpu::onednn
