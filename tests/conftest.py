"""Shared fixtures: one warm grader per assignment for the whole test session, and after every test
a check of the results.json files it left against Gradescope's format (tests/results/gradescope_format.py).
The Graders a test process builds share their zygotes, one per kind (tests/zygotes.py)."""

import os
import shutil
import sys

import pytest

from autograder import assignments
from autograder.config import GradingConfig
from autograder.grade.engine import Grader
from autograder.grade.threads import single_threaded

from .zygotes import share_the_graders_zygotes

# The Jupyter kernels the tests start (nbclient, nbgrader autograde) and every process they run draw their
# figures to Agg and render none: what those tests prove is checks, points and pages, and an inline backend's
# PNGs were 7 of the 18.5 s a run of mha's lesson takes. One test draws them as a student's Jupyter does
# (tests/author/test_notebooks.py::test_solved_release_passes_its_checks_and_shows_its_figures).
os.environ.setdefault("MPLBACKEND", "Agg")
single_threaded(import_torch=True)  # before any test runs PyTorch: grade-all forks its workers from this process
share_the_graders_zygotes()
NAMES = assignments.names()


def pytest_configure(config):
    """Before the test processes start: each assignment's master notebook (source/, the build's output) written
    as the build writes it, where it is missing (a fresh clone has none) or stale (a checkout whose solutions or
    build code changed since it was written; unchanged, it is left as it is). Tests that run nbgrader on it write
    it otherwise, and such a write would land while the hostile set, in another process, checks that no file of
    the kit changes (as it did in `make test`: in a fresh clone, and in a checkout after an edit)."""
    if hasattr(config, "workerinput"):
        return
    from autograder.author.build import write_master

    for name in NAMES:
        write_master(assignments.get(name))


# A test's rough cost in seconds, for the order the tests are handed out in: a slow test says its own where it is
# long (@pytest.mark.slow(seconds=80), measured on the 2-core course machine); any other slow one counts as 1.
SLOW_DEFAULT, FAST = 1.0, 0.05
SHARED_SCOPES = ("class", "module", "package")


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own hook, which reads the groups set here
def pytest_collection_modifyitems(config, items):
    """Hand the tests out longest first, each to whichever process is free, those that share a fixture together.

    Under pytest-xdist (`make test`: a process more than the CPUs, --dist loadgroup) a module-scoped fixture is made
    once per process that runs a test asking for it: the tests of a module that share such a fixture (an nbgrader
    course, a built Gradescope image, a graded class) are one unit, an xdist group named after the module; so are the
    tests of a group a module names (tests that share a uid's processes); every other test is a unit of its own.
    Units go out longest first, so that no long one starts late and ends the run alone on one process while the
    other has nothing left to run. Run serially (JOBS=0), a unit's tests stay together too."""
    units: dict[str, list] = {}
    for item in items:
        units.setdefault(_unit(item), []).append(item)
    order = sorted(units.values(), key=lambda unit: -sum(map(_cost, unit)))  # stable: file order among equals
    items[:] = [item for unit in order for item in unit]
    grouping = config.getvalue("loadgroup") if hasattr(config, "workerinput") else False
    for name, unit in units.items():
        if name == unit[0].nodeid:
            continue  # a test on its own
        for item in unit:
            if item.get_closest_marker("xdist_group") is None:
                item.add_marker(pytest.mark.xdist_group(name))
            if grouping:
                _name_with_group(item, name)


def _unit(item) -> str:
    """The group a test names (a module whose tests share something of the host's, @pytest.mark.xdist_group); the
    module (its path in tests/, without .py), for a test that sets up a fixture of class, module or package scope;
    else the test itself."""
    named = item.get_closest_marker("xdist_group")
    if named is not None:
        return str(named.args[0])
    definitions = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    shared = any(defs and defs[-1].scope in SHARED_SCOPES for defs in definitions.values())
    return item.nodeid.split("::", 1)[0].removeprefix("tests/").removesuffix(".py") if shared else item.nodeid


def _name_with_group(item, group: str) -> None:
    """What pytest-xdist's --dist loadgroup does to a grouped test's id (`path::test@group`, the group read from the
    suffix), done where its own way no longer takes: pytest 9 reads an item's id from `_id`, xdist 3.8 writes
    `_nodeid`. Where neither exists, the test is a unit of its own, which costs time and no result."""
    if hasattr(item, "_id") and not item.nodeid.endswith(f"@{group}"):
        from _pytest.nodeid import NodeId

        item._id = NodeId.parse(f"{item.nodeid}@{group}")


def _cost(item) -> float:
    """About how long a test takes: its slow mark's seconds, else its takes mark's (a test make check keeps that is
    long only where a cache starts cold, as in a fresh clone), else a fast test's."""
    mark = item.get_closest_marker("slow")
    if mark is not None:
        return float(mark.kwargs.get("seconds", SLOW_DEFAULT))
    mark = item.get_closest_marker("takes")
    return FAST if mark is None else float(mark.kwargs["seconds"])


@pytest.fixture(autouse=True)
def results_follow_gradescopes_format(request):
    """After each test that used tmp_path: does every results.json the kit left there follow Gradescope's format?"""
    # asked for first, so that it is torn down after this check
    folder = request.getfixturevalue("tmp_path") if "tmp_path" in request.fixturenames else None
    yield
    if folder is not None:
        from .results.gradescope_format import tree_problems

        found = tree_problems(folder)
        assert not found, "results.json against Gradescope's format:\n" + "\n".join(found[:20])


def forget_what_the_kit_cached() -> None:
    """Empty every functools cache of the kit's modules (mistakes, plans, references, stores, visible data)."""
    for module in list(sys.modules.values()):
        if (getattr(module, "__name__", None) or "").split(".")[0] == "autograder":
            for value in list(vars(module).values()):
                if callable(getattr(value, "cache_clear", None)):
                    value.cache_clear()


@pytest.fixture
def forgets_the_edit():
    """For a test that points an assignment at edited files (a copy of its folder, a changed reference or points):
    the kit's caches are keyed by the assignment's name, so after the test they are emptied, and no later test in
    this process (the suite's order differs under pytest-xdist) is graded against the edited copy."""
    yield
    forget_what_the_kit_cached()


@pytest.fixture
def copy_of_mha(monkeypatch, tmp_path, forgets_the_edit):
    """mha's folder copied where the test may change it, discovered as the assignment 'mha': the kit's own files
    stay as they are for the tests that run beside it (a hostile run checks that none of them changes)."""
    shutil.copytree(assignments.get("mha").folder, tmp_path / "mha", ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(assignments, "SOLUTIONS", tmp_path)
    return assignments.Assignment("mha")


@pytest.fixture(scope="session")
def mha():
    return assignments.get("mha")


@pytest.fixture(scope="session")
def graders():
    """A warm Grader per assignment, started on first use, in the strongest tier this machine allows."""
    started = {}

    def grader_for(assignment):
        if assignment.name not in started:
            started[assignment.name] = Grader(assignment, GradingConfig(allow_unsandboxed=True))
        return started[assignment.name]

    yield grader_for
    for grader in started.values():
        grader.close()


@pytest.fixture(scope="session")
def mha_grader(mha, graders):
    return graders(mha)


@pytest.fixture(scope="session")
def built_mha_clone(tmp_path_factory, mha_grader):
    """A fresh clone after the README's first step, `python -m autograder build mha`: made once, and copied by each
    test that goes on from there (tests/author/clone.py ``copy_of_clone``); those tests are marked
    ``SHARES_THE_BUILT_CLONE``, an xdist group, so that one process makes it. The first build of a clone makes
    gradebook.db alone: the committed release is up to date. The clone keeps the reference's outputs this
    checkout's grader has cached (mha_grader), as a kit that has graded does: the tests that go on from here are
    about nbgrader and the routes, not about a first grading's cache (the Gradescope image's set-up computes its
    own, tests/deliver/routes/test_gradescope.py)."""
    from .author.clone import fresh_clone, run_in
    from .hosts.kit_python import copy_stores

    clone = fresh_clone(tmp_path_factory.mktemp("built") / "clone")
    assert not (clone / "gradebook.db").exists()
    built = run_in(clone, "python", "-m", "autograder", "build", "mha")
    assert built.returncode == 0, built.stderr[-3000:]
    assert built.stdout.splitlines()[0] == "mha: gradebook.db", built.stdout
    copy_stores(clone / "build" / "cache")
    return clone


@pytest.fixture(params=NAMES)
def assignment(request):
    """Each assignment in turn."""
    return assignments.get(request.param)


def lost_names(report) -> list[str]:
    """The graded names that did not get full marks."""
    return sorted(name for name, (score, top) in report.by_name().items() if score < top)
