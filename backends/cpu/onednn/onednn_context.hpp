#pragma once

// oneDNN's engine and stream for the host, and the process's cache of
// primitives keyed by shape and post-ops: built at compile time, shared by
// every executable that needs the same primitive; runs only call execute().

#include <dnnl.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace specula::backends::cpu::onednn
{
    const dnnl::engine& host_engine();

    // The primitive cached under (`key`, `threads`), or the one `make` builds
    // (then cached). A primitive fixes its OpenMP team size when it is created
    // (omp_get_max_threads() of the creating thread) and must run with that
    // many: one created for 2 threads and run with 1 took 9-24 ms instead of
    // 0.19 ms (softmax 512x1000). So the calling thread's OpenMP setting is
    // set to `threads` before `make`, and the kernel runs it with `threads`.
    // `make` may throw dnnl::error (e.g. dnnl_unimplemented): nothing is cached.
    std::shared_ptr<dnnl::primitive> cached_primitive(const std::string& key, int threads,
                                                      const std::function<dnnl::primitive()>& make);

    // Primitives built since the process started: the tests' hook to prove a
    // second compile of the same shape builds none.
    std::int64_t primitives_created();
} // namespace specula::backends::cpu::onednn
