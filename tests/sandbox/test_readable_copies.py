"""Does doctor find the copies of the solutions that other users (a student's uid) could read?"""

import os
import tempfile
from pathlib import Path

import pytest

from autograder import KIT_ROOT, doctor
from autograder.public import trees

REFERENCE = KIT_ROOT / "solutions" / "mha" / "reference.py"


@pytest.fixture
def open_folder():
    """A folder every user can reach (pytest's own are private to root)."""
    folder = Path(tempfile.mkdtemp(prefix="kit-copies-"))
    os.chmod(folder, 0o755)
    yield folder
    trees.remove_tree(folder)


def test_doctor_names_a_world_readable_checkout_and_the_fix(open_folder):
    """A kit checkout readable by all, a stray copy in a private folder, an edited copy: is only the first named?"""
    tmp_path = open_folder
    checkout = tmp_path / "old-kit"
    (checkout / "solutions" / "mha").mkdir(parents=True)
    (checkout / "solutions" / "mha" / "reference.py").write_bytes(REFERENCE.read_bytes())
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    (private / "reference.py").write_bytes(REFERENCE.read_bytes())
    os.chmod(private, 0o700)
    edited = tmp_path / "mha.py"
    edited.write_bytes(REFERENCE.read_bytes().replace(b"def tokenize", b"def tokenise"))
    for path in (checkout, checkout / "solutions", checkout / "solutions" / "mha"):
        os.chmod(path, 0o755)
    found, complete = doctor.readable_copies([tmp_path])
    assert complete and found == [(checkout / "solutions" / "mha" / "reference.py", checkout)]


def test_doctor_skips_the_kit_it_runs_from(open_folder, monkeypatch):
    """Of two readable checkouts, is only the other one named (the kit's own is not a copy)?"""
    for name in ("kit", "other"):
        (open_folder / name / "solutions" / "mha").mkdir(parents=True, mode=0o755)
        (open_folder / name / "solutions" / "mha" / "reference.py").write_bytes(REFERENCE.read_bytes())
    monkeypatch.setattr(doctor, "KIT_ROOT", open_folder / "kit")
    found, _ = doctor.readable_copies([open_folder])
    assert [target for _, target in found] == [open_folder / "other"]


def test_doctor_stops_at_its_time_limit(tmp_path):
    """With no time left, does the search stop and say it did not search everything?"""
    (tmp_path / "a").mkdir()
    assert doctor.readable_copies([tmp_path], seconds=-1) == ([], False)
