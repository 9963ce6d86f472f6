"""Does grade-all's progress say how far it is, on one line of a terminal and now and then in a log?"""

import io

from autograder.deliver.grade_all.progress import Progress, clock


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_log_gets_the_first_and_the_last_line():
    """Written to a file: a line for the first and the last step (and every few seconds), each with done/total?"""
    log = io.StringIO()
    bar = Progress(3, stream=log)
    for key in ("ada", "ben", "cleo"):
        bar.step(key)
    lines = log.getvalue().splitlines()
    assert lines[0].startswith("[##########--------------------] 1/3") and lines[0].endswith("ada")
    assert lines[-1].startswith("[" + "#" * 30 + "] 3/3") and len(lines) == 2


def test_a_terminal_gets_one_line_rewritten():
    """On a terminal: one line rewritten in place, a newline once all are done, a name's escape codes shown as text?"""
    screen = Terminal()
    bar = Progress(2, stream=screen)
    bar.step("\x1b[2Jada")
    bar.step("ben")
    text = screen.getvalue()
    assert text.count("\r") == 2 and text.endswith("\n") and text.count("\n") == 1 and "\x1b" not in text


def test_quiet_and_clock():
    log = io.StringIO()
    Progress(1, stream=log, enabled=False).step("ada")
    assert log.getvalue() == ""
    assert (clock(0), clock(59.6), clock(3725)) == ("0:00", "1:00", "62:05")
