#ifndef SPECULA_KERNEL_PYTHON_RUNTIME_HPP
#define SPECULA_KERNEL_PYTHON_RUNTIME_HPP

#include <memory>
#include <string>

#include <pybind11/embed.h>

namespace specula::kernel
{
    // The embedded CPython, configured as Debian's /usr/bin/python3 would be
    // (so sys.executable works for subprocess and friends), started in the
    // constructor and finalised in the destructor.
    class python_runtime
    {
    public:
        explicit python_runtime(const std::string& argv0);
        ~python_runtime();

        python_runtime(const python_runtime&) = delete;
        python_runtime& operator=(const python_runtime&) = delete;
        python_runtime(python_runtime&&) = delete;
        python_runtime& operator=(python_runtime&&) = delete;

        // Imports what the kernel cannot run without. Returns an empty string
        // when all is there, otherwise a message naming the missing module
        // and the Debian package that provides it.
        std::string check_required_modules() const;

    private:
        std::unique_ptr<pybind11::scoped_interpreter> m_interpreter;
    };
} // namespace specula::kernel

#endif
