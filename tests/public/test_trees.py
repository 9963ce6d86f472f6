"""Walking and removing trees a student made: no recursion, no link followed, any depth."""

import os
import sys

import pytest

from autograder.public import trees


def make_chain(root, depth: int, name: str = "d") -> None:
    """A chain of depth nested folders under root, made relative to open folders (no path grows)."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):
            os.mkdir(name, dir_fd=fd)
            inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
        with open(os.open("leaf.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as leaf:
            leaf.write("x")
    finally:
        os.close(fd)


def test_walk_lists_what_os_walk_lists(tmp_path):
    """Does walk give os.walk's folders and files, top-down, leaving links to folders unentered?"""
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "f.py").write_text("")
    (tmp_path / "a" / "g.py").write_text("")
    (tmp_path / "c").mkdir()
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    (outside / "secret.py").write_text("")
    (tmp_path / "c" / "link").symlink_to(outside)

    def normal(walker):
        return sorted((str(folder), sorted(folders), sorted(files)) for folder, folders, files in walker)

    assert normal(trees.walk(tmp_path)) == normal(os.walk(tmp_path))
    assert trees.regular_files(tmp_path) == [tmp_path / "a" / "b" / "f.py", tmp_path / "a" / "g.py"]


def test_walk_can_be_pruned(tmp_path):
    """Does removing a name from the folder names keep the walk out of that folder, as with os.walk?"""
    (tmp_path / "keep").mkdir()
    (tmp_path / "skip" / "inner").mkdir(parents=True)
    seen = []
    for folder, folders, _ in trees.walk(tmp_path):
        seen.append(folder)
        folders[:] = [name for name in folders if name != "skip"]
    assert seen == [tmp_path, tmp_path / "keep"]


def test_a_tree_deeper_than_recursion_allows_is_refused_by_name(tmp_path):
    """Is a tree deeper than Python's recursion limit refused with TreeTooDeep, not a RecursionError?"""
    make_chain(tmp_path, sys.getrecursionlimit() + 100)
    try:
        with pytest.raises(trees.TreeTooDeep, match=f"more than {trees.MAX_DEPTH} levels deep"):
            list(trees.walk(tmp_path))
        with pytest.raises(trees.TreeTooDeep):
            trees.regular_files(tmp_path)
    finally:
        trees.remove_tree(tmp_path)  # pytest's own clean-up of old temporary folders recurses


def test_the_depth_limit_is_exact(tmp_path):
    """Is a tree exactly max_depth folders deep read, and one level more refused?"""
    make_chain(tmp_path, 3)
    assert len(trees.regular_files(tmp_path, max_depth=3)) == 1
    with pytest.raises(trees.TreeTooDeep):
        trees.regular_files(tmp_path, max_depth=2)


def test_remove_tree_removes_any_depth_and_any_path_length(tmp_path):
    """Does remove_tree remove a chain deeper than the recursion limit, whose full path is longer than PATH_MAX?"""
    target = tmp_path / "deep"
    target.mkdir()
    make_chain(target, sys.getrecursionlimit() + 100, name="n" * 200)  # about 220 KB of path
    trees.remove_tree(target)
    assert not target.exists()
    assert list(tmp_path.iterdir()) == []


def test_remove_tree_never_follows_a_link(tmp_path):
    """Are the targets of links inside the tree, and of a link given as the tree, left untouched?"""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("kept")
    target = tmp_path / "tree"
    (target / "a").mkdir(parents=True)
    (target / "a" / "to_folder").symlink_to(outside)
    (target / "to_file").symlink_to(outside / "keep.txt")
    trees.remove_tree(target)
    assert not target.exists()
    assert (outside / "keep.txt").read_text() == "kept"
    link = tmp_path / "link"
    link.symlink_to(outside)
    trees.remove_tree(link)
    assert not os.path.lexists(link)
    assert (outside / "keep.txt").read_text() == "kept"


def test_remove_tree_removes_folders_their_owner_shut(tmp_path):
    """Are folders made unreadable (mode 000) or read-only by their owner removed too?"""
    target = tmp_path / "tree"
    (target / "shut" / "inner").mkdir(parents=True)
    (target / "shut" / "inner" / "f").write_text("x")
    (target / "readonly").mkdir()
    (target / "readonly" / "g").write_text("y")
    os.chmod(target / "readonly", 0o500)
    os.chmod(target / "shut" / "inner", 0o000)
    os.chmod(target / "shut", 0o000)
    trees.remove_tree(target)
    assert not target.exists()


def test_remove_tree_of_a_file_or_nothing(tmp_path):
    """Does remove_tree remove a single file, and pass over a path that does not exist?"""
    (tmp_path / "f").write_text("x")
    trees.remove_tree(tmp_path / "f")
    trees.remove_tree(tmp_path / "missing")
    assert list(tmp_path.iterdir()) == []
