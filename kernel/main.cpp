// The `specula` executable: Jupyter starts it through the kernelspec as
// `specula -f <connection file>`.
#include <cerrno>
#include <exception>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <xeus/xeus_context.hpp>
#include <xeus/xkernel.hpp>
#include <xeus/xkernel_configuration.hpp>
#include <zmq.hpp>

#include "kernel/history_manager.hpp"
#include "kernel/interpreter.hpp"
#include "kernel/kernel_options.hpp"
#include "kernel/kernel_server.hpp"
#include "kernel/python_runtime.hpp"
#include "kernel/sigint_gate.hpp"
#include "kernel/version.hpp"

namespace sk = specula::kernel;

namespace
{
    int fail(const std::string& message)
    {
        std::cerr << "specula: " << message << std::endl;
        return 1;
    }

    int run_kernel(const sk::kernel_options& options, const std::string& argv0)
    {
        sk::python_runtime python(argv0);
        if (std::string missing = python.check_required_modules(); !missing.empty())
        {
            return fail(missing);
        }
        xeus::xconfiguration config = xeus::load_configuration(options.connection_file);
        // xeus announces itself on std::clog; a kernel started by Jupyter
        // should be quiet. Our own errors go to std::cerr.
        std::clog.setstate(std::ios_base::failbit);

        auto history = std::make_unique<sk::history_manager>();
        auto interpreter = std::make_unique<sk::interpreter>(*history);
        xeus::xkernel kernel(config, xeus::get_user_name(), xeus::make_context<zmq::context_t>(),
                             std::move(interpreter), sk::make_kernel_server, std::move(history));
        kernel.start();
        return 0;
    }
} // namespace

int main(int argc, char* argv[])
{
    // Before any thread exists, so that every thread inherits the mask.
    sk::block_sigint();

    std::vector<std::string> args(argv + 1, argv + argc);
    sk::parsed_options parsed = sk::parse_arguments(args);
    if (!parsed.ok())
    {
        std::cerr << "specula: " << parsed.error << "\n\n" << sk::usage_text("specula");
        return 2;
    }
    if (parsed.options.show_help)
    {
        std::cout << sk::usage_text("specula");
        return 0;
    }
    if (parsed.options.show_version)
    {
        std::cout << "specula " << sk::specula_version << std::endl;
        return 0;
    }
    if (std::string problem = sk::check_connection_file(parsed.options.connection_file);
        !problem.empty())
    {
        return fail(problem);
    }
    try
    {
        return run_kernel(parsed.options, argv[0]);
    }
    catch (const zmq::error_t& e)
    {
        // The launcher chose the ports and released them before we bound them;
        // another process may have taken one meanwhile. Only a fresh set of ports
        // helps, so tell the launcher with a distinct status rather than 1.
        if (e.num() == EADDRINUSE)
        {
            fail(std::string("cannot start: a port of the connection file is in use (") + e.what() +
                 "); start the kernel again with new ports");
            return sk::exit_port_in_use;
        }
        return fail(std::string("cannot start: ") + e.what());
    }
    catch (const std::exception& e)
    {
        return fail(std::string("cannot start: ") + e.what());
    }
}
