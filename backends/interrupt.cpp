#include "backends/interrupt.hpp"

namespace specula::backends
{
    namespace
    {
        interrupt_check p_check = nullptr;
    }

    void set_interrupt_check(interrupt_check check)
    {
        p_check = check;
    }

    bool interrupt_requested()
    {
        return p_check != nullptr && p_check();
    }
} // namespace specula::backends
