"""Is a KitError what its docstring promises: a message for a person, and exit status 2 from any command?"""

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
