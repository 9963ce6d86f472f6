"""Does nbgrader, run with the kit's plugin, compute the late penalty grade-all computes for the same policy, and does
`gradebook` store exactly that?

Each test runs nbgrader's own AssignLatePenalties (nbgrader/preprocessors/latesubmissions.py, the step
`nbgrader autograde` runs) on a real gradebook.db: it asks the plugin only where the submission's timestamp is after
the due date (with the student's extension) and keeps the answer within the notebook's score.
"""

import json
import shutil
from datetime import datetime, timedelta, timezone
from fractions import Fraction
from pathlib import Path

import nbformat
import pytest
from traitlets.config import Config

from autograder.author.release import gradebook_url, open_gradebook
from autograder.deliver.grade_all.class_folder import results_path
from autograder.deliver.intake import Intake, Submission
from autograder.deliver.late.apply import apply_late
from autograder.deliver.late.nbgrader_plugin import LatePolicyPlugin
from autograder.deliver.late.policy import read_policy
from autograder.deliver.late.rules import deduction, judge_time
from autograder.deliver.routes.gradebook import export
from autograder.results.read import read_results, read_results_file
from autograder.results.scoring import exact
from autograder.results.update import save_results

from ..students import student_results

pytestmark = pytest.mark.filterwarnings("ignore:.*not in session")  # nbgrader's add_submission trips SQLAlchemy's
PLUGIN = f"{LatePolicyPlugin.__module__}.{LatePolicyPlugin.__name__}"
POLICY = """time_zone = "America/New_York"
grace = "15 minutes"
penalty = "{penalty}"
cap = "{cap}"
[mha]
due = 2025-03-08T23:59:00
[mha.extensions]
"u-77" = "2 days"
"""
DUE_UTC = datetime(2025, 3, 9, 4, 59)  # 23:59 EST, as nbgrader keeps it: UTC without a zone
SCORE = 31.2  # the automatic points of the notebook graded; 40 automatic and 7 written possible


def write_policy(folder: Path, penalty: str = "10% per day", cap: str = "50%") -> Path:
    path = folder / "late.toml"
    path.write_text(POLICY.format(penalty=penalty, cap=cap))
    return path


@pytest.fixture(scope="module")
def empty_course(tmp_path_factory) -> Path:
    """gradebook.db with mha due at the policy's due date and a notebook of 40 automatic and 7 written points, made
    once (nbgrader runs alembic for a new gradebook: seconds); each test copies it."""
    folder = tmp_path_factory.mktemp("course")
    with open_gradebook(folder) as gradebook:
        gradebook.add_assignment("mha", duedate=DUE_UTC)
        gradebook.add_notebook("mha", "mha")
        gradebook.add_grade_cell("code-tests", "mha", "mha", max_score=40, cell_type="code")
        gradebook.add_grade_cell("written", "mha", "mha", max_score=7, cell_type="markdown")
    return folder / "gradebook.db"


def small_course(
    empty_course: Path, folder: Path, timestamp: datetime, lms_id: str = "", extension: timedelta | None = None
) -> None:
    """The course above in folder, with Ann's submission made at ``timestamp`` (UTC), her automatic cell scored
    SCORE."""
    folder.mkdir(exist_ok=True)
    shutil.copy(empty_course, folder / "gradebook.db")
    with open_gradebook(folder) as gradebook:
        gradebook.add_student("ann", lms_user_id=lms_id or None)
        gradebook.add_submission("mha", "ann", timestamp=timestamp, extension=extension)
        gradebook.find_grade("code-tests", "mha", "mha", "ann").auto_score = SCORE
        gradebook.db.commit()


def nbgraders_penalty(folder: Path, config: Config) -> float | None:
    """What nbgrader's AssignLatePenalties stores for Ann, configured so."""
    from nbgrader.preprocessors import AssignLatePenalties

    resources = {
        "nbgrader": {"notebook": "mha", "assignment": "mha", "student": "ann", "db_url": gradebook_url(folder)}
    }
    AssignLatePenalties(config=config).preprocess(nbformat.v4.new_notebook(), resources)
    with open_gradebook(folder) as gradebook:
        return gradebook.find_submission_notebook("mha", "mha", "ann").late_submission_penalty


def with_plugin(policy: Path) -> Config:
    config = Config()
    config.AssignLatePenalties.plugin_class = PLUGIN
    config.LatePolicyPlugin.policy_file = str(policy)
    return config


def kits_penalty(policy: Path, who: tuple[str, ...], timestamp: datetime) -> float:
    """grade-all's points off Ann's SCORE for the same policy and time."""
    judged = judge_time(read_policy(policy, "mha"), who, timestamp.replace(tzinfo=timezone.utc))
    return float(deduction(judged.percent, judged.of, exact(SCORE), Fraction(47)))


@pytest.mark.slow
@pytest.mark.parametrize(
    "penalty, cap, timestamp, lms_id, expected",
    [
        ("10% per day", "50%", datetime(2025, 3, 9, 5, 10), "", 0.0),  # 11 min late: within the grace
        ("1% per hour", "50%", datetime(2025, 3, 9, 14, 59), "", 4.7),  # 10 h: 10% of 47
        ("10% per day", "50%", datetime(2025, 3, 10, 4, 30), "", 9.4),  # Monday 00:30 EDT: the second day, 23 h 31 min
        ("10% per day", "50%", datetime(2025, 3, 20, 4, 0), "", 23.5),  # capped at 50%
        ("100% per hour", "100%", datetime(2025, 3, 9, 6, 0), "", SCORE),  # 47 points asked, kept within the score
        ("10% per day", "50%", datetime(2025, 3, 10, 4, 30), "u-77", 0.0),  # her extension, by LMS id
        ("10% per day", "50%", datetime(2025, 3, 12, 3, 0), "u-77", 4.7),  # 23 h after her two days: one day late
    ],
    ids=["grace", "per hour", "per day across the change of clocks", "capped", "more than the score",
         "an extension by LMS id", "late after the extension"],
)  # fmt: skip
def test_nbgraders_own_step_with_the_plugin_gives_the_kits_penalty(
    empty_course, tmp_path, penalty, cap, timestamp, lms_id, expected
):
    """Does nbgrader's AssignLatePenalties, with the plugin, store what grade-all's rules give for the same time?"""
    small_course(empty_course, tmp_path, timestamp, lms_id)
    policy = write_policy(tmp_path, penalty, cap)
    assert min(kits_penalty(policy, ("ann", lms_id), timestamp), SCORE) == pytest.approx(expected, abs=1e-9)
    assert nbgraders_penalty(tmp_path, with_plugin(policy)) == pytest.approx(expected, abs=1e-9)


@pytest.mark.slow
def test_nbgrader_asks_nothing_before_its_due_date_and_the_plugin_agrees(empty_course, tmp_path):
    """An on-time submission: does nbgrader store no penalty (it does not ask), as grade-all takes none?"""
    small_course(empty_course, tmp_path, datetime(2025, 3, 9, 4, 0))
    policy = write_policy(tmp_path)
    assert kits_penalty(policy, ("ann",), datetime(2025, 3, 9, 4, 0)) == 0
    assert not nbgraders_penalty(tmp_path, with_plugin(policy))


@pytest.mark.slow
def test_the_kits_all_or_nothing_policy_is_nbgraders_zero_method(empty_course, tmp_path):
    """nbgrader's built-in LateSubmissionPlugin with penalty_method 'zero' takes the whole score of late work: is
    the kit's "100% per hour" policy the same, on the same timestamps, late or on time?"""
    policy = write_policy(tmp_path, "100% per hour", "100%")
    for n, timestamp in enumerate([datetime(2025, 3, 9, 6, 0), datetime(2025, 3, 9, 4, 0)]):
        folder = tmp_path / str(n)
        small_course(empty_course, folder, timestamp)
        zero = Config()
        zero.LateSubmissionPlugin.penalty_method = "zero"
        theirs = nbgraders_penalty(folder, zero) or 0.0
        assert theirs == pytest.approx(min(kits_penalty(policy, ("ann",), timestamp), SCORE), abs=1e-9)
        assert theirs == (SCORE if n == 0 else 0.0)


@pytest.mark.slow
def test_gradebook_stores_the_penalty_nbgrader_computes_and_export_subtracts_it(mha, tmp_path):
    """grade-all's records of Ann (10 h late, 1% per hour) and Bo (an extension by his LMS id, on time) through
    `gradebook`: are the due date, times and extension stored as nbgrader keeps them, does nbgrader's own step with
    the plugin, run on that gradebook afterwards, keep exactly the penalty stored, and is nbgrader's exported score
    the raw score less it?"""
    from nbgrader.plugins.export import CsvExportPlugin

    course, out = tmp_path / "course", tmp_path / "out"
    course.mkdir()
    policy_path = write_policy(tmp_path, "1% per hour")
    people = [
        Submission("ann", "Ann Lee", "a-1", tmp_path, "gradescope", submitted_at="2025-03-09T09:59:00-05:00"),
        Submission("bo", "Bo Ng", "u-77", tmp_path, "gradescope", submitted_at="2025-03-10T09:00:00-04:00"),
    ]
    results = {}
    for person in people:
        path = results_path(out, person.key)
        path.parent.mkdir(parents=True)
        save_results(read_results(student_results()), path)
        results[person.key] = read_results_file(path)
    apply_late(read_policy(policy_path, "mha"), Intake("gradescope", people, []), results, out, Fraction(47))
    shutil.copy(policy_path, course / "late.toml")
    export(out, mha, course)
    with open_gradebook(course) as gradebook:
        ann, bo = (gradebook.find_submission("mha", s) for s in ("ann", "bo"))
        assert ann.assignment.duedate == DUE_UTC and ann.timestamp == datetime(2025, 3, 9, 14, 59)
        assert ann.extension is None and bo.extension == timedelta(days=2, hours=-1)  # two days on the clock: 47 h
        stored = {s.student.id: s.late_submission_penalty for s in (ann, bo)}
        raw = {s.student.id: s.score for s in (ann, bo)}
        gradebook.find_student("bo").lms_user_id = "u-77"
        gradebook.db.commit()
    assert stored == {"ann": pytest.approx(4.7), "bo": 0.0} and raw["ann"] == pytest.approx(SCORE)
    assert read_results_file(results_path(out, "ann")).late.deducted == pytest.approx(stored["ann"])
    for student in ("ann", "bo"):
        from nbgrader.preprocessors import AssignLatePenalties

        resources = {
            "nbgrader": {"notebook": "mha", "assignment": "mha", "student": student, "db_url": gradebook_url(course)}
        }
        AssignLatePenalties(config=with_plugin(course / "late.toml")).preprocess(nbformat.v4.new_notebook(), resources)
    with open_gradebook(course) as gradebook:
        again = {s: gradebook.find_submission_notebook("mha", "mha", s).late_submission_penalty or 0.0 for s in stored}
    assert again == pytest.approx(stored)
    exported = tmp_path / "grades.csv"
    with open_gradebook(course) as gradebook:
        CsvExportPlugin(to=str(exported)).export(gradebook)
    rows = {row.split(",")[3]: row.split(",") for row in exported.read_text().splitlines()[1:]}
    assert float(rows["ann"][9]) == pytest.approx(SCORE - 4.7) and float(rows["ann"][8]) == pytest.approx(4.7)
    assert json.loads(results_path(out, "ann").read_text())["extra_data"]["late_penalty"]["score"] == pytest.approx(
        SCORE - 4.7
    )
