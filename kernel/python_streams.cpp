#include "kernel/python_streams.hpp"

#include <pybind11/embed.h>

namespace specula::kernel
{
    namespace
    {
        // The object Python code sees as sys.stdout: the text-file protocol
        // that print(), logging, tqdm and friends use, nothing more.
        class python_stream
        {
        public:
            python_stream(output_coalescer* output, std::string name)
                : p_output(output), m_name(std::move(name))
            {
            }

            py::ssize_t write(const py::object& text)
            {
                if (!py::isinstance<py::str>(text))
                {
                    throw py::type_error("write() argument must be str, not " +
                                         std::string(py::str(py::type::of(text).attr("__name__"))));
                }
                // Lone surrogates cannot be UTF-8 encoded; replace them rather
                // than fail a print.
                py::bytes encoded = py::reinterpret_steal<py::bytes>(
                    PyUnicode_AsEncodedString(text.ptr(), "utf-8", "replace")); // new ref
                if (!encoded)
                {
                    throw py::error_already_set();
                }
                std::string bytes = encoded;
                {
                    // The coalescer's lock may be held by the timer thread
                    // while it publishes; do not hold the GIL while waiting.
                    py::gil_scoped_release release;
                    p_output->write(m_name, bytes);
                }
                return py::len(text);
            }

            void writelines(const py::iterable& lines)
            {
                for (py::handle line : lines)
                {
                    write(py::reinterpret_borrow<py::object>(line));
                }
            }

            void flush()
            {
                py::gil_scoped_release release;
                p_output->flush();
            }

            const std::string& name() const { return m_name; }

        private:
            output_coalescer* p_output; // borrowed, outlives the stream
            std::string m_name;
        };
    } // namespace

    PYBIND11_EMBEDDED_MODULE(_specula_streams, m)
    {
        py::class_<python_stream>(m, "OutStream")
            .def("write", &python_stream::write)
            .def("writelines", &python_stream::writelines)
            .def("flush", &python_stream::flush)
            .def("isatty", [](const python_stream&) { return false; })
            .def("readable", [](const python_stream&) { return false; })
            .def("writable", [](const python_stream&) { return true; })
            .def("seekable", [](const python_stream&) { return false; })
            .def("close", [](const python_stream&) {})
            .def("fileno",
                 [](const python_stream&) -> int
                 {
                     py::object unsupported =
                         py::module_::import("io").attr("UnsupportedOperation");
                     PyErr_SetString(unsupported.ptr(), "fileno");
                     throw py::error_already_set();
                 })
            .def_property_readonly("name",
                                   [](const python_stream& s) { return "<" + s.name() + ">"; })
            .def_property_readonly("closed", [](const python_stream&) { return false; })
            .def_property_readonly("encoding", [](const python_stream&) { return "utf-8"; })
            .def_property_readonly("errors", [](const python_stream&) { return "strict"; })
            .def_property_readonly("mode", [](const python_stream&) { return "w"; })
            .def_property_readonly("newlines", [](const python_stream&) { return py::none(); })
            .def_property_readonly("line_buffering", [](const python_stream&) { return false; });
    }

    py::object make_python_stream(output_coalescer& output, const std::string& name)
    {
        py::module_::import("_specula_streams");
        return py::cast(python_stream(&output, name));
    }
} // namespace specula::kernel
