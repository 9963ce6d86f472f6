"""A clone's last commit read from .git as git writes it, without running git: loose or packed, through deltas, by
branch or detached; and nothing (no time, no error) where .git holds a link or is not as git writes it."""

from __future__ import annotations

import os
import shutil
import subprocess
import zlib
from pathlib import Path

import pytest

from autograder.deliver.intake import commits

from .exports import NOTEBOOK, git_repository

WHEN = "2024-01-31T12:00:00+01:00"


def git(folder: Path, *args: str) -> str:
    """git's answer, run here to build and check repositories (the intake never runs it)."""
    done = subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True)
    return done.stdout.decode().strip()


@pytest.fixture
def repository(tmp_path) -> tuple[Path, str]:
    """A repository of one commit (its objects loose), and that commit's id."""
    folder = tmp_path / "mha-octocat"
    return folder, git_repository(folder, {"mha.ipynb": NOTEBOOK}, WHEN)


def test_a_loose_commit(repository):
    """Is HEAD's commit, loose in objects/, read with the committer's time and zone?"""
    folder, commit = repository
    assert commits.last_commit(folder) == (commit, WHEN)


def test_a_fresh_clone_packs_everything(repository, tmp_path):
    """Is the commit found in a fresh clone, where it is in a pack and its branch a loose ref?"""
    folder, commit = repository
    subprocess.run(["git", "clone", "-q", "--no-local", str(folder), str(tmp_path / "clone")], check=True)
    assert not list((tmp_path / "clone/.git/objects").glob("??/*"))  # nothing loose: all in the pack
    assert commits.last_commit(tmp_path / "clone") == (commit, WHEN)


def test_packed_refs_and_a_detached_head(repository):
    """Is the branch found in packed-refs once its loose ref is gone, and a detached HEAD read as the commit it names?"""
    folder, commit = repository
    git(folder, "pack-refs", "--all")
    assert not (folder / ".git/refs/heads/main").exists() and commits.last_commit(folder) == (commit, WHEN)
    git(folder, "checkout", "-q", "--detach")
    assert (folder / ".git/HEAD").read_text().strip() == commit and commits.last_commit(folder) == (commit, WHEN)


@pytest.mark.parametrize("offsets", [True, False], ids=["ofs-delta", "ref-delta"])
def test_commits_stored_as_deltas(tmp_path, offsets):
    """Commits git stored as deltas (against an offset in the pack, or another object's id): is each read exactly as
    git reads it? (git's Documentation/gitformat-pack.txt: OBJ_OFS_DELTA, OBJ_REF_DELTA, the delta's copy and
    insert instructions.)"""
    folder = tmp_path / "repo"
    git_repository(folder, {"f": b"0"}, WHEN)
    message = "lorem ipsum dolor sit amet " * 80  # long and alike: git stores these commits as deltas
    for n in range(1, 12):
        (folder / "f").write_text(str(n))
        git(folder, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qam", f"{n} {message}")
    git(folder, "-c", f"repack.useDeltaBaseOffset={str(offsets).lower()}", "repack", "-adfq", "--window=50")
    listing = git(folder, "verify-pack", "-v", *map(str, (folder / ".git/objects/pack").glob("*.idx")))
    deltas = [line.split()[0] for line in listing.splitlines() if " commit " in line and len(line.split()) >= 7]
    assert len(deltas) > 5
    for commit in deltas:
        assert commits.read_commit(folder / ".git", commit).decode() == git(folder, "cat-file", "commit", commit) + "\n"
    assert commits.last_commit(folder)[0] == git(folder, "rev-parse", "HEAD")


def test_a_link_anywhere_in_git_gives_nothing(repository, tmp_path):
    """Is a HEAD, a ref or an objects folder that is a link never followed (no time given)?"""
    folder, commit = repository
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(folder / ".git", elsewhere)
    (folder / ".git/HEAD").unlink()
    os.symlink(elsewhere / "HEAD", folder / ".git/HEAD")
    assert commits.last_commit(folder) == ("", "")
    (folder / ".git/HEAD").unlink()
    (folder / ".git/HEAD").write_text("ref: refs/heads/main\n")
    shutil.rmtree(folder / ".git/objects")
    os.symlink(elsewhere / "objects", folder / ".git/objects")
    assert commits.last_commit(folder) == ("", "")
    shutil.rmtree(folder / ".git")
    os.symlink(elsewhere, folder / ".git")
    assert commits.last_commit(folder) == ("", "")


@pytest.mark.parametrize(
    "head",
    [
        b"ref: refs/heads/absent\n",  # a branch with no commit
        b"not a ref\n",
        b"0123456789abcdef0123456789abcdef01234567\n",  # a commit that is not there
        b"x" * 100_000,  # larger than git writes a HEAD
    ],
)
def test_a_head_not_as_git_writes_it_gives_nothing(repository, head):
    """Is a HEAD that names nothing readable answered with no time, never an error?"""
    folder, _ = repository
    (folder / ".git/HEAD").write_bytes(head)
    assert commits.last_commit(folder) == ("", "")


def test_a_ref_outside_git_is_never_read(repository):
    """Is a HEAD whose ref climbs out of .git (to a file that names the commit) answered with no time?"""
    folder, commit = repository
    (folder / "outside").write_text(commit + "\n")
    (folder / ".git/HEAD").write_text("ref: refs/../../outside\n")
    assert commits.last_commit(folder) == ("", "")


def test_an_object_not_as_git_writes_it_gives_nothing(repository):
    """Is a corrupt loose object, or one that is no commit, answered with no time?"""
    folder, commit = repository
    loose = folder / ".git/objects" / commit[:2] / commit[2:]
    loose.chmod(0o644)
    loose.write_bytes(b"not zlib")
    assert commits.last_commit(folder) == ("", "")
    loose.write_bytes(zlib.compress(b"blob 4\0abcd"))
    assert commits.last_commit(folder) == ("", "")
    assert commits.last_commit(folder.parent) == ("", "")  # no .git at all


def test_committed_at_reads_the_committer_not_the_author():
    """Is the time the committer line's, in its own zone, whatever the author line says?"""
    text = (
        b"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"
        b"author A <a@b> 1000000000 +0000\ncommitter C <c@d> 1706698800 -0530\n\nmessage\ncommitter X <x> 1 +0000\n"
    )
    assert commits.committed_at(text) == "2024-01-31T05:30:00-05:30"
    with pytest.raises(commits.Unreadable):
        commits.committed_at(b"tree x\n\ncommitter C <c@d> 1706698800 +0000\n")  # only in the message


def test_apply_delta_copies_and_inserts():
    """Does a delta (base size, result size, a copy from the base, an insert) give the result it describes, and is one
    for another base, or copying past its base, refused?"""
    base = b"hello, world"
    delta = bytes([len(base), 10, 0x90 | 0x01, 7, 5, 5]) + b"!!!!!"  # copy base[7:12], insert five "!"
    assert commits.apply_delta(base, delta) == b"world!!!!!"
    with pytest.raises(commits.Unreadable):
        commits.apply_delta(b"other", delta)
    with pytest.raises(commits.Unreadable):
        commits.apply_delta(base, bytes([len(base), 20, 0x90 | 0x01, 10, 20]))
