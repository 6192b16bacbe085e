"""The standard kernel conformance suite, every sample filled in."""

import unittest

import jupyter_kernel_test


class SpeculaKernelTests(jupyter_kernel_test.KernelTests):
    kernel_name = "specula"
    language_name = "python"
    file_extension = ".py"

    code_hello_world = "print('hello, world')"
    code_stderr = "import sys; print('test', file=sys.stderr)"

    completion_samples = [
        {"text": "zi", "matches": {"zip"}},
        {"text": "import nump", "matches": {"numpy"}},
    ]

    complete_code_samples = ["1", "print('hello, world')", "def f(x):\n  return x*2\n\n\n"]
    incomplete_code_samples = ["print('''hello", "def f(x):\n  x*2", "for i in range(3):"]
    invalid_code_samples = ["import = 7q", "1 + )"]

    code_page_something = "print?"

    code_generate_error = "raise ValueError('no')"

    code_execute_result = [
        {"code": "1+2+3", "result": "6"},
        {"code": "[n*n for n in range(1, 4)]", "result": "[1, 4, 9]"},
        {"code": "import numpy as np; np.arange(3)", "result": "array([0, 1, 2])"},
        {"code": "'1 2 3'", "result": "'1 2 3'"},
    ]

    code_display_data = [
        {"code": "from IPython.display import HTML, display; display(HTML('<b>test</b>'))",
         "mime": "text/html"},
        {"code": "from IPython.display import Math, display; display(Math('\\\\frac{1}{2}'))",
         "mime": "text/latex"},
    ]

    code_history_pattern = "1?2*"
    supported_history_operations = ("tail", "range", "search")

    code_inspect_sample = "zip"

    code_clear_output = "from IPython.display import clear_output; clear_output()"


if __name__ == "__main__":
    unittest.main()
