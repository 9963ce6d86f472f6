"""Gradescope's Export Submissions: one submission per submitter or group, named from a metadata file read safely."""

from __future__ import annotations

import pytest

from autograder.deliver.intake import IntakeError, gradescope, read_intake
from autograder.deliver.intake.reader import Reader

from .exports import BILLION_LAUGHS, NOTEBOOK, assert_safe_keys, build, by_key, skipped_why, why

GRADESCOPE_META = """\
---
submission_100001:
  :submitters:
  - :name: Jane Doe
    :sid: '111'
    :email: jane@example.edu
  :created_at: 2024-02-01 10:00:00.000000000 Z
  :score: !ruby/object:BigDecimal 18:0.1e2
  :status: processed
  :history:
  - :submitters: []
    :created_at: 2024-01-31 09:00:00.000000000 Z
    :score: 0.0
    :id: 100000
submission_100002:
  :submitters:
  - :name: Alice Sun
    :sid: '222'
    :email: alice@example.edu
  - :name: Bob Li
    :sid: '333'
    :email: bob@example.edu
  :created_at: 2024-02-01 11:30:00.000000000 Z
  :score: 0.0
  :status: processed
  :history: []
"""


@pytest.mark.parametrize("as_zip", [False, True], ids=["folder", "zip"])
def test_gradescope_reads_the_metadata_groups_and_history(tmp_path, as_zip):
    """Are names, ids, emails and times read from the metadata, a group kept as one, history listed as earlier?"""
    files = {
        "assignment_42_export/submission_metadata.yml": GRADESCOPE_META.encode(),
        "assignment_42_export/submission_100001/mha.ipynb": NOTEBOOK,
        "assignment_42_export/submission_100001/utils.py": b"",
        "assignment_42_export/submission_100000/mha.ipynb": b"{}",
        "assignment_42_export/submission_100002/mha.ipynb": NOTEBOOK,
        "assignment_42_export/submission_100003/mha.ipynb": NOTEBOOK,
    }
    intake = read_intake(build(tmp_path, files, as_zip=as_zip), tmp_path / "scratch")
    assert intake.source == "gradescope"
    subs = by_key(intake)
    assert set(subs) == {"Jane_Doe-111", "Alice_Sun_Bob_Li-222", "submission_100003"}
    jane = subs["Jane_Doe-111"]
    assert (jane.name, jane.email, jane.submitted_at) == ("Jane Doe", "jane@example.edu", "2024-02-01T10:00:00+00:00")
    assert jane.path.name == "submission_100001" and [p.name for p in jane.earlier] == ["submission_100000"]
    group = subs["Alice_Sun_Bob_Li-222"]
    assert [member[0] for member in group.members] == ["Alice Sun", "Bob Li"] and group.name == "Alice Sun, Bob Li"
    assert all(member[1] for member in group.members)  # each member keeps their own id
    assert "metadata" in why(intake, "submission_metadata.yml")
    assert_safe_keys(intake)


def test_gradescope_unreadable_metadata_falls_back_to_folder_names(tmp_path):
    """Is metadata that does not parse skipped with the reason, each submission then named by its folder?"""
    files = {"submission_metadata.yml": b"submission_1: [unclosed", "submission_1/mha.ipynb": NOTEBOOK}
    intake = read_intake(build(tmp_path, files, as_zip=False), tmp_path / "scratch")
    assert [s.key for s in intake.submissions] == ["submission_1"]
    assert "unreadable" in why(intake, "submission_metadata.yml")


def test_gradescope_metadata_with_aliases_or_too_big_is_refused_by_name(tmp_path, monkeypatch):
    """Is a "billion laughs" metadata file (or a huge one) refused, naming the file, before it is expanded?"""
    files = {"submission_metadata.yml": BILLION_LAUGHS.encode(), "submission_1/mha.ipynb": NOTEBOOK}
    with pytest.raises(IntakeError, match=r"^submission_metadata\.yml uses a YAML alias \(\*a, line 2\)"):
        read_intake(build(tmp_path, files, as_zip=False), tmp_path / "scratch")
    monkeypatch.setattr(gradescope, "MAX_METADATA_BYTES", 100)
    files = {"submission_metadata.yml": GRADESCOPE_META.encode(), "submission_1/mha.ipynb": NOTEBOOK}
    with pytest.raises(
        IntakeError, match=r"^submission_metadata\.yml is 587 bytes, more than the 100 bytes Gradescope writes"
    ):
        read_intake(build(tmp_path, files, as_zip=True, name="big"), tmp_path / "scratch")


def test_gradescope_metadata_reads_rubys_tags_and_symbols_as_plain_values(tmp_path):
    """Are Ruby's tags (a BigDecimal score) read as plain values, and the fields found under their ':symbol' keys?"""
    path = tmp_path / gradescope.METADATA
    path.write_text(GRADESCOPE_META)
    loaded = gradescope.load_metadata(path, "label")
    jane = loaded["submission_100001"]
    assert jane[":score"] == "18:0.1e2"
    assert gradescope._field(jane, "status") == "processed" and gradescope._field({"status": "x"}, "status") == "x"
    assert gradescope._field(["not", "a", "record"], "status") is None


def test_gradescope_history_names_the_submission_that_replaced_it():
    """Does each id in a submission's :history map that older folder to the active one, skipping entries without an id?"""
    metadata = {
        "submission_3": {":history": [{":id": 1}, {":id": 2}, {":created_at": "no id"}, "not a record"]},
        "submission_4": {":history": None},
        "submission_5": "not a record",
    }
    assert gradescope._replaced(metadata) == {"submission_1": "submission_3", "submission_2": "submission_3"}


def test_gradescope_submitters_keep_what_is_there():
    """Are submitters read as (name, sid, email), a missing field as '', and anything not a list of records left out?"""
    record = {":submitters": [{":name": "Jane Doe", ":sid": 111}, "not a submitter", {":email": "bob@example.edu"}]}
    assert gradescope._submitters(record) == [("Jane Doe", "111", ""), ("", "", "bob@example.edu")]
    assert gradescope._submitters({":submitters": "Jane"}) == [] and gradescope._submitters(None) == []


def gradescope_drafts(tmp_path, metadata: str, folders: list[str]):
    root = tmp_path / "export"
    root.mkdir()
    (root / gradescope.METADATA).write_text(metadata)
    for folder in folders:
        (root / folder).mkdir()
        (root / folder / "mha.ipynb").write_bytes(NOTEBOOK)
    (root / "README.txt").write_text("exported")
    skipped: list[tuple[str, str]] = []
    return gradescope.read(Reader(root, tmp_path / "scratch", (".ipynb",), skipped), root), skipped


def test_gradescope_two_active_submissions_of_one_student_grade_the_latest(tmp_path):
    """Two folders of one student that no history links: is the later one graded and the other listed as earlier?"""
    metadata = (
        "submission_7:\n  :submitters: [{':name': Jane Doe, ':sid': '111'}]\n  :created_at: 2024-02-02 10:00:00 Z\n"
        "submission_8:\n  :submitters: [{':name': Jane Doe, ':sid': '111'}]\n  :created_at: 2024-02-01 10:00:00 Z\n"
    )
    drafts, skipped = gradescope_drafts(tmp_path, metadata, ["submission_7", "submission_8", "submission_9"])
    found = {d.origin: d for d in drafts}
    assert set(found) == {"submission_7", "submission_9"}
    jane = found["submission_7"]
    assert (jane.name, jane.student_id, jane.submitted_at) == ("Jane Doe", "111", "2024-02-02T10:00:00+00:00")
    assert [p.name for p in jane.earlier] == ["submission_8"]
    assert (found["submission_9"].name, found["submission_9"].student_id) == ("submission_9", "")  # not in the metadata
    assert skipped_why(skipped, "README.txt") == "not a submission folder of the Gradescope export"


def test_gradescope_metadata_that_is_no_mapping_names_no_one(tmp_path):
    """Is metadata that parses to something other than a mapping read as naming no one, the folders still graded?"""
    drafts, skipped = gradescope_drafts(tmp_path, "- just\n- a list\n", ["submission_1"])
    assert [(d.name, d.folder.name) for d in drafts] == [("submission_1", "submission_1")]
    assert "read for the names" in skipped_why(skipped, gradescope.METADATA)


def test_gradescope_late_where_the_metadata_says_and_every_submission_recorded(tmp_path):
    """Is :late: read where it is a yes or no (else unknown), and every submission of a student recorded: the active
    one graded, another exported one and one in the history only listed, each with its id, time and flag? (The
    export in sjinang/temp0 has :created_at: and :history: entries with :id:, one newer than its active
    submission, and no :late:.)"""
    metadata = (
        "submission_7:\n  :submitters: [{':name': Jane Doe, ':sid': '111'}]\n  :created_at: 2024-02-02 10:00:00 Z\n"
        "  :late: true\n  :history:\n  - {':id': 5, ':created_at': 2024-02-03 08:00:00 Z, ':late': true}\n"
        "submission_8:\n  :submitters: [{':name': Jane Doe, ':sid': '111'}]\n  :created_at: 2024-02-01 10:00:00 Z\n"
        "  :late: false\n"
        "submission_9:\n  :submitters: [{':name': Bob Li, ':sid': '222'}]\n  :created_at: 2024-02-01 11:00:00 Z\n"
        "  :late: 'maybe'\n"
    )
    drafts, _ = gradescope_drafts(tmp_path, metadata, ["submission_7", "submission_8", "submission_9"])
    found = {d.origin: d for d in drafts}
    jane, bob = found["submission_7"], found["submission_9"]
    assert (jane.late, bob.late) == (True, None)
    assert [(u.entry, u.taken, u.upload_id, u.late, u.submitted_at) for u in jane.uploads] == [
        ("submission_7/", True, "7", True, "2024-02-02T10:00:00+00:00"),
        ("submission_8/", False, "8", False, "2024-02-01T10:00:00+00:00"),
        ("submission_5 (in the metadata's history; its files are not exported)", False, "5", True, "2024-02-03T08:00:00+00:00"),
    ]  # fmt: skip
