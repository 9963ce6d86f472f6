"""Does one list of what decides a grade drive all three digests, and leave out only feedback?"""

from autograder import KIT_ROOT, assignments
from autograder.config import GradingConfig
from autograder.deliver.grade_all.regrade import grading_digest
from autograder.grade import reference
from autograder.grade.deciding import NOTES_FILE, deciding_files, kit_digest


def digests(assignment) -> tuple[str, str, str]:
    return kit_digest(assignment), grading_digest(assignment, GradingConfig()), reference.cache_path(assignment).name


def test_the_list_holds_the_kit_parts_that_decide_points_and_the_whole_folder(copy_of_mha):
    """Are the sandbox, scoring, the options and every file of the assignment's folder (but its notes) on the list?"""
    (copy_of_mha.folder / NOTES_FILE).write_text('"abc" = "a note"\n')
    files = deciding_files(copy_of_mha)
    kit = {p.relative_to(KIT_ROOT).as_posix() for p in files if p.is_relative_to(KIT_ROOT)}
    assert {"autograder/grade/engine.py", "autograder/sandbox/host/session.py", "autograder/public/compare.py"} <= kit
    assert {"autograder/results/scoring.py", "autograder/config.py"} <= kit
    own = {p.relative_to(copy_of_mha.folder).as_posix() for p in files if p.is_relative_to(copy_of_mha.folder)}
    assert {"reference.py", "points.toml", "probes.py", "visible.py", "mistakes.py"} <= own
    assert NOTES_FILE not in own


def test_a_change_to_any_deciding_file_changes_every_digest(copy_of_mha):
    """Do the kit digest, the regrade digest and the reference cache all move when the reference or points change?"""
    before = digests(copy_of_mha)
    path = copy_of_mha.folder / "points.toml"
    path.write_text(path.read_text() + "\n# changed\n")
    after_points = digests(copy_of_mha)
    assert all(b != a for b, a in zip(before, after_points))
    path = copy_of_mha.folder / "reference.py"
    path.write_text(path.read_text() + "\n# changed\n")
    assert all(b != a for b, a in zip(after_points, digests(copy_of_mha)))


def test_notes_change_no_digest(copy_of_mha):
    """Does writing a cluster note (feedback only) leave every digest as it was, so nothing is regraded or refused?"""
    before = digests(copy_of_mha)
    (copy_of_mha.folder / NOTES_FILE).write_text('"abc" = "a note"\n')
    assert digests(copy_of_mha) == before


def test_the_digests_do_not_depend_on_where_the_folder_lies(copy_of_mha):
    """Is a copy of the assignment's folder elsewhere hashed like the course's own (only contents and names count)?"""
    assert kit_digest(copy_of_mha) == kit_digest(assignments.get("mha"))


def test_the_store_follows_an_edit_that_keeps_the_files_size_and_time(copy_of_mha):
    """The store's name is kept between calls while no deciding file is written: is an edit of the same size, its
    modification time set back (a copy that keeps times, an editor's undo), still a new store?"""
    import os

    before = reference.cache_path(copy_of_mha)
    path = copy_of_mha.folder / "reference.py"
    text, info = path.read_text(), path.stat()
    edited = text.replace("import", "IMPORT", 1)
    assert len(edited) == len(text) and edited != text
    path.write_text(edited)
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert path.stat().st_size == info.st_size and path.stat().st_mtime_ns == info.st_mtime_ns
    assert reference.cache_path(copy_of_mha) != before
    path.write_text(text)
    assert reference.cache_path(copy_of_mha) == before


def test_one_grading_names_its_store_once_and_an_edit_counts_from_the_next(copy_of_mha, monkeypatch):
    """Within one grading, is the store named without listing the deciding files again, and does an edit made
    meanwhile name a new store once that grading is over?"""
    path = copy_of_mha.folder / "reference.py"
    before = reference.cache_path(copy_of_mha)
    listed = []
    monkeypatch.setattr(reference, "deciding_files", lambda a: listed.append(a) or deciding_files(a))
    with reference.one_grading(copy_of_mha):
        path.write_text(path.read_text() + "\n# edited during a grading\n")
        with reference.one_grading(copy_of_mha):  # the host check inside a grading: the same store
            assert reference.cache_path(copy_of_mha) == before
        assert reference.cache_path(copy_of_mha) == before
    assert len(listed) == 1  # once, on entry
    assert reference.cache_path(copy_of_mha) != before
