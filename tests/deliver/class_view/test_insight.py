"""Does grade-all show an instructor the class as a whole: students who fail alike grouped with ids that hold
from term to term, a note written once reaching exactly its group, copies flagged, all on one page?

The class is tests/data/cohort/attention_numpy/ (its README says who does what): ada and ben share a slip the
catalogue does not know, cleo and dev a known mistake, fay is eli's copy with everything renamed and reordered.
"""

import ast
import csv
import json
import shutil
from pathlib import Path

import pytest

from autograder import KIT_ROOT, assignments
from autograder.config import GradingConfig
from autograder.deliver.class_view import clusters as clustering
from autograder.deliver.class_view.cluster_to_mistake import append_entry, cluster_to_mistake, entry_text
from autograder.deliver.grade_all import batch
from autograder.grade import mistakes
from autograder.grade.mistakes import Mistake
from tests.deliver.feedback.test_page import CHROMIUM, chromium

pytestmark = pytest.mark.slow
COHORT = KIT_ROOT / "tests" / "data" / "cohort" / "attention_numpy"
NAME = "attention_numpy"
BASE_1000 = {
    "id": "positional_base_1000",
    "target": None,
    "old": "angle = position / 10000 ** (two_i / d_model)",
    "new": "angle = position / 1000 ** (two_i / d_model)",
    "message": "The base is 10000, not 1000: pe[pos, 2i] = sin(pos / 10000^(2i / d_model)).",
}


def grade(folder: Path, out: Path, **options) -> None:
    assert batch.grade_all(folder, NAME, out, GradingConfig(), progress=False, **{"jobs": 2, **options}) == 0


def groups(out: Path) -> dict[tuple[str, ...], dict]:
    return {tuple(c["students"]): c for c in json.loads((out / "clusters.json").read_text())}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    out = tmp_path_factory.mktemp("term-1")
    grade(COHORT, out)
    return out


def test_groups_named_right_and_the_copy_first(graded):
    """Is each pair that fails alike one group, named by the catalogue only where it knows the mistake,
    and is the renamed, reordered copy the first line of similarity.csv?"""
    found = groups(graded)
    assert set(found) == {("ada", "ben"), ("cleo", "dev")}  # eli and fay pass every check
    slip, known = found[("ada", "ben")], found[("cleo", "dev")]
    assert (slip["exercise"], slip["named"], slip["size"]) == ("positional_encoding", None, 2)
    assert (known["exercise"], known["named"]) == ("positional_encoding", "positional_sin_cos_swapped")
    assert slip["checks"] == [
        {
            "check": "returns pe[pos, 2i] = sin(pos / 10000^(2i/d)), pe[pos, 2i+1] = cos(pos / 10000^(2i/d))",
            "failed": 3,
            "of": 5,
        }
    ]
    assert slip["excerpt"].startswith("def positional_encoding(seq_len, d_model):") and "1000 **" in slip["excerpt"]
    with open(graded / "similarity.csv", newline="") as file:
        rows = list(csv.DictReader(file))
    assert (rows[0]["student_a"], rows[0]["student_b"]) == ("eli", "fay") and float(rows[0]["similarity"]) > 0.9
    assert all(float(row["similarity"]) < 0.5 for row in rows[1:])
    report = (graded / "report.txt").read_text()
    assert f"{slip['id']}  no known mistake" in report and "eli  fay" in report


def test_the_ids_hold_in_another_term(graded, tmp_path):
    """Other students, next term, graded again from scratch: the same slip, the same known mistake, the same ids?"""
    later = tmp_path / "term-2"
    later.mkdir()
    for old, new in (("ben", "zed"), ("cleo", "yan"), ("dev", "xia"), ("eli", "wes")):
        shutil.copy(COHORT / f"{old}.py", later / f"{new}.py")
    grade(later, tmp_path / "out", force=True)
    now, before = groups(tmp_path / "out"), groups(graded)
    assert now[("zed",)]["id"] == before[("ada", "ben")]["id"]
    assert now[("xia", "yan")]["id"] == before[("cleo", "dev")]["id"]


def test_a_note_reaches_exactly_its_group(graded, tmp_path, monkeypatch, capsys):
    """A note written for the slip's group: the next grade-all, which grades no one again, puts it into ada's and
    ben's feedback pages and Markdown, and no one else's; clusters.json and the dashboard say it is written."""
    slip = groups(graded)[("ada", "ben")]
    notes = tmp_path / "cluster_notes.toml"
    notes.write_text(f'"{slip["id"]}" = """Count the base again: 10000, as in the paper.\nThen <rerun> the check."""\n')
    monkeypatch.setattr(clustering, "notes_path", lambda assignment: notes)
    grade(COHORT, graded)
    assert "0 graded, 6 unchanged since the last run" in capsys.readouterr().out
    for student in sorted(path.stem for path in COHORT.glob("*.py")):
        folder = graded / "students" / student
        page, text = (folder / "feedback.html").read_text(), (folder / "feedback.md").read_text()
        member = student in ("ada", "ben")
        assert ("Count the base again: 10000, as in the paper." in page) is member, student
        assert ("Count the base again: 10000, as in the paper. Then \\<rerun\\> the check." in text) is member
    assert "Then &lt;rerun&gt; the check." in (graded / "students" / "ben" / "feedback.html").read_text()
    assert groups(graded)[("ada", "ben")]["note"].startswith("Count the base again")
    assert groups(graded)[("cleo", "dev")]["note"] is None
    assert '<span class="tag noted">written</span>' in (graded / "report.html").read_text()


@pytest.mark.skipif(
    not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium (apt-get install -y chromium)"
)
def test_the_dashboard_in_a_browser(graded, tmp_path):
    """report.html in Chromium: the groups with their ids and members' links, the copy at the top of the pairs."""
    found = groups(graded)
    page = (graded / "report.html").resolve().as_uri()
    dom = chromium("--dump-dom", page, profile=tmp_path / "profile")
    assert dom.returncode == 0, dom.stderr[-2000:]
    for cluster in found.values():
        assert f'id="group-{cluster["id"]}"' in dom.stdout
    assert 'href="students/ada/feedback.html"' in dom.stdout and 'href="students/dev/feedback.html"' in dom.stdout
    alike = dom.stdout[dom.stdout.index('id="alike"') :]
    assert alike.index('href="students/eli/feedback.html"') < alike.index('href="students/ada/feedback.html"')
    shot = tmp_path / "report.png"
    done = chromium(f"--screenshot={shot}", "--window-size=1200,1800", page, profile=tmp_path / "profile-shot")
    assert done.returncode == 0 and shot.stat().st_size > 20_000, done.stderr[-2000:]


def test_a_group_becomes_a_known_mistake(graded, tmp_path, monkeypatch, capsys, request):
    """cluster-to-mistake: an edit that does something else is refused; the edit that makes the group's slip gives
    an entry which, once in the catalogue, names exactly the group's students; --append's text is that entry."""
    assignment = assignments.get(NAME)
    slip = groups(graded)[("ada", "ben")]
    other = {**BASE_1000, "new": "angle = position / 100 ** (two_i / d_model)"}
    assert cluster_to_mistake(graded, assignment, slip["id"], other) == 1
    assert f"does not reproduce group {slip['id']}" in capsys.readouterr().out
    assert cluster_to_mistake(graded, assignment, slip["id"], BASE_1000) == 0
    printed = capsys.readouterr().out
    assert f"The edit reproduces group {slip['id']} (2 students, positional_encoding)" in printed
    call = ast.parse(printed[printed.index("Mistake(") :].strip().rstrip(","), mode="eval").body
    mistake = Mistake(**{keyword.arg: ast.literal_eval(keyword.value) for keyword in call.keywords})
    assert mistake == Mistake(**{**BASE_1000, "target": "positional_encoding"})

    catalogue = tmp_path / "mistakes.py"
    shutil.copy(assignment.folder / "mistakes.py", catalogue)
    append_entry(catalogue, entry_text(mistake))
    namespace: dict = {}
    exec(compile(catalogue.read_text(), str(catalogue), "exec"), namespace)
    assert namespace["MISTAKES"][-1] == mistake and namespace["MISTAKES"][:-1] == list(
        assignment.module("mistakes").MISTAKES
    )

    module = assignment.module("mistakes")
    monkeypatch.setattr(module, "MISTAKES", [*module.MISTAKES, mistake])
    mistakes._catalogue.cache_clear()  # the catalogue is read once per process: read it again, with the entry
    request.addfinalizer(mistakes._catalogue.cache_clear)  # and without it, once the entry is gone
    out = tmp_path / "with-entry"
    grade(COHORT, out, jobs=1, force=True)
    named = {key: c["named"] for key, c in groups(out).items()}
    assert named == {("ada", "ben"): "positional_base_1000", ("cleo", "dev"): "positional_sin_cos_swapped"}


def test_without_copydetect_the_rest_is_written(graded, tmp_path, monkeypatch):
    """Where copydetect is not installed (it comes with the instructor extra): are the groups and the dashboard
    still written, an earlier similarity.csv removed, and the reason given?"""
    from autograder.deliver.class_view import insight
    from autograder.deliver.grade_all.class_folder import read_class
    from autograder.deliver.intake import read_intake

    out = tmp_path / "out"
    shutil.copytree(graded, out)
    monkeypatch.setattr(insight, "similarity_available", lambda: False)
    intake = read_intake(COHORT, tmp_path / "scratch")
    status = {s.key: ("graded", "") for s in intake.submissions}
    lines = insight.write_insight(assignments.get(NAME), out, intake, read_class(intake, out), status)
    assert "similarity.csv not written: copydetect is missing (pip install 'autograder[instructor]')" in lines
    assert not (out / "similarity.csv").exists()
    assert {key: c["id"] for key, c in groups(out).items()} == {key: c["id"] for key, c in groups(graded).items()}
    assert "No two submissions had enough code of their own to compare." in (out / "report.html").read_text()
