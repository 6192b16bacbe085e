#ifndef SPECULA_KERNEL_KERNEL_OPTIONS_HPP
#define SPECULA_KERNEL_KERNEL_OPTIONS_HPP

#include <string>
#include <vector>

namespace specula::kernel
{
    // What the command line asked for. Jupyter starts us as
    // `specula -f <connection file>`; people run --version and --help.
    struct kernel_options
    {
        std::string connection_file;
        bool show_version = false;
        bool show_help = false;
    };

    struct parsed_options
    {
        kernel_options options;
        std::string error; // empty when the arguments were valid

        bool ok() const { return error.empty(); }
    };

    // `args` excludes argv[0].
    parsed_options parse_arguments(const std::vector<std::string>& args);

    std::string usage_text(const std::string& program);

    // Exit status when a port of the connection file could not be bound because
    // another process holds it: sysexits' EX_TEMPFAIL, "try again", which a
    // launcher can do with new ports. Every other start failure exits with 1.
    constexpr int exit_port_in_use = 75;

    // Checks that the connection file exists and holds the keys a Jupyter
    // client writes. Returns an empty string when it is usable, otherwise a
    // sentence saying what is wrong, for stderr.
    std::string check_connection_file(const std::string& path);
} // namespace specula::kernel

#endif
