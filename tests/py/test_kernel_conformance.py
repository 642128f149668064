"""test_kernel_conformance.py: jupyter_kernel_test's protocol suite against wordlab and wordlab-xeus, every test enabled."""
import os
import subprocess
import unittest

import kernel_util  # installs the spec on JUPYTER_PATH before the suite starts the kernel
import jupyter_kernel_test

XEUS = os.path.join(os.path.dirname(kernel_util.WORDLAB), "wordlab-xeus")
if not os.access(XEUS, os.X_OK):
    raise RuntimeError(f"{XEUS} does not exist: the build needs xeus-dev (CMake option WL_XEUS)")
subprocess.run([kernel_util.WORDLAB, "install-kernel", "--prefix", kernel_util._TMP, "--kernel", "wordlab-xeus"],
               check=True, capture_output=True)


class WordlabKernelTests(jupyter_kernel_test.KernelTests):
    kernel_name = "wordlab"
    language_name = "wordlab"
    file_extension = ".wlab"

    code_hello_world = 'print "hello, world"'
    code_stderr = 'warn "something went wrong"'
    completion_samples = [
        {"text": "perp", "matches": {"perplexity"}},
        {"text": "x = pri", "matches": {"print"}},
    ]
    complete_code_samples = ['print 1', 'x = mean 1 2 3', '# a comment', '']
    incomplete_code_samples = ['print "an open quote', 'mean [1 2']
    invalid_code_samples = ['mean 1 ]']
    # A cell that is exactly `?NAME` (or `NAME?`) opens NAME's help in the pager.
    code_page_something = "?perplexity"
    code_generate_error = "nosuchcommand 1"
    code_execute_result = [
        {"code": "mean 1 2 3", "result": "2.0"},
        {"code": "exp 0", "result": "1.0"},
        {"code": "perplexity 0.5 0.25 0.125", "mime": "text/html"},
        {"code": "perplexity 0.5 0.25 0.125", "mime": "application/vnd.wordlab.value+json"},
    ]
    # A cell with two values shows the first as display_data, the last as the result.
    code_display_data = [
        {"code": "perplexity 0.5\nmean 1 2", "mime": "text/plain"},
        {"code": "perplexity 0.5\nmean 1 2", "mime": "text/html"},
    ]
    code_history_pattern = "mean*"
    supported_history_operations = ("tail", "range", "search")
    code_inspect_sample = "perplexity"
    code_clear_output = "clear"

    def execute_helper(self, *args, **kwargs):
        """The suite's own, with each IOPub message given up to 10 s: it waits 0.1 s for the next one after the reply,
        which a loaded machine can exceed (the status idle of a cell comes just after its reply)."""
        get = self.kc.iopub_channel.get_msg

        def patient(timeout=None):   # the channel's own result: a message, or a coroutine that the suite runs
            return get(timeout=max(timeout or 0, 10))

        self.kc.iopub_channel.get_msg = patient
        try:
            return super().execute_helper(*args, **kwargs)
        finally:
            self.kc.iopub_channel.get_msg = get

    def test_no_attribute_left_empty(self):
        """An empty attribute silently skips its jupyter_kernel_test test: none may be empty."""
        for name in ("code_hello_world", "code_stderr", "completion_samples", "complete_code_samples",
                     "incomplete_code_samples", "invalid_code_samples", "code_page_something",
                     "code_generate_error", "code_execute_result", "code_display_data",
                     "code_history_pattern", "supported_history_operations", "code_inspect_sample",
                     "code_clear_output", "language_name", "file_extension"):
            self.assertTrue(getattr(self, name), name)


class WordlabXeusKernelTests(WordlabKernelTests):
    """The same suite on the same language adapter under xeus's protocol core."""
    kernel_name = "wordlab-xeus"


if __name__ == "__main__":
    unittest.main()
