"""Are students grouped by how their code fails, and does a note written for a group reach exactly its members?"""

import json
from pathlib import Path

import pytest

from autograder import assignments
from autograder.deliver.class_view import clusters as clustering
from autograder.deliver.class_view.clusters import apply_notes, cluster_ids, clusters, failing, read_notes
from autograder.deliver.class_view.sources import StudentCode
from autograder.deliver.feedback import render_html, render_markdown
from autograder.deliver.intake import Submission
from autograder.errors import KitError
from autograder.results.read import read_results, read_results_file


def check(exercise: str, title: str, behaviour: str = "", passed: int = 0, total: int = 2, mistakes=(), kind="hidden"):
    return {
        "name": f"{exercise}: {title}",
        "status": "passed" if passed == total else "failed",
        "tags": [exercise],
        "score": 0.0,
        "max_score": 1.0,
        "extra_data": {"kind": kind, "cases": [passed, total], "mistakes": list(mistakes), "behaviour": behaviour},
    }


def document(*tests, status="graded") -> dict:
    """A student's results.json, with these tests."""
    return {"score": 1.0, "tests": list(tests), "extra_data": {"status": status, "by_name": {}, "mistakes": []}}


def results(*tests, status="graded"):
    """A student's results, read as the kit reads them."""
    return read_results(document(*tests, status=status))


SLIP = check("softmax", "normalises rows", "b1")
SLIP_OTHER_CASES = check("softmax", "normalises rows", "b2")
NAMED = check("positional_encoding", "the table", "b3", mistakes=["positional_sin_cos_swapped"])
CLASS = {
    "ada": results(SLIP, check("softmax", "stays finite", passed=2)),
    "ben": results(SLIP, NAMED),
    "cleo": results(SLIP_OTHER_CASES),
    "dev": results(NAMED),
    "eli": results(check("softmax", "normalises rows", passed=2)),
    "fay": results(SLIP, status="not graded"),
    "gus": results(check("softmax", "normalises rows", "")),  # the kit failed on it: nothing to group
    "hal": results(SLIP, check("softmax", "visible check", "", kind="visible")),
}


@pytest.fixture(scope="module")
def numpy_assignment():
    return assignments.get("attention_numpy")


def code_of(key: str) -> StudentCode:
    return StudentCode((f"def softmax(x, axis=-1):\n    return x  # {key}'s\n",))


def test_students_are_grouped_by_behaviour(numpy_assignment):
    """The same failing checks with the same behaviours and names: one group; another case: another group;
    the ungraded, the kit's failures and the visible checks left out; largest first, in the exercises' order?"""
    found = clusters(numpy_assignment, CLASS, code_of, {})
    groups = [
        ("positional_encoding", ["ben", "dev"], "positional_sin_cos_swapped"),
        ("softmax", ["ada", "ben", "hal"], None),
        ("softmax", ["cleo"], None),
    ]
    order = list(numpy_assignment.graded)
    groups.sort(key=lambda group: (order.index(group[0]), -len(group[1])))  # the exercises' order, largest first
    assert [(c["exercise"], c["students"], c["named"]) for c in found] == groups
    slip = next(c for c in found if c["students"] == ["ada", "ben", "hal"])
    assert slip["checks"] == [{"check": "normalises rows", "failed": 2, "of": 2}] and slip["size"] == 3
    assert slip["excerpt"] == "def softmax(x, axis=-1):\n    return x  # ada's" and slip["unfinished"] is False
    assert slip["note"] is None


def test_a_group_is_unfinished_where_its_grading_found_the_exercise_not_started(numpy_assignment):
    """Is a group "unfinished" where the grading found its code not started (it raised its own stub), and not
    where finished code keeps the stub's line under its return?"""
    stub = "raise NotImplementedError('Exercise 1 (softmax): replace this line with your code.')"
    raised = check("softmax", "normalises rows", "raised")
    blank = read_results({**document(raised), "extra_data": {"status": "graded", "not_started": ["softmax"]}})
    kept = results(SLIP)
    code = {
        "blank": f"def softmax(x, axis=-1):\n    {stub}",
        "kept": f"def softmax(x, axis=-1):\n    return x\n    {stub}",
    }
    found = clusters(numpy_assignment, {"blank": blank, "kept": kept}, lambda key: StudentCode((code[key],)), {})
    assert {c["students"][0]: c["unfinished"] for c in found} == {"blank": True, "kept": False}


def test_an_id_is_the_behaviour_itself():
    """Is the id the same for the same behaviour whoever shows it, and different with another behaviour or another name?"""
    ids = {key: cluster_ids(r) for key, r in CLASS.items()}
    assert ids["ada"]["softmax"] == ids["ben"]["softmax"] == ids["hal"]["softmax"]
    assert ids["cleo"]["softmax"] != ids["ada"]["softmax"]
    assert ids["ben"]["positional_encoding"] == ids["dev"]["positional_encoding"]
    unnamed = results(check("positional_encoding", "the table", "b3"))
    assert cluster_ids(unnamed)["positional_encoding"] != ids["dev"]["positional_encoding"]
    assert ids["fay"] == ids["gus"] == ids["eli"] == {}
    assert failing(CLASS["ada"])["softmax"].checks == (("softmax: normalises rows", "b1", 2, 2),)


def test_notes_are_read_with_a_clear_error(numpy_assignment, tmp_path, monkeypatch):
    """A notes file: read by group id; one that is not TOML, or a note that is not text, named with the fix?"""
    path = tmp_path / "cluster_notes.toml"
    monkeypatch.setattr(clustering, "notes_path", lambda assignment: path)
    assert read_notes(numpy_assignment) == {}
    path.write_text('"abc123" = """Subtract the max\nfirst."""\n"def456" = "  "\n')
    assert read_notes(numpy_assignment) == {"abc123": "Subtract the max\nfirst."}
    path.write_text('"abc123" = 3\n')
    with pytest.raises(KitError, match="cluster_notes.toml: the note of abc123 is not text"):
        read_notes(numpy_assignment)
    path.write_text("abc123 = Subtract\n")
    with pytest.raises(KitError, match='cluster_notes.toml: .*"<id>" = "the note"'):
        read_notes(numpy_assignment)


def write_class(out: Path) -> list[Submission]:
    submissions = []
    for key, result in CLASS.items():
        folder = out / "students" / key
        folder.mkdir(parents=True)
        (folder / "results.json").write_text(json.dumps(result.document))
        submissions.append(Submission(key, key.title(), "", folder / "results.json", "folders"))
    return submissions


def test_a_note_reaches_exactly_its_group(tmp_path):
    """A note for one group: in the results and both feedback files of its members, and of no one else;
    rewritten when the note changes, gone when it is deleted?"""
    submissions = write_class(tmp_path)
    loaded = {key: read_results_file(tmp_path / "students" / key / "results.json") for key in CLASS}
    group = cluster_ids(CLASS["ada"])["softmax"]
    assert apply_notes(submissions, loaded, {group: "Divide by the row's sum <b>only</b>."}, tmp_path, False) == 3
    for key in CLASS:
        folder = tmp_path / "students" / key
        stored = json.loads((folder / "results.json").read_text())["extra_data"].get("cluster_notes")
        if key in ("ada", "ben", "hal"):
            assert stored == {"softmax": "Divide by the row's sum <b>only</b>."}
            assert "A note from your instructor" in (folder / "feedback.html").read_text()
            assert "A note from your instructor" in (folder / "feedback.md").read_text()
        else:
            assert stored is None and not (folder / "feedback.html").exists()
    page = (tmp_path / "students" / "ada" / "feedback.html").read_text()
    assert "sum &lt;b&gt;only&lt;/b&gt;." in page and "<b>only" not in page
    assert (
        "> **A note from your instructor:** Divide by the row's sum \\<b\\>only\\</b\\>."
        in (tmp_path / "students" / "ben" / "feedback.md").read_text()
    )
    assert apply_notes(submissions, loaded, {group: "Divide by the row's sum <b>only</b>."}, tmp_path, False) == 0
    assert apply_notes(submissions, loaded, {}, tmp_path, False) == 3
    assert "A note from your instructor" not in (tmp_path / "students" / "hal" / "feedback.html").read_text()


def test_the_note_sits_with_its_exercise():
    """In the page and the Markdown, is the note shown in the section of the exercise it is written for?"""
    ben = CLASS["ben"].document
    result = read_results({**ben, "extra_data": {**ben["extra_data"], "cluster_notes": {"softmax": "Rows, not all."}}})
    page, text = render_html(result), render_markdown(result)
    sections = [part.split("</section>")[0] for part in page.split('<section class="exercise"')[1:]]
    assert [("Rows, not all." in section, '<span class="name">softmax</span>' in section) for section in sections] == [
        (True, True),  # softmax, the first exercise of ben's results
        (False, False),  # positional_encoding
    ]
    note = text.index("> **A note from your instructor:** Rows, not all.")
    assert text.index("### `softmax`") < note < text.index("### `positional_encoding`")


def test_a_note_regrades_no_one(mha):
    """Does writing a note leave grade-all's grading digest as it was (a note decides feedback, no grade)?"""
    from autograder.config import GradingConfig
    from autograder.deliver.grade_all.regrade import grading_digest

    path = clustering.notes_path(mha)
    assert not path.exists(), f"{path} is the instructor's: this test writes one only where there is none"
    before = grading_digest(mha, GradingConfig())
    try:
        path.write_text('"0123456789ab" = "A note."\n')
        assert grading_digest(mha, GradingConfig()) == before
    finally:
        path.unlink()
