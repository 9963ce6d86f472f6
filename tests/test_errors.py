"""Is a KitError what its docstring promises: a message for a person, and exit status 2 from any command? And a disk
that takes no more writes?"""

import errno
import os

import pytest

from autograder import cli
from autograder.errors import KitError


def test_a_kit_error_is_an_exception_of_its_own():
    """Is KitError an Exception that no broad catch of a library's errors (ValueError, OSError) swallows by mistake?"""
    assert issubclass(KitError, Exception)
    assert not issubclass(KitError, (ValueError, OSError, RuntimeError))


def test_a_command_that_meets_a_kit_error_prints_it_and_exits_2(monkeypatch, capsys):
    """Does a command whose work raises KitError exit 2 with "error: <message>" on stderr and no traceback?"""

    def refuse(_assignment):
        raise KitError("points.toml: points for tokenize must be a number >= 0, got -1")

    monkeypatch.setattr("autograder.author.build.build", refuse)
    assert cli.main(["build", "mha"]) == 2
    printed = capsys.readouterr()
    assert printed.err == "error: points.toml: points for tokenize must be a number >= 0, got -1\n"
    assert "Traceback" not in printed.out + printed.err


@pytest.mark.parametrize(
    "number, fix",
    [
        (errno.ENOSPC, "Free some space on that disk (or raise the quota there), or have the command write elsewhere"),
        (errno.EDQUOT, "Free some space on that disk (or raise the quota there), or have the command write elsewhere"),
        (errno.EROFS, "Make that folder writable, or have the command write elsewhere"),
    ],
)
def test_a_disk_that_takes_no_more_is_named_with_what_to_do(monkeypatch, capsys, number, fix):
    """A full disk, a quota reached (a JupyterHub home), a read-only folder: does any command exit 2 naming the file
    and what to do, and that a rerun resumes, with no traceback (nothing of the kit's or a student's is wrong)?"""

    def full(_assignment):
        raise OSError(number, os.strerror(number), "/course/release/mha/mha.ipynb")

    monkeypatch.setattr("autograder.author.build.build", full)
    assert cli.main(["build", "mha"]) == 2
    printed = capsys.readouterr()
    assert printed.err.startswith(f"error: /course/release/mha/mha.ipynb could not be written: {os.strerror(number)}.")
    assert fix in printed.err and "the same command again resumes" in printed.err
    assert "Traceback" not in printed.out + printed.err


@pytest.mark.parametrize(
    "error",
    [
        OSError(errno.EIO, "Input/output error", "/course/release/mha/mha.ipynb"),
        OSError(errno.ENOSPC, "No space left on device"),  # no file: a limit of the kernel's (inotify, a cgroup)
    ],
)
def test_another_error_of_the_system_is_not_taken_for_a_full_disk(monkeypatch, error):
    """Is an error of the system that is no full disk (an I/O error, an ENOSPC that names no file, as the kernel
    says of limits that are no disk) left to show as the kit's own failure, traceback and all?"""

    def broken(_assignment):
        raise error

    monkeypatch.setattr("autograder.author.build.build", broken)
    with pytest.raises(OSError) as raised:
        cli.main(["build", "mha"])
    assert raised.value is error
