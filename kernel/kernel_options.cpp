#include "kernel/kernel_options.hpp"

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace nl = nlohmann;

namespace specula::kernel
{
    namespace
    {
        bool starts_with(const std::string& text, const std::string& prefix)
        {
            return text.compare(0, prefix.size(), prefix) == 0;
        }

        // Accepts "-f X", "-f=X", "--connection-file X" and "--connection-file=X".
        // Returns true when args[i] named the connection file; advances i past
        // a separate value.
        bool take_connection_file(const std::vector<std::string>& args, std::size_t& i,
                                  parsed_options& out)
        {
            const std::string& arg = args[i];
            for (const std::string flag : {"-f", "--connection-file"})
            {
                if (arg == flag)
                {
                    if (i + 1 >= args.size())
                    {
                        out.error = "option " + flag + " needs a connection file";
                        return true;
                    }
                    out.options.connection_file = args[++i];
                    return true;
                }
                if (starts_with(arg, flag + "="))
                {
                    out.options.connection_file = arg.substr(flag.size() + 1);
                    if (out.options.connection_file.empty())
                    {
                        out.error = "option " + flag + " needs a connection file";
                    }
                    return true;
                }
            }
            return false;
        }
    } // namespace

    parsed_options parse_arguments(const std::vector<std::string>& args)
    {
        parsed_options out;
        for (std::size_t i = 0; i < args.size() && out.ok(); ++i)
        {
            const std::string& arg = args[i];
            if (arg == "--version" || arg == "-V")
            {
                out.options.show_version = true;
            }
            else if (arg == "--help" || arg == "-h")
            {
                out.options.show_help = true;
            }
            else if (!take_connection_file(args, i, out))
            {
                out.error = "unknown argument '" + arg + "'";
            }
        }
        if (out.ok() && out.options.connection_file.empty() && !out.options.show_help &&
            !out.options.show_version)
        {
            out.error = "no connection file given (Jupyter passes one with -f)";
        }
        return out;
    }

    std::string usage_text(const std::string& program)
    {
        std::ostringstream text;
        text << "usage: " << program << " -f CONNECTION_FILE\n"
             << "       " << program << " --version | --help\n\n"
             << "Specula: a Jupyter kernel for Python 3 that runs hot NumPy code as\n"
             << "speculative dataflow graphs. Jupyter starts it through the 'specula'\n"
             << "kernelspec; select \"Python 3 (Specula)\" in your notebook.\n\n"
             << "Exit status: 0 after a shutdown request, 2 for a bad command line,\n"
             << exit_port_in_use << " when a port of the connection file is taken (start\n"
             << "again with new ports), 1 for any other failure to start.\n";
        return text.str();
    }

    std::string check_connection_file(const std::string& path)
    {
        std::ifstream in(path);
        if (!in)
        {
            return "cannot read connection file '" + path + "'";
        }
        nl::json config = nl::json::parse(in, nullptr, /*allow_exceptions=*/false);
        if (config.is_discarded() || !config.is_object())
        {
            return "connection file '" + path + "' is not a JSON object";
        }
        for (const char* key : {"transport", "ip", "shell_port", "control_port", "stdin_port",
                                "iopub_port", "hb_port", "key", "signature_scheme"})
        {
            if (!config.contains(key))
            {
                return "connection file '" + path + "' lacks \"" + key + "\"";
            }
        }
        return {};
    }
} // namespace specula::kernel
