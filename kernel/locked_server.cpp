#include "kernel/locked_server.hpp"

#include <utility>

namespace specula::kernel
{
    locked_server::locked_server(zmq::context_t& context, const xeus::xconfiguration& config,
                                 nl::json::error_handler_t eh)
        : xeus::xserver_shell_main(context, config, eh)
    {
    }

    void locked_server::publish_impl(xeus::xpub_message message, xeus::channel c)
    {
        std::lock_guard<std::mutex> lock(m_publish_mutex);
        xeus::xserver_shell_main::publish_impl(std::move(message), c);
    }

    std::unique_ptr<xeus::xserver> make_locked_server(xeus::xcontext& context,
                                                      const xeus::xconfiguration& config,
                                                      nl::json::error_handler_t eh)
    {
        return std::make_unique<locked_server>(context.get_wrapped_context<zmq::context_t>(),
                                               config, eh);
    }
}
