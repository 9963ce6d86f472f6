"""Is a sample submission the release filled with the reference's code, with the one known mistake asked for?"""

import nbformat
import pytest

from autograder.author import samples
from autograder.author.blocks import _blocks_of, strip_markers
from autograder.author.notebook import METADATA_KEY, notebook_text
from autograder.grade.mistakes import catalogue


def exercise_cells(notebook, assignment) -> dict[str, str]:
    return {cell.id: cell.source for cell in notebook.cells if cell.get("id") in assignment.graded}


def test_a_solved_sample_holds_the_references_exercises_without_markers(mha):
    """Is each exercise cell the reference's definition, markers stripped, and every other cell the release's?"""
    notebook = samples.sample_notebook(mha, None)
    reference = {b.name: b.source for b in _blocks_of(mha.reference_path.read_text()) if b.is_exercise}
    cells = exercise_cells(notebook, mha)
    assert cells == {name: strip_markers(reference[name]).rstrip("\n") for name in mha.graded}
    release = nbformat.read(mha.release_dir / mha.notebook_name, as_version=4)
    others = [c.source for c in notebook.cells if c.get("id") not in mha.graded]
    assert others == [c.source for c in release.cells if c.get("id") not in mha.graded]
    assert notebook.metadata[METADATA_KEY]["note"] == "a sample submission"


def test_a_sample_with_a_mistake_differs_by_that_mistake_alone(mha):
    """Does naming a known mistake edit only its target's cell, as the mistake edits the reference, and say so?"""
    mistake = next(m for m in catalogue(mha) if m.id == mha.demo_mistake)
    solved = exercise_cells(samples.sample_notebook(mha, None), mha)
    buggy_notebook = samples.sample_notebook(mha, mistake.id)
    buggy = exercise_cells(buggy_notebook, mha)
    assert [name for name in mha.graded if buggy[name] != solved[name]] == [mistake.target]
    assert buggy_notebook.metadata[METADATA_KEY]["note"] == f"a sample submission with the mistake {mistake.id}"


@pytest.fixture
def scratch_kit(monkeypatch, tmp_path):
    """Samples written under tmp_path/build/samples/ instead of the kit's."""
    monkeypatch.setattr(samples, "KIT_ROOT", tmp_path)
    return tmp_path


def test_a_sample_is_named_for_its_mistake_and_rewritten_only_when_stale(mha, scratch_kit):
    """Is the demo's sample one_bug_<mistake>.ipynb, the solved one solved.ipynb, and a stale file rewritten?"""
    demo = samples.sample_path(mha)
    assert demo == scratch_kit / "build" / "samples" / "mha" / f"one_bug_{mha.demo_mistake}.ipynb"
    solved = samples.sample_path(mha, None)
    assert solved.name == "solved.ipynb"
    assert solved.read_text() == notebook_text(samples.sample_notebook(mha, None))
    solved.write_text("stale")
    assert samples.sample_path(mha, None).read_text() == notebook_text(samples.sample_notebook(mha, None))


def test_a_sample_that_keeps_the_stubs_line_holds_it_under_each_return_alone(mha):
    """Does every exercise of a sample that keeps the stub's line hold the stub's raise right under a return, and
    differ from the finished exercise by those lines alone?"""
    solved = exercise_cells(samples.sample_notebook(mha, mha.demo_mistake), mha)
    kept = exercise_cells(samples.sample_notebook(mha, mha.demo_mistake, stub_kept=True), mha)
    for number, name in enumerate(mha.graded, start=1):
        lines = kept[name].split("\n")
        raises = [i for i, line in enumerate(lines) if f"NotImplementedError('Exercise {number} ({name}):" in line]
        assert raises, name
        assert all(lines[i - 1].strip().startswith("return") for i in raises), name
        assert "\n".join(line for i, line in enumerate(lines) if i not in raises) == solved[name]
