#include "kernel/kernel_server.hpp"

#include <utility>

#include "kernel/protocol_fixes.hpp"

namespace specula::kernel
{
    kernel_server::kernel_server(zmq::context_t& context, const xeus::xconfiguration& config,
                                 nl::json::error_handler_t eh)
        : xeus::xserver_shell_main(context, config, eh)
    {
    }

    void kernel_server::publish_impl(xeus::xpub_message message, xeus::channel c)
    {
        std::lock_guard<std::mutex> lock(m_publish_mutex);
        xeus::xserver_shell_main::publish_impl(std::move(message), c);
    }

    void kernel_server::send_stdin_impl(xeus::xmessage message)
    {
        if (message.header().value("msg_type", "") != "input_request")
        {
            xeus::xserver_shell_main::send_stdin_impl(std::move(message));
            return;
        }
        // Copy what stays before moving the buffers out of the message.
        xeus::xmessage::guid_list identities = message.identities();
        nl::json header = message.header();
        nl::json parent_header = message.parent_header();
        nl::json metadata = message.metadata();
        nl::json content = input_request_content(message.content());
        xeus::xmessage fixed(identities, std::move(header), std::move(parent_header),
                             std::move(metadata), std::move(content), std::move(message).buffers());
        xeus::xserver_shell_main::send_stdin_impl(std::move(fixed));
    }

    std::unique_ptr<xeus::xserver> make_kernel_server(xeus::xcontext& context,
                                                      const xeus::xconfiguration& config,
                                                      nl::json::error_handler_t eh)
    {
        return std::make_unique<kernel_server>(context.get_wrapped_context<zmq::context_t>(),
                                               config, eh);
    }
} // namespace specula::kernel
