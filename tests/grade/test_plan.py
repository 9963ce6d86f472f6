"""Does the kit read the grader modules into the checks pytest would run, and refuse what it would run otherwise?"""

import dataclasses
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

from autograder.errors import KitError
from autograder.grade import plan

GRADERS = '''
import pytest

GRADED = "softmax"


def double(x):
    return 2 * x


@pytest.mark.weight(2)
@pytest.mark.parametrize("n", [1, 2.5, "a b", None, True, float("nan")])
def test_values(student, n):
    """Each value is read.

    More text."""


@pytest.mark.gate
@pytest.mark.parametrize("x, y", [(1, 2), pytest.param(3, 4, id="own")], ids=["given", "ignored"])
@pytest.mark.parametrize("f", [double, object(), str])
def test_pairs(reference, x, y, f):
    pass


def test_plain(submission):
    pass


def helper_not_a_test():
    pass
'''


def grader_module(tmp_path: Path, source: str, stem: str = "test_softmax"):
    """A grader module in a package of its own under tmp_path, and the fake assignment that owns it."""
    package = f"course_{tmp_path.name}_{stem}"
    graders = tmp_path / package / "graders"
    graders.mkdir(parents=True)
    (tmp_path / package / "__init__.py").write_text("")
    (graders / "__init__.py").write_text("")
    (graders / f"{stem}.py").write_text(textwrap.dedent(source))
    sys.path.insert(0, str(tmp_path))
    return SimpleNamespace(
        package=package, graders_dir=graders, graded=("softmax",), points={"softmax": 2}, name="numpy"
    )


@pytest.fixture
def fake(tmp_path, monkeypatch):
    """Makes grader modules importable from tmp_path for this test only."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    return lambda source, stem="test_softmax": grader_module(tmp_path, source, stem)


def test_a_grader_that_gives_a_name_no_weight_is_refused(mha):
    """Does collecting a plan whose checks of one name are all gates or weigh 0 stop, naming the file and the fix?"""
    checks = plan.collect(mha)
    for change in ({"gate": True}, {"weight": 0.0}):
        weightless = [dataclasses.replace(c, **change) if c.name == "split_heads" else c for c in checks]
        with pytest.raises(KitError) as refused:
            plan._refuse_weightless(mha, weightless)
        message = str(refused.value)
        assert str(mha.graders_dir / "test_split_heads.py") in message
        assert "every check of split_heads is a gate or has weight 0" in message
        assert "@pytest.mark.weight(1)" in message


def test_the_assignments_plans_give_every_name_weight(assignment):
    """Does every assignment's plan pass the check (the plan is collected without error)?"""
    assert plan.collect(assignment)


def test_a_plan_is_one_check_per_function_and_case_in_definition_order(fake):
    """Is each test function read with its parameters' product, weight, gate, fixtures and title, in the order
    pytest runs them, and a function that is no test left out?"""
    checks = plan.collect(fake(GRADERS))
    assert [c.function_name for c in checks] == ["test_values"] * 6 + ["test_pairs"] * 6 + ["test_plain"]
    values, pairs, plain = checks[0], checks[6], checks[-1]
    assert (values.weight, values.gate, values.fixtures, values.title) == (
        2.0,
        False,
        ("student",),
        "Each value is read",
    )
    assert (pairs.weight, pairs.gate, pairs.fixtures) == (1.0, True, ("reference",))
    assert (pairs.arguments["x"], pairs.arguments["y"], pairs.arguments["f"].__name__) == (
        1,
        2,
        "double",
    ) and plain.title == "plain"
    assert values.check == "test_softmax::test_values" and values.name == "softmax"
    called = []
    plain_with = dataclasses.replace(plain, function=lambda submission: called.append(submission))
    plain_with.call({"student": "s", "reference": "r", "submission": "the entry"})
    assert called == ["the entry"]


def pytest_ids(assignment, tmp_path: Path) -> list[str]:
    """The node ids pytest itself collects from the assignment's grader module (no plugin, no configuration)."""
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-c", "pytest.ini",
         "--rootdir", str(assignment.graders_dir), str(assignment.graders_dir / "test_softmax.py")],
        capture_output=True, text=True, cwd=tmp_path, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return [line for line in done.stdout.splitlines() if "::" in line]


@pytest.mark.slow  # a pytest process: over a second
def test_the_ids_are_the_ones_pytest_gives(fake, tmp_path):
    """Is every check's test id the node id pytest itself gives that case (ids, pytest.param ids, values of each
    type, functions and classes by name, other objects by position), in pytest's order?"""
    assignment = fake(GRADERS)
    ids = [check.test_id for check in plan.collect(assignment)]
    assert pytest_ids(assignment, tmp_path) == ids
    assert "test_softmax.py::test_pairs[f1-given]" in ids and "test_softmax.py::test_values[a b]" in ids
    assert "test_softmax.py::test_pairs[double-own]" in ids


@pytest.mark.slow
def test_parameters_of_every_kind_have_pytests_ids(fake, tmp_path):
    """Are a builtin, a module, bytes, a pattern and an enum named as pytest names them (len, not f0)?"""
    assignment = fake(
        "import enum, math, re\nimport pytest\n"
        'GRADED = "softmax"\n'
        "class Side(enum.Enum):\n    LEFT = 1\n"
        '@pytest.mark.parametrize("f", [len, math, b"a\\x00", re.compile("a+"), Side.LEFT, object()])\n'
        "def test_a(student, f):\n    pass\n"
    )
    assert pytest_ids(assignment, tmp_path) == [check.test_id for check in plan.collect(assignment)]


@pytest.mark.parametrize(
    "source, words",
    [
        ('GRADED = "softmax"\n@pytest.mark.skip\ndef test_a(student):\n    pass\n', "the mark 'skip' is not one the kit runs"),
        ('GRADED = "softmax"\ndef test_a(tmp_path):\n    pass\n', "graders may take only student, reference, submission"),
        (
            'GRADED = "softmax"\n@pytest.mark.parametrize("n", [1, 1])\ndef test_a(student, n):\n    pass\n',
            "two cases share an id; give each case an id of its own",
        ),
        (
            'GRADED = "softmax"\n@pytest.mark.parametrize("n", [pytest.param(1, marks=pytest.mark.skip)])\n'
            "def test_a(student, n):\n    pass\n",
            "marks on a single case are not run by the kit",
        ),
        (
            'GRADED = "softmax"\n@pytest.mark.parametrize("n, m", [(1, 2, 3)])\ndef test_a(student, n, m):\n    pass\n',
            "case 0 has 3 values for 2 names",
        ),
        (
            'GRADED = "softmax"\n@pytest.mark.parametrize("n", [1], indirect=True)\ndef test_a(student, n):\n    pass\n',
            "parametrize takes only argument names, values and ids here",
        ),
        ('GRADED = "attention"\ndef test_a(student):\n    pass\n', "set GRADED to the graded name it checks, one of softmax; it is 'attention'"),
        ("def test_a(student):\n    pass\n", "it is None"),
    ],
    ids=["a mark of another plugin", "another fixture", "two cases alike", "marks on a case", "too many values",
         "another parametrize option", "another graded name", "no GRADED"],
)  # fmt: skip
def test_what_the_kit_would_run_otherwise_is_refused(fake, source, words):
    """Is a grader the kit would not run as pytest does refused when the plan is made, naming the file and why?"""
    with pytest.raises(KitError) as refused:
        plan.collect(fake("import pytest\n\n" + source))
    assert words in str(refused.value) and "test_softmax.py" in str(refused.value)


def test_graders_that_check_nothing_are_refused(fake):
    """Does a graders folder holding no test_*.py, or no check of a graded name, stop the plan naming the folder?"""
    assignment = fake(GRADERS, stem="softmax_checks")
    with pytest.raises(KitError, match=r"graders holds no grader \(test_\*\.py\)"):
        plan.collect(assignment)
    with pytest.raises(KitError, match="no grader checks softmax: every graded name needs at least one check in /"):
        plan.collect(fake('GRADED = "softmax"\n', stem="test_empty"))


def test_the_hidden_summary_counts_cases_and_lists_each_title_once(fake):
    """Does the summary give each graded name its number of hidden cases and each distinct title once, in order?"""
    summary = plan.hidden_summary(plan.collect(fake(GRADERS)))
    assert summary == {"softmax": {"cases": 13, "titles": ["Each value is read", "pairs", "plain"]}}
