"""`python -m autograder` (and the `autograder` script): the kit's command line, in a process of its own."""

import atexit
import os
import sys
import threading

from .cli import main


def run() -> None:
    """main(), then this process ends without the interpreter's teardown: after grade-all, whose process holds
    matplotlib, copydetect and a class's results, freeing them module by module takes 0.4 s. What must still
    happen does: the exit handlers (a pool's workers ended, temporary folders removed), the output flushed."""
    code = main()
    run_exit_handlers = getattr(atexit, "_run_exitfuncs", None)
    others = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon]
    if run_exit_handlers is None or others:  # another Python, or a thread the interpreter would wait for
        sys.exit(code)
    run_exit_handlers()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: what the reader did not take is not ours to keep
            pass
    os._exit(code)


if __name__ == "__main__":
    run()
