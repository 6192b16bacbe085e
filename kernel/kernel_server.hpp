#ifndef SPECULA_KERNEL_KERNEL_SERVER_HPP
#define SPECULA_KERNEL_KERNEL_SERVER_HPP

#include <memory>
#include <mutex>

#include <nlohmann/json.hpp>
#include <xeus/xeus_context.hpp>
#include <xeus/xkernel_configuration.hpp>
#include <xeus/xserver_shell_main.hpp>

namespace specula::kernel
{
    namespace nl = nlohmann;

    // xeus's shell-on-main server with two changes:
    // - publishing on IOPub is serialised: the output coalescer publishes
    //   stream text from its timer thread while the shell thread publishes
    //   status and results, and a zmq socket must not be used by two threads
    //   at once;
    // - input_request messages are corrected on their way out (see
    //   protocol_fixes.hpp).
    class kernel_server final : public xeus::xserver_shell_main
    {
    public:
        kernel_server(zmq::context_t& context, const xeus::xconfiguration& config,
                      nl::json::error_handler_t eh);

    private:
        void publish_impl(xeus::xpub_message message, xeus::channel c) override;
        void send_stdin_impl(xeus::xmessage message) override;

        std::mutex m_publish_mutex;
    };

    // Matches xeus::xkernel's server_builder.
    std::unique_ptr<xeus::xserver> make_kernel_server(xeus::xcontext& context,
                                                      const xeus::xconfiguration& config,
                                                      nl::json::error_handler_t eh);
} // namespace specula::kernel

#endif
