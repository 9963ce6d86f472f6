"""Does grade-all grade a student again exactly when their submission, or anything that decides a grade, changed?"""

import os
import shutil
from pathlib import Path

from autograder.config import GradingConfig
from autograder.deliver.grade_all.regrade import grading_digest, is_done, shard_of, student_record, submission_digest
from autograder.deliver.intake import Submission
from autograder.results.outcome import outcome_of
from autograder.results.read import read_results
from autograder.results.write import Provenance, not_graded_json, results_json

from ..students import student_report


def test_the_digest_covers_what_decides_a_grade(copy_of_mha):
    """Does the grading digest change with the points, a grader, the reference or a known mistake?"""
    mha, config = copy_of_mha, GradingConfig()
    digest = grading_digest(mha, config)
    files = [
        mha.points_path,
        mha.graders_dir / "test_tokenize.py",
        mha.reference_path,
        mha.folder / "mistakes.py",
        mha.probes_path,
    ]
    for path in files:
        original = path.read_bytes()
        path.write_bytes(original + b"\n# changed\n")
        assert grading_digest(mha, config) != digest, path.name
        path.write_bytes(original)
    assert grading_digest(mha, config) == digest


def test_a_grading_option_decides_a_grade(mha):
    """Does the digest stay the same for the same options, and change with another time limit?"""
    assert grading_digest(mha, GradingConfig()) == grading_digest(mha, GradingConfig())
    assert grading_digest(mha, GradingConfig(timeout=GradingConfig().timeout + 1)) != grading_digest(
        mha, GradingConfig()
    )


def test_a_submission_digest_follows_what_was_submitted(tmp_path):
    """The same files under the same name: the same digest, wherever they are; a changed byte, a renamed file or a
    new file: another; a link is not followed?"""
    first = tmp_path / "a" / "ada"
    first.mkdir(parents=True)
    (first / "mha.ipynb").write_text("{}")
    (first / "utils.py").write_text("X = 1\n")
    second = tmp_path / "b" / "ada"
    shutil.copytree(first, second)
    digest = submission_digest(first)
    assert submission_digest(second) == digest
    os.symlink("/etc/passwd", second / "link.py")
    assert submission_digest(second) == digest
    (second / "utils.py").write_text("X = 2\n")
    assert submission_digest(second) != digest
    (second / "utils.py").write_text("X = 1\n")
    (second / "utils.py").rename(second / "helpers.py")
    assert submission_digest(second) != digest
    assert submission_digest(first / "mha.ipynb") != digest  # one file of it: another submission


def submission(path: Path) -> Submission:
    return Submission("ada", "Ada Lovelace", "12345", path, "canvas", members=(("Ada Lovelace", "12345", "a@x.org"),))


def test_done_only_when_graded_with_both_digests_the_same(tmp_path):
    """Is a student done when graded with both digests as now, and not when either differs, when the kit failed,
    or when there are no results?"""

    def earlier(outcome, digests=("s", "g")):
        provenance = Provenance(*digests, student_record(submission(tmp_path)))
        return read_results(results_json(outcome, "mha", provenance))

    done = earlier(outcome_of(student_report()))
    assert is_done(done, "g", "s")
    assert not is_done(done, "other grading", "s") and not is_done(done, "g", "other submission")
    assert not is_done(None, "g", "s")
    kit_failed = read_results(not_graded_json("no tier works", "mha", Provenance("s", "g", {})))
    assert not is_done(kit_failed, "g", "s")


def test_the_student_record_reads_back(tmp_path):
    """Is the intake's record of a student plain JSON, with their name and email read back from results.json?"""
    record = student_record(submission(tmp_path / "caf\udce9"))
    assert record["path"].endswith("caf\\xe9") and record["members"] == [
        {"name": "Ada Lovelace", "student_id": "12345", "email": "a@x.org"}
    ]
    read = read_results(results_json(outcome_of(student_report()), "mha", Provenance("s", "g", record)))
    assert (read.student.name, read.student.email) == ("Ada Lovelace", "")


def test_a_students_shard_is_their_keys_alone():
    """Is a student's shard one of 1..N, the same in every process and whatever else is in the class (a hash of
    the key: these values are fixed), and are a thousand students spread over the shards about evenly?"""
    assert [shard_of(key, 4) for key in ("ada-101", "ben-102", "cleo-103", "dev-104")] == [2, 3, 3, 2]
    assert shard_of("ada-101", 1) == 1
    counts = [0] * 8
    for number in range(1000):
        counts[shard_of(f"student-{number}", 8) - 1] += 1
    assert min(counts) > 90 and max(counts) < 160, counts  # 125 each on average
