"""The uid tier's sweep of what a student's uid left in the shared scratch places."""

import os
import sys

import pytest

from autograder.public import trees
from autograder.sandbox.host import uids

STUDENT, OTHER = 64998, 64997  # from the kit's block, never handed out while this test runs (no lock taken)

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="giving files to another uid needs root")


def chain(root, depth: int, uid: int) -> None:
    """depth nested folders under root owned by uid, made relative to open folders."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=fd)
        os.chown("d", uid, uid, dir_fd=fd)
        inner = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.close(fd)


def test_the_sweep_removes_a_uids_tree_deeper_than_recursion_and_nothing_else(tmp_path):
    """Is a chain 1100 folders deep that the uid made removed, with its files elsewhere, and others' files kept?"""
    place = tmp_path / "tmp"
    (place / "shared").mkdir(parents=True)
    os.chmod(place / "shared", 0o1777)
    (place / "chain").mkdir()
    os.chown(place / "chain", STUDENT, STUDENT)
    chain(place / "chain", sys.getrecursionlimit() + 100, STUDENT)
    (place / "shared" / "dropped").write_text("x")
    os.chown(place / "shared" / "dropped", STUDENT, STUDENT)
    (place / "shared" / "kept").write_text("y")
    os.chown(place / "shared" / "kept", OTHER, OTHER)
    (place / "link").symlink_to(tmp_path)
    os.lchown(place / "link", STUDENT, STUDENT)
    try:
        uids.remove_files_of(STUDENT, places=(str(place),))
    finally:
        trees.remove_tree(place / "chain")  # left by a failing sweep: pytest's clean-up recurses
    assert sorted(p.name for p in place.iterdir()) == ["shared"]
    assert [p.name for p in (place / "shared").iterdir()] == ["kept"]
    assert (tmp_path / "tmp").is_dir()  # the link's target, the test's own folder, is untouched
