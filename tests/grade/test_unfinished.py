"""Is a graded name not started only where its code raises its own stub's error, in every route, whatever
line of the stub its text keeps?

A finished notebook often keeps the stub's ``raise NotImplementedError`` under its
``return``, where it never runs: the points, the mistakes named and the names graded
with the reference standing in are those of the same code without that line.
"""

import contextlib
import io
import shutil

import pytest

from autograder.author.blocks import exercise_message
from autograder.author.notebook import notebook_text
from autograder.author.samples import sample_notebook
from autograder.deliver.routes import nbgrader
from autograder.grade.mistakes import callers, catalogue
from autograder.grade.submission import demo_cell_digests
from autograder.grade.unfinished import calling_in, not_started
from autograder.public.loader import Entry, find_entry, load
from autograder.public.notebook import SelfCheck
from autograder.results.model import CheckResult

from ..public.students import data


def stub(name: str) -> str:
    return (
        f"your code raised NotImplementedError: Exercise 3 ({name}): replace this line with your code. (in x, line 2)"
    )


def result(name: str, passed: bool, message: str = "", kind: str = "hidden") -> CheckResult:
    return CheckResult(name, f"{name}::c", "t", "", passed, message, kind=kind)


def test_a_name_is_not_started_where_its_own_stub_raised():
    """Is a name not started where a check saw its own stub raise (a check of it passing or not), never for a
    called exercise's stub or a visible check's, and is calling its code asked only of a name failing a check
    its stub was not seen in?"""
    asked = []

    def error_of(name):
        asked.append(name)
        return stub("Layer") if name == "Layer" else "your code raised TypeError: unsupported operand"

    results = [
        result("softmax", False, stub("softmax")),
        result("softmax", True),  # a check it passes: its stub raises all the same
        result("attention", False, stub("softmax")),  # the called exercise's stub, not its own
        result("done", True),
        result("done", False, stub("done"), kind="visible"),  # visible checks decide nothing
        result("Layer", False, "Layer should have an attribute w_1"),  # its empty constructor failed first
        result("Layer", True),  # a check a blank class passes (it keeps nothing in a list)
    ]
    assert not_started(results, error_of) == {"softmax", "Layer"}
    assert asked == ["attention", "Layer"]


def test_calling_code_in_this_process_tells_a_blank_class_from_a_finished_one():
    """Does calling a class's code in this process (nbgrader's kernel) raise its stub's error for a class still
    empty, and nothing for a finished one whose stub's line sits under its return?"""
    message = "Exercise 4 (Layer): replace this line with your code."
    namespace: dict = {}
    exec(
        "class Blank:\n    def __init__(self, d):\n        pass\n\n"
        f"    def forward(self, x):\n        raise NotImplementedError({message!r})\n\n\n"
        f"class Done:\n    def forward(self, x):\n        return x\n        raise NotImplementedError({message!r})\n",
        namespace,
    )
    error_of = calling_in(namespace)
    assert message in error_of("Blank") and error_of("Done") is None


# ------------------------------------------------------------------ every route, on notebooks


MISTAKE = "softmax_over_queries"  # in scaled_dot_product_attention, which MultiHeadAttention calls
NAMES = ("scaled_dot_product_attention", "MultiHeadAttention")


def half_done(mha):
    """The solved notebook whose MultiHeadAttention has its constructor done and its forward still raising its
    stub."""
    notebook = sample_notebook(mha, None)
    cell = next(cell for cell in notebook.cells if cell.get("id") == "MultiHeadAttention")
    head = "    def forward(self, query, key, value, mask=None):\n"
    assert head in cell.source
    raised = f"        raise NotImplementedError({exercise_message(mha, 'MultiHeadAttention')!r})\n"
    cell.source = cell.source.replace(head, head + raised)
    return notebook


@pytest.fixture(scope="module")
def notebooks(mha, tmp_path_factory):
    folder = tmp_path_factory.mktemp("unfinished")
    made = {
        "plain": sample_notebook(mha, MISTAKE),
        "kept": sample_notebook(mha, MISTAKE, stub_kept=True),
        "half": half_done(mha),
    }
    for label, notebook in made.items():
        (folder / f"{label}.ipynb").write_text(notebook_text(notebook))
    return folder


@pytest.fixture(scope="module")
def reports(mha_grader, notebooks):
    """Each notebook graded once, in the sandbox, as ``grade`` and ``grade-all`` grade it."""
    return {label: mha_grader.grade(notebooks / f"{label}.ipynb") for label in ("plain", "kept", "half")}


def outcome(report) -> tuple:
    carried = sorted({(c.name, tuple(c.carried)) for c in report.hidden if c.carried})
    return report.by_name(), report.mistakes(), carried, report.not_started


@pytest.mark.slow
def test_the_stubs_line_under_a_return_changes_nothing_of_a_grading(mha, reports):
    """Does the notebook that keeps every stub's line under its return get the points, the mistake named and the
    layer graded with the reference's attention of the same notebook without those lines?"""
    assert outcome(reports["kept"]) == outcome(reports["plain"])
    by_name = reports["kept"].by_name()
    assert by_name["MultiHeadAttention"][0] == by_name["MultiHeadAttention"][1] == mha.points["MultiHeadAttention"]
    assert reports["kept"].mistakes() == [MISTAKE] and not reports["kept"].not_started
    carried = {c.name: c.carried for c in reports["kept"].hidden if c.carried}
    assert carried["MultiHeadAttention"] == ["scaled_dot_product_attention"]


@pytest.mark.slow
def test_a_class_whose_forward_is_still_its_stub_earns_its_constructors_points_only(mha, notebooks, reports):
    """Is a layer whose constructor is done and whose forward still raises its stub not started (no mistake
    named, not graded again), yet given the points of the checks its constructor passes, and so not called
    "not started" in the feedback; the same points in nbgrader's kernel, and "not done yet" in its self-check?"""
    report = reports["half"]
    score, top = report.by_name()["MultiHeadAttention"]
    assert 0 < score < top
    assert report.not_started == {"MultiHeadAttention"} and report.unstarted() == []
    assert not [c for c in report.hidden if c.name == "MultiHeadAttention" and (c.mistakes or c.carried)]
    namespace = loaded(mha, notebooks / "half.ipynb")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        kit = nbgrader._kit_digest(mha.name)
        assert nbgrader.grade_in_notebook(mha.name, "MultiHeadAttention", namespace, top, kit) == float(score)
        SelfCheck(data(mha)).check(namespace["MultiHeadAttention"])
    assert "MultiHeadAttention: not done yet. Exercise 11 (MultiHeadAttention): replace" in printed.getvalue()


def loaded(mha, path) -> dict:
    """A notebook's names, its cells run in this process as a kernel runs them (the demos left out)."""
    return load(Entry("notebook", path), frozenset(demo_cell_digests(mha))).namespace


@pytest.mark.slow
def test_nbgraders_hidden_cells_and_the_self_check_ignore_the_stubs_line_too(mha, notebooks, reports):
    """In nbgrader's kernel and in the notebook's self-check, does the notebook that keeps the stubs' lines score
    and read as it does without them, as the grade command scores it?"""
    kit = nbgrader._kit_digest(mha.name)
    seen = {}
    for label in ("plain", "kept"):
        namespace = loaded(mha, notebooks / f"{label}.ipynb")
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            points = {
                name: nbgrader.grade_in_notebook(mha.name, name, namespace, mha.points[name], kit) for name in NAMES
            }
            checks = SelfCheck(data(mha))
            for name in NAMES:
                checks.check(namespace[name])
        seen[label] = (points, printed.getvalue())
    assert seen["kept"] == seen["plain"]
    points, printed = seen["kept"]
    assert points == {name: float(reports["plain"].by_name()[name][0]) for name in NAMES}
    assert "This looks like a known mistake: The softmax runs over the queries" in printed
    assert "MultiHeadAttention checked with the reference's scaled_dot_product_attention" in printed
    assert "not done" not in printed


def test_the_blank_stubs_are_not_started_in_the_kernel_and_the_self_check(assignment):
    """Run as a notebook's cells run, does each blank stub score 0 in nbgrader's hidden cell, nothing named, and
    read "not done yet" in the self-check?"""
    namespace: dict = {}
    exec(compile(assignment.stub_path.read_text(), str(assignment.stub_path), "exec"), namespace)
    kit = nbgrader._kit_digest(assignment.name)
    checks = SelfCheck(data(assignment))
    for name in assignment.graded:
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            score = nbgrader.grade_in_notebook(assignment.name, name, namespace, assignment.points[name], kit)
            checks.check(namespace[name])
        assert score == 0 and "known mistake" not in printed.getvalue()
        assert f"{name}: not done yet. Exercise " in printed.getvalue(), printed.getvalue()


# ------------------------------------------------------------------ the whole catalogue


def kept_and_plain(assignment, mistake_id: str, folder) -> dict:
    """The sample with one known mistake, as notebooks: without the stubs' lines and with each kept under its
    return."""
    paths = {}
    for kept in (False, True):
        paths[kept] = folder / f"{mistake_id}{'-kept' if kept else ''}.ipynb"
        paths[kept].write_text(notebook_text(sample_notebook(assignment, mistake_id, stub_kept=kept)))
    return paths


def firsts(assignment) -> list:
    """The first catalogued mistake of each exercise."""
    first: dict = {}
    for mistake in catalogue(assignment):
        first.setdefault(mistake.target, mistake)
    return list(first.values())


def the_rest(assignment) -> list:
    """Every catalogued mistake but the first of each exercise."""
    chosen = {mistake.id for mistake in firsts(assignment)}
    return [mistake for mistake in catalogue(assignment) if mistake.id not in chosen]


# The first mistake of each exercise in `make test`; every other in CI's `make exhaustive` (all of them together take
# minutes: each is two notebooks loaded and graded in nbgrader's hidden cells and the self-check).
MISTAKES = [pytest.param(firsts, id="first-of-each-exercise"),
            pytest.param(the_rest, id="every-other", marks=pytest.mark.exhaustive)]  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("mistakes", MISTAKES)
# The known mistakes' own code warns, as a student's would (an overflow in exp, softmax without dim, tick labels
# set before their ticks): none of it is what this test reads.
@pytest.mark.filterwarnings("ignore::RuntimeWarning", "ignore::UserWarning")
def test_each_mistake_reads_the_same_in_the_kernel_and_the_self_check_with_the_stubs_lines_kept(
    assignment, mistakes, tmp_path
):
    """For each catalogued mistake, do the notebooks with and without the stubs' lines under their returns get
    the same points and the same printed checks (mistakes named, names checked with the reference's) from
    nbgrader's hidden cells and the self-check, on the mistake's exercise and each that calls it, and is the one
    that keeps them chosen over the untouched release beside it?"""
    kit = nbgrader._kit_digest(assignment.name)
    up = callers(assignment)
    checks = SelfCheck(data(assignment))
    shutil.copy(assignment.release_dir / assignment.notebook_name, tmp_path / "release.ipynb")
    differ = []
    for mistake in mistakes(assignment):
        names = [name for name in assignment.graded if name == mistake.target or name in up[mistake.target]]
        paths = kept_and_plain(assignment, mistake.id, tmp_path)
        seen = {}
        for kept, path in paths.items():
            namespace = loaded(assignment, path)
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                points = [
                    nbgrader.grade_in_notebook(assignment.name, n, namespace, assignment.points[n], kit) for n in names
                ]
                for name in names:
                    checks.check(namespace[name])
            seen[kept] = (points, printed.getvalue())
        if seen[True] != seen[False]:
            differ.append(mistake.id)
        paths[False].unlink()
        assert find_entry(tmp_path, assignment.graded).path == paths[True]
        paths[True].unlink()
    assert not differ


@pytest.mark.slow(seconds=10)
def test_the_first_mistake_of_each_exercise_grades_the_same_with_the_stubs_lines_kept(assignment, graders, tmp_path):
    """For the first catalogued mistake of each exercise, does ``grade`` give the notebooks with and without the
    stubs' lines under their returns the same points, mistakes named, names graded with the reference standing in,
    and none not started?"""
    grader = graders(assignment)
    differ = {}
    for mistake_id in (mistake.id for mistake in firsts(assignment)):
        paths = kept_and_plain(assignment, mistake_id, tmp_path)
        plain, kept = (outcome(grader.grade(paths[k])) for k in (False, True))
        if kept != plain or kept[3]:
            differ[mistake_id] = (plain, kept)
    assert not differ
