"""What a student's files hold: blocks, at least a page each, never following a link, stopping at the budget."""

import os

from autograder.public import trees
from autograder.sandbox.host import disk

MiB = 1024**2


def test_an_empty_entry_costs_a_page_and_a_file_its_blocks(tmp_path):
    """Does an empty file cost one page (inodes are not free), and a written one at least its bytes?"""
    (tmp_path / "empty").touch()
    (tmp_path / "full").write_bytes(b"\1" * MiB)
    assert disk.cost(os.lstat(tmp_path / "empty")) == disk.PAGE
    assert MiB <= disk.cost(os.lstat(tmp_path / "full")) <= MiB + 4 * disk.PAGE  # the file system's own blocks


def test_a_tree_is_counted_whole_without_following_links(tmp_path):
    """Are a folder's files and subfolders counted, and a link to a large file counted as the link alone?"""
    (tmp_path / "big").write_bytes(b"\1" * (4 * MiB))
    tree = tmp_path / "tree"
    (tree / "inner").mkdir(parents=True)
    (tree / "inner" / "data").write_bytes(b"\1" * MiB)
    (tree / "link").symlink_to(tmp_path / "big")
    held = disk.held_under(tree, 1 << 40)
    assert MiB + 3 * disk.PAGE <= held < 2 * MiB  # the data, the two folders and the link, not the 4 MiB
    assert disk.held_under(tmp_path / "missing", 1 << 40) == 0


def test_counting_stops_once_past_the_budget(tmp_path):
    """With a budget far below what a tree holds, does the count stop just past it (not walk the rest)?"""
    for i in range(200):
        (tmp_path / f"f{i}").touch()
    assert disk.held_under(tmp_path, 1 << 40) == 201 * disk.PAGE
    assert disk.held_under(tmp_path, 10 * disk.PAGE) == 10 * disk.PAGE


def test_a_folder_too_deep_to_name_counts_as_the_whole_budget(tmp_path):
    """Does a chain of folders whose path is longer than the system allows (hiding what lies below it) count as
    the whole budget?"""
    name = "d" * 250
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(20):  # 20 x 251 characters: past PATH_MAX (4096)
            os.mkdir(name, dir_fd=fd)
            inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
    finally:
        os.close(fd)
    try:
        assert disk.held_under(tmp_path, 10 * MiB) == 10 * MiB
    finally:
        trees.remove_tree(tmp_path / name)
