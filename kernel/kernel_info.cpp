#include "kernel/kernel_info.hpp"

#include "kernel/version.hpp"

namespace specula::kernel
{
    nl::json kernel_info_content(const std::string& python_version)
    {
        nl::json info;
        info["status"] = "ok";
        info["implementation"] = "specula";
        info["implementation_version"] = specula_version;
        info["banner"] = "Python " + python_version + " (Specula " + std::string(specula_version) +
                         ")\nA Jupyter kernel for Python 3 that runs hot NumPy code as "
                         "speculative dataflow graphs.\n";
        info["debugger"] = false;
        info["language_info"] = {
            {"name", "python"},
            {"version", python_version},
            {"mimetype", "text/x-python"},
            {"file_extension", ".py"},
            {"codemirror_mode", {{"name", "ipython"}, {"version", 3}}},
            {"pygments_lexer", "ipython3"},
            {"nbconvert_exporter", "python"},
        };
        info["help_links"] = nl::json::array({
            {{"text", "Python Reference"}, {"url", "https://docs.python.org/3/"}},
            {{"text", "IPython Reference"}, {"url", "https://ipython.readthedocs.io/en/stable/"}},
            {{"text", "NumPy Reference"}, {"url", "https://numpy.org/doc/stable/reference/"}},
        });
        return info;
    }
} // namespace specula::kernel
