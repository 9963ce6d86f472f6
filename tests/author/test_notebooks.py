"""Do the notebooks run as students and nbgrader run them?

The master notebook (solutions and hidden cells) runs top to bottom with nbclient, each
hidden cell leaving its full points. The blank release, alone in an empty folder, runs
top to bottom (Run All reaches every check): each check says its exercise is not done,
each demo says what it waits for, nothing raises. A solved release passes every check
and shows its figures, its training runs (the encoder's with its ablation) reaching
what the lessons say they reach, on one core and giving the others back; one with a
known mistake hears its name; one solved but for a single exercise still runs to the
end, the demos that need that exercise waiting.
"""

import re
import shutil

import nbformat
import pytest
from nbclient import NotebookClient

from autograder import assignments
from autograder.author.samples import sample_notebook

pytestmark = pytest.mark.slow
EXERCISES = [(name, graded) for name in assignments.names() for graded in assignments.get(name).graded]
# One exercise left blank per assignment in `make test`, the first (every later demo may wait for it), and the rest
# in CI's `make exhaustive`; tests/author/test_lesson.py checks the rule for every exercise, from the release's text.
BLANK_ONE = [
    pytest.param(name, exercise, id=f"{name}-{exercise}", marks=() if exercise == first else pytest.mark.exhaustive)
    for name, exercise in EXERCISES
    for first in [assignments.get(name).graded[0]]
]


def execute(notebook, folder, allow_errors=False):
    client = NotebookClient(
        notebook,
        timeout=300,
        kernel_name="python3",
        allow_errors=allow_errors,
        resources={"metadata": {"path": str(folder)}},
    )
    client.execute()
    return notebook


def errors(notebook):
    return [
        (cell.get("id"), output)
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if output.output_type == "error"
    ]


def printed(notebook, cell_id) -> str:
    cell = next(c for c in notebook.cells if c.get("id") == cell_id)
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


@pytest.mark.slow(seconds=12)
def test_master_notebook_runs_and_its_hidden_cells_give_full_points(assignment, tmp_path):
    from autograder.author.build import fresh_bundle_cell
    from autograder.author.notebook import master_notebook

    notebook = execute(master_notebook(assignment, fresh_bundle_cell(assignment)), tmp_path)
    assert errors(notebook) == []
    for cell in notebook.cells:
        points = cell.metadata.get("nbgrader", {}).get("points")
        if points is not None and cell.cell_type == "code":  # a written answer's points are a person's to give
            results = [o for o in cell.outputs if o.output_type == "execute_result"]
            assert float(results[0].data["text/plain"]) == pytest.approx(points), cell.id


def test_the_blank_release_alone_runs_to_the_end(assignment, tmp_path):
    """Copied alone into an empty folder, does Run All reach every check, each saying its exercise is not done?"""
    shutil.copy(assignment.release_dir / assignment.notebook_name, tmp_path)
    notebook = execute(nbformat.read(tmp_path / assignment.notebook_name, as_version=4), tmp_path)
    assert errors(notebook) == []
    for number, name in enumerate(assignment.graded, start=1):
        assert f"{name}: not done yet. Exercise {number} ({name})" in printed(notebook, f"{name}-check")
    waiting = [c for c in notebook.cells if c.cell_type == "code" and c.source.startswith("# needs:")]
    assert waiting and all("This cell waits for" in "".join(o.get("text", "") for o in c.outputs) for c in waiting)


THREADS = 'import sys\nprint(sys.modules["torch"].get_num_threads() if "torch" in sys.modules else "no torch")'


@pytest.mark.slow(seconds=11)
def test_solved_release_passes_its_checks_and_shows_its_figures(assignment, tmp_path, monkeypatch):
    """Run top to bottom, demos and training included: does every check pass, every figure show, every claim hold?

    The training cells run on one CPU core and must give the notebook back the cores it
    had; every number the lessons quote from a seeded demo (a spread of scores, the
    features that differ most, LayerNorm's standard deviations) and what they say of
    their runs (accuracy reached, both heads looking one token back, what the ablation
    and the deep stacks show) must be what the run prints.
    """
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel's own choice, as a student's Jupyter makes it
    notebook = sample_notebook(assignment, None)
    after_setup = next(i for i, cell in enumerate(notebook.cells) if cell.get("id") == "setup") + 1
    notebook.cells.insert(after_setup, nbformat.v4.new_code_cell(THREADS, id="threads-before"))
    notebook.cells.append(nbformat.v4.new_code_cell(THREADS, id="threads-after"))
    notebook = execute(notebook, tmp_path)
    assert errors(notebook) == []
    for name in assignment.graded:
        text = printed(notebook, f"{name}-check")
        assert "FAIL" not in text and "visible checks pass" in text, text
    assert "waits for" not in all_printed(notebook)  # every demo ran
    images = sum(
        "image/png" in output.get("data", {})
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
    )
    assert images >= 3
    assert printed(notebook, "threads-after") == printed(notebook, "threads-before")
    PRINTED_CLAIMS.get(assignment.name, lambda text: None)(all_printed(notebook))


def all_printed(notebook) -> str:
    return "".join(printed(notebook, cell.get("id")) for cell in notebook.cells if cell.cell_type == "code")


def numbers_after(label: str, text: str) -> list[float]:
    """The numbers printed on the line that starts with label (its rest, after the label)."""
    line = re.search(rf"^{re.escape(label)}(.*)$", text, re.MULTILINE)
    assert line, f"no line starts with {label!r}"
    return [float(number) for number in re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", line.group(1))]


def attention_numpy_claims(text: str) -> None:
    """attention_numpy: the spread of the unscaled scores the text quotes (7.53, of a seeded draw), and the two
    features that differ most once positions are added (0 and 1, the fastest sine and cosine)."""
    unscaled, scaled = numbers_after("spread (standard deviation) of the scores:", text)
    assert unscaled == 7.53 and abs(scaled - unscaled / 8) <= 0.01, (unscaled, scaled)
    assert set(numbers_after("with positions, the features that differ most:", text)) == {0, 1}


def mha_training(text: str) -> None:
    """mha: the quoted spread of the scores (8.87 in this draw, the largest about ±22), the three dot-product curves
    that coincide, training from chance to nearly every token right, and head 0 putting about three quarters of its
    weight one step back, head 1 nearly all."""
    spread, largest = numbers_after("QK^T: spread (std)", text)[:2]
    assert spread == 8.87 and 21.5 <= largest <= 22.5, (spread, largest)
    gap = numbers_after("largest gap between the curves at the distances all three reach (-40 to 39):", text)[-1]
    assert gap < 1e-4, gap  # float32 rounding of sums of 32 cosines; a real difference would be of order 1
    before, after = map(int, re.search(r"(\d+)% before training, (\d+)% after 500 steps", text).groups())
    assert before <= 20 and after >= 90, (before, after)
    heads = re.search(r"after training: average weight one step back, head 0 ([\d.]+), head 1 ([\d.]+)", text)
    head_0, head_1 = map(float, heads.groups())
    assert 0.65 <= head_0 <= 0.85 and head_1 >= 0.9, heads.group(0)


def encoder_training(text: str) -> None:
    """encoder_block: what the lesson says of its runs.

    LayerNorm's outputs a few millionths under a standard deviation of 1; the stack learns to reverse; without
    residuals it stays near a quarter right, without norms near 70%, its output scores starting about ten times
    wider; deep, pre-norm learns within 20 steps, post-norm does not in 40, with or without a loss 10 times
    larger, whose gradients are 10 times longer; pre-norm's gradient line low and flat; before training, each
    sublayer adds 23% of post-norm's stream (of size 1) and 3% of pre-norm's (of about 8).
    """
    stds = numbers_after("std of each token of x        :", text)
    assert all(1e-6 <= 1 - std < 1e-5 for std in stds), stds  # "a few millionths under 1"
    assert numbers_after("std of each token of 100 x + 5:", text)[-4:] == [1, 1, 1, 1]
    before, after = map(int, re.search(r"(\d+)% before training, (\d+)% after 120 steps", text).groups())
    assert before <= 20 and after >= 90, (before, after)
    runs = r"^(your layers|without residual connections|without LayerNorm) +held-out accuracy +(\d+)%"
    ablation = {name: int(percent) for name, percent in re.findall(runs, text, re.MULTILINE)}
    assert 15 <= ablation["without residual connections"] <= 35 and ablation["your layers"] >= 90, ablation
    assert 60 <= ablation["without LayerNorm"] <= 80, ablation
    start = {name: numbers_after(name, text)[-1] for name in ("your layers", "without LayerNorm")}
    assert 7 <= start["without LayerNorm"] / start["your layers"] <= 14, start  # "about ten times wider"
    names = ("post-norm (yours)", "post-norm, loss x 10", "pre-norm")
    deep = {name: numbers_after(name, text) for name in names}  # 20, accuracy at 20, 40, accuracy at 40, gradients
    assert deep["pre-norm"][1] >= 90 and deep["pre-norm"][3] >= 90, deep
    assert max(deep[name][3] for name in names[:2]) < 50 and abs(deep[names[0]][3] - deep[names[1]][3]) <= 10, deep
    post, scaled, pre = (deep[name][4:] for name in names)
    # "10 times longer": at the same weights exactly; over 40 steps the two runs part (Adam's eps, the rounding of a
    # loss 10 times larger), so the means differ by 9 to 11 times on one CPU, 8.6 to 9.3 on another (an AMD EPYC)
    assert all(7 <= s / p <= 14 for s, p in zip(scaled, post)), (post, scaled)  # Adam's steps, not the gradients
    assert min(post) >= 3 * max(pre) and max(pre) <= 2 * min(pre), (post, pre)  # several times longer; flat
    post_stream, _, post_share = numbers_after("at the start, post-norm (yours):", text)
    pre_stream, _, pre_share = numbers_after("at the start, pre-norm:", text)
    assert abs(post_stream - 1) <= 0.01 and 7 <= pre_stream <= 9, (post_stream, pre_stream)  # "size 1", "about ±8"
    assert (post_share, pre_share) == (23, 3), (post_share, pre_share)  # the shares the lesson quotes


PRINTED_CLAIMS = {"attention_numpy": attention_numpy_claims, "mha": mha_training, "encoder_block": encoder_training}


def test_a_known_mistake_is_named_in_the_check_cell(assignment, tmp_path):
    """Does the check cell of the demo's mistake say what is wrong, name it, and show no traceback?"""
    from autograder.grade.mistakes import catalogue

    mistake = next(m for m in catalogue(assignment) if m.id == assignment.demo_mistake)
    notebook = execute(sample_notebook(assignment, mistake.id), tmp_path)
    text = printed(notebook, f"{mistake.target}-check")
    assert "FAIL" in text and mistake.message in text and "Traceback" not in text
    assert errors(notebook) == []


def solved_but(assignment, name):
    """The release solved with the reference, except the exercise ``name``, left as its stub."""
    notebook = sample_notebook(assignment, None)
    release = nbformat.read(assignment.release_dir / assignment.notebook_name, as_version=4)
    stub = next(cell for cell in release.cells if cell.get("id") == name)
    next(cell for cell in notebook.cells if cell.get("id") == name).source = stub.source
    return notebook


@pytest.mark.parametrize("name, exercise", BLANK_ONE)
def test_run_all_reaches_the_end_with_one_exercise_left_blank(name, exercise, tmp_path):
    """With every exercise done but one, does Run All reach the end, no cell raising?

    Each demo that needs the blank exercise, or a name such a demo makes, waits; a demo
    that ran with one of them missing would stop Run All with a NameError.
    """
    assignment = assignments.get(name)
    notebook = execute(solved_but(assignment, exercise), tmp_path)
    assert errors(notebook) == []
    assert "not done yet" in printed(notebook, f"{exercise}-check")
