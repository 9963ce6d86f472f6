"""What the intake hands grade-all (Submission, Intake) and what its readers build on the way (Draft)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from autograder.deliver.intake.model import Draft, IntakeError, Submission, Upload
from autograder.errors import KitError


def test_an_unreadable_intake_is_the_instructors_error():
    """Is IntakeError a KitError, which the command line prints with status 2 and no traceback, never a student's score?"""
    assert issubclass(IntakeError, KitError)


def test_a_submission_cannot_change_once_made():
    """Is a Submission frozen (its key names a results folder), and by default readable, whose it is decided, and
    its lateness unknown (None: never taken for "on time" where the export does not say)?"""
    submission = Submission(key="ann", name="Ann", student_id="", path=Path("ann"), source="folders")
    with pytest.raises(dataclasses.FrozenInstanceError):
        submission.key = "bob"
    assert (submission.late, submission.refused, submission.members, submission.earlier) == (None, "", (), ())
    assert (submission.uploads, submission.undecided, submission.submitted_at) == ((), "", "")


def test_drafts_do_not_share_their_earlier_submissions():
    """Does each Draft get lists of earlier submissions and uploads of its own, so one student's history never lands in
    another's?"""
    first, second = Draft(name="a", student_id="1", origin="a"), Draft(name="b", student_id="2", origin="b")
    first.earlier.append(Path("old"))
    first.uploads.append(Upload("old", False))
    assert second.earlier == [] and (second.files, second.folder, second.file) == (None, None, None)
    assert second.uploads == []
