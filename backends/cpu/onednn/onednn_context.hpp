#pragma once

// oneDNN's engine and stream for the host, and the process's cache of
// primitives keyed by shape and post-ops: built at compile time, shared by
// every executable that needs the same primitive; runs only call execute().

#include <dnnl.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace specula::backends::cpu::onednn
{
    const dnnl::engine& host_engine();

    // Attributes every primitive is built with: the scratchpad is ours
    // (scratchpad_mode::user). With the library's mode, execute() allocates
    // the scratchpad and frees it again on every call; a kernel instead binds
    // memory it made once at compile time (scratchpad_of) as
    // DNNL_ARG_SCRATCHPAD.
    dnnl::primitive_attr kernel_attr();

    // The scratchpad memory `prim` needs, made once (owned by the returned
    // memory), or an empty memory when it needs none.
    dnnl::memory scratchpad_of(const dnnl::primitive& prim);

    // The primitive cached under `key`, or the one `make` builds (then
    // cached). Every primitive runs single-threaded on the lane that calls
    // it: a primitive fixes its OpenMP team size when it is created
    // (omp_get_max_threads() of the creating thread) and must run with that
    // many (one created for 2 threads and run with 1 took 9-24 ms instead of
    // 0.19 ms, softmax 512x1000), so the calling thread's OpenMP setting is
    // 1 while `make` runs and during each execute (run_single_threaded), and
    // its own value again after.
    // `make` may throw dnnl::error (e.g. dnnl_unimplemented): nothing is cached.
    std::shared_ptr<dnnl::primitive> cached_primitive(const std::string& key,
                                                      const std::function<dnnl::primitive()>& make);

    // Runs `prim` on the calling thread alone (no OpenMP team: see
    // threading.hpp) with the C API's argument array, which the caller keeps
    // across runs (the C++ execute() builds a vector per call).
    void run_single_threaded(const dnnl::primitive& prim, dnnl::stream& stream,
                             const std::vector<dnnl_exec_arg_t>& args);

    // Primitives built since the process started: the tests' hook to prove a
    // second compile of the same shape builds none.
    std::int64_t primitives_created();
} // namespace specula::backends::cpu::onednn
