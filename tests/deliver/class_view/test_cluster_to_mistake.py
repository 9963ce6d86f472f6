"""Does cluster-to-mistake take only an entry the catalogue can hold, print or append it only where the edited
reference fails exactly as the group does, and say what differs where it does not?

The edit graded for real through the sandbox, on a class graded by grade-all:
tests/deliver/class_view/test_insight.py (test_a_group_becomes_a_known_mistake). Here the grading of
the edit (behaviour_of_edit) is given, so that each decision is seen on its own.
"""

import ast
import json
import shutil

import pytest

from autograder import assignments
from autograder.deliver.class_view import cluster_to_mistake as module
from autograder.deliver.class_view.cluster_to_mistake import (
    append_entry,
    check_entry,
    cluster_to_mistake,
    entry_text,
    load_group,
)
from autograder.deliver.class_view.clusters import Failing
from autograder.errors import KitError
from autograder.grade.mistakes import Mistake

NUMPY = assignments.get("attention_numpy")
TAKEN = NUMPY.module("mistakes").MISTAKES[0].id
OLD = "angle = position / 10000 ** (two_i / d_model)"
EDIT = {
    "id": "positional_base_1000",
    "target": None,
    "old": OLD,
    "new": "angle = position / 1000 ** (two_i / d_model)",
    "message": "The base is 10000, not 1000.",
}
FAILS = Failing("positional_encoding", (("positional_encoding: returns pe", "b1", 3, 5),), ())
GROUP = {
    "id": FAILS.id,
    "exercise": "positional_encoding",
    "named": None,
    "size": 2,
    "checks": [{"check": "returns pe", "failed": 3, "of": 5}],
}


def mistake(**fields) -> Mistake:
    return Mistake(**{**EDIT, "target": "positional_encoding", **fields})


@pytest.fixture
def out(tmp_path):
    (tmp_path / "clusters.json").write_text(json.dumps([GROUP, {**GROUP, "id": "named1", "named": "known_one"}]))
    return tmp_path


# ------------------------------------------------------------------ the group


def test_a_group_is_found_by_its_id(out):
    """Is the group of that id read from clusters.json?"""
    assert load_group(out, FAILS.id) == GROUP


def test_a_group_not_there_says_where_to_look(out, tmp_path):
    """Does an unknown id, or no clusters.json, get an error that says where the ids are or what to run?"""
    with pytest.raises(KitError, match=r"has no group 'nope'; the ids are in its \"id\" fields and in report.html"):
        load_group(out, "nope")
    with pytest.raises(KitError, match=r"cannot read .*clusters.json .*; run grade-all with --out .*empty first"):
        load_group(tmp_path / "empty", FAILS.id)


# ------------------------------------------------------------------ the entry


@pytest.mark.parametrize(
    "fields, says",
    [
        ({"id": "Base-1000"}, "use lower-case letters, digits and underscores"),
        ({"id": TAKEN}, f"--id '{TAKEN}' is already in .*mistakes.py: choose another"),
        ({"target": "attention"}, "is not a graded name of attention_numpy: one of softmax"),
        ({"message": "  "}, "--message is empty"),
        ({"old": "this text is not in the reference"}, "must occur exactly once in the reference"),
    ],
    ids=["malformed id", "taken id", "unknown target", "no message", "edit that misses"],
)
def test_an_entry_the_catalogue_cannot_take_is_refused(fields, says):
    """Is an entry with a malformed or taken id, an unknown target, no message or an edit that misses refused,
    the error naming what to change?"""
    with pytest.raises(KitError, match=says):
        check_entry(NUMPY, mistake(**fields))
    check_entry(NUMPY, mistake())  # the same entry, set right, is taken


def test_the_entry_reads_back_as_the_same_mistake():
    """Does the entry, as mistakes.py writes one, read back as the mistake, quotes, newlines and accents kept?"""
    odd = mistake(new='angle = "x"\n  # café', message='Say "10000", not 1000: \\ and all.')
    text = entry_text(odd)
    assert text.startswith("    Mistake(\n        id=") and text.endswith("    ),\n")
    call = ast.parse(text.strip().rstrip(","), mode="eval").body
    assert Mistake(**{k.arg: ast.literal_eval(k.value) for k in call.keywords}) == odd
    assert "café" in text


def test_the_entry_is_appended_to_the_catalogues_list(tmp_path):
    """Is the entry added as the last item of MISTAKES, the rest of the file as it was?"""
    catalogue = tmp_path / "mistakes.py"
    shutil.copy(NUMPY.folder / "mistakes.py", catalogue)
    before = catalogue.read_text()
    append_entry(catalogue, entry_text(mistake()))
    namespace: dict = {}
    exec(compile(catalogue.read_text(), str(catalogue), "exec"), namespace)
    assert namespace["MISTAKES"][-1] == mistake()
    assert namespace["MISTAKES"][:-1] == list(NUMPY.module("mistakes").MISTAKES)
    assert catalogue.read_text().replace(entry_text(mistake()), "") == before


def test_a_catalogue_whose_list_cannot_be_found_gets_the_entry_by_hand(tmp_path):
    """Where MISTAKES = [...] does not close on a line of its own, is the file left as it was and the entry given?"""
    catalogue = tmp_path / "mistakes.py"
    catalogue.write_text("MISTAKES = [Mistake('a', None, 'x', 'y', 'z')]\n")
    with pytest.raises(KitError, match=r"cannot find the line that closes MISTAKES = \[...\]; add the entry by hand"):
        append_entry(catalogue, entry_text(mistake()))
    assert catalogue.read_text() == "MISTAKES = [Mistake('a', None, 'x', 'y', 'z')]\n"
    catalogue.write_text("OTHER = [\n]\n")
    with pytest.raises(KitError, match="positional_base_1000"):
        append_entry(catalogue, entry_text(mistake()))


# ------------------------------------------------------------------ does the edit reproduce the group?


def edited(monkeypatch, found: dict) -> list:
    """behaviour_of_edit giving these failures; the entries append_entry was given."""
    appended: list = []
    monkeypatch.setattr(module, "behaviour_of_edit", lambda assignment, mistake, config=None: found)
    monkeypatch.setattr(module, "append_entry", lambda path, text: appended.append((path, text)))
    return appended


def test_an_edit_that_fails_as_the_group_gives_its_entry(out, monkeypatch, capsys):
    """Where the edited reference fails the group's exercise as the group does, is the entry printed, its target
    the group's exercise, and with append added to the assignment's mistakes.py?"""
    appended = edited(monkeypatch, {"positional_encoding": FAILS})
    assert cluster_to_mistake(out, NUMPY, FAILS.id, EDIT) == 0
    printed = capsys.readouterr().out
    assert printed.startswith(f"The edit reproduces group {FAILS.id} (2 students, positional_encoding).")
    assert printed.endswith(entry_text(mistake())) and appended == []
    assert cluster_to_mistake(out, NUMPY, FAILS.id, EDIT, append=True) == 0
    assert appended == [(NUMPY.folder / "mistakes.py", entry_text(mistake()))]
    assert "Added positional_base_1000 to" in capsys.readouterr().out


def test_an_edit_that_fails_otherwise_says_how(out, monkeypatch, capsys):
    """Where the edited reference fails the exercise in another way, or passes it, is no entry given, and the
    group's failures set beside the edit's?"""
    other = Failing("positional_encoding", (("positional_encoding: returns pe", "b2", 5, 5),), ())
    appended = edited(monkeypatch, {"positional_encoding": other, "softmax": FAILS})
    assert cluster_to_mistake(out, NUMPY, FAILS.id, EDIT, append=True) == 1
    printed = capsys.readouterr().out
    assert printed.splitlines() == [
        f"The edit does not reproduce group {FAILS.id}: on positional_encoding, the group fails",
        "  - returns pe (3 of 5 cases)",
        f"but the edited reference fails these, as group {other.id} (other checks, cases or outputs):",
        "  - positional_encoding: returns pe (5 of 5 cases)",
    ]
    edited(monkeypatch, {"softmax": FAILS})
    assert cluster_to_mistake(out, NUMPY, FAILS.id, EDIT) == 1
    assert "but the edited reference passes every check of positional_encoding." in capsys.readouterr().out
    assert appended == []


def test_a_group_already_named_is_refused(out, monkeypatch):
    """Is a group the catalogue already names refused before anything is graded?"""
    edited(monkeypatch, {})
    with pytest.raises(KitError, match="group named1 is already the known mistake known_one"):
        cluster_to_mistake(out, NUMPY, "named1", EDIT)
