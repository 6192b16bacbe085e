#pragma once

// Where a buffer's bytes live. Buffers carry their device from the start so
// the CUDA backend can reject (or move) host memory instead of misreading it.

#include <string>

namespace specula::backends
{
    enum class device_kind
    {
        cpu,
        cuda,
    };

    struct device
    {
        device_kind kind = device_kind::cpu;
        int index = 0;

        bool operator==(const device& o) const { return kind == o.kind && index == o.index; }
        bool operator!=(const device& o) const { return !(*this == o); }
        std::string to_string() const;
    };
} // namespace specula::backends
