"""The uid tier's sweep of what a student's uid left behind (files in the shared scratch places, System V
objects), and its count of what a uid holds there while it runs."""

import ctypes
import os
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

from autograder.public import trees
from autograder.sandbox.host import uids

STUDENT, OTHER = 64998, 64997  # from the kit's block, never handed out while this test runs (no lock taken)

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="giving files to another uid needs root"),
    # the tests share these two uids' processes, files and System V objects: one process runs them, one by one
    pytest.mark.xdist_group("sandbox/host/test_uids"),
]


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


def as_uid(uid: int, work) -> int:
    """Fork a child that runs work() as uid (its group the same number), then waits to be killed; its pid."""
    ready_read, ready_write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            # none of the test process's files: pytest's capture keeps a deleted file open, which the uid would then
            # hold too (under pytest-xdist, a worker's is the size of its captured output so far)
            os.closerange(3, ready_write)
            os.closerange(ready_write + 1, os.sysconf("SC_OPEN_MAX"))
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            work()
        finally:
            os.write(ready_write, b"x")
            signal.pause()
            os._exit(0)
    os.read(ready_read, 1)
    os.close(ready_read)
    os.close(ready_write)
    return pid


def end(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)


def make_ipc_objects() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    assert libc.shmget(0, ctypes.c_size_t(4096), 0o1000 | 0o600) >= 0  # IPC_PRIVATE, IPC_CREAT
    assert libc.semget(0, 1, 0o1000 | 0o600) >= 0
    assert libc.msgget(0, 0o1000 | 0o600) >= 0


def test_the_sweep_removes_the_uids_system_v_objects_and_no_others():
    """Are the segment, semaphore set and message queue a uid made removed, and another uid's kept?"""
    children = [as_uid(uid, make_ipc_objects) for uid in (STUDENT, OTHER)]
    try:
        assert sorted(kind for kind, _ in uids.ipc_of(STUDENT)) == ["msg", "sem", "shm"]
        uids.remove_ipc_of(STUDENT)
        assert uids.ipc_of(STUDENT) == [] and len(uids.ipc_of(OTHER)) == 3
    finally:
        for child in children:
            end(child)
        uids.remove_ipc_of(STUDENT)
        uids.remove_ipc_of(OTHER)
    assert uids.ipc_of(OTHER) == []


def test_the_sweep_removes_them_as_a_containers_root_too():
    """Root without CAP_SYS_ADMIN (a container's: Docker's, a Kubernetes pod's, Gradescope's) may not remove another
    uid's System V objects: are the student's removed all the same, and another uid's kept?"""
    children = [as_uid(uid, make_ipc_objects) for uid in (STUDENT, OTHER)]
    try:
        sweep = f"from autograder.sandbox.host import uids; uids.remove_ipc_of({STUDENT})"
        done = subprocess.run(
            ["setpriv", "--bounding-set=-sys_admin", "--inh-caps=-sys_admin", "--", sys.executable, "-c", sweep],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
        assert uids.ipc_of(STUDENT) == [] and len(uids.ipc_of(OTHER)) == 3
    finally:
        for child in children:
            end(child)
        uids.remove_ipc_of(STUDENT)
        uids.remove_ipc_of(OTHER)


def test_usage_counts_a_uids_files_in_the_places_and_those_it_deleted_but_holds():
    """Are its file (1 MiB), its folder's file (2 MiB) and a deleted file it keeps open (3 MiB) counted, another uid's not?"""
    MiB = 1024**2
    place = Path(tempfile.mkdtemp(prefix="kit-usage-"))  # where the uid can reach (pytest's folders are root's)
    os.chmod(place, 0o755)
    (place / "shared").mkdir(parents=True)
    os.chmod(place / "shared", 0o1777)
    for path, size, owner in (
        (place / "shared" / "mine", MiB, STUDENT),
        (place / "folder" / "inside", 2 * MiB, STUDENT),
        (place / "shared" / "theirs", 4 * MiB, OTHER),
    ):
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(b"\1" * size)
        os.chown(path, owner, owner)
    os.chown(place / "folder", STUDENT, STUDENT)

    def hold_a_deleted_file():
        fd = os.open(place / "shared" / "held", os.O_RDWR | os.O_CREAT, 0o600)
        os.unlink(place / "shared" / "held")
        os.write(fd, b"\1" * 3 * MiB)

    child = as_uid(STUDENT, hold_a_deleted_file)
    try:
        counted = uids.usage_of(STUDENT, 1 << 40, places=(str(place),))
        stopped = uids.usage_of(STUDENT, MiB // 2, places=(str(place),))
    finally:
        end(child)
        trees.remove_tree(place)
    # Each file's blocks, at least a page per entry (disk.cost): the file system adds at most a few pages.
    assert 6 * MiB <= counted <= 6 * MiB + 16 * 4096
    assert MiB // 2 <= stopped < 3 * MiB  # it stops at the first file past its budget: the 1 or 2 MiB one


def test_two_graders_never_share_student_uids():
    """Do two graders on one host hold disjoint blocks of uids?"""
    first, second = uids.UidPool(), uids.UidPool()
    try:
        assert first.uids and second.uids and not set(first.uids) & set(second.uids)
    finally:
        first.close()
        second.close()


def test_a_pool_hands_its_uids_out_in_turn():
    """Does a pool of two hand out its uids in turn, from the kit's block, and start over?"""
    pool = uids.UidPool(size=2)
    try:
        first, second = pool.uids
        assert [pool.next() for _ in range(5)] == [first, second, first, second, first]
        assert uids.BASE <= first < second < uids.BASE + uids.SPAN
    finally:
        pool.close()


def test_every_process_of_a_uid_is_found_and_killed():
    """Are a uid's processes (and no other's) found, and all killed by kill_all?"""
    children = [as_uid(STUDENT, lambda: None) for _ in range(2)]
    other = as_uid(OTHER, lambda: None)
    reapers = [threading.Thread(target=os.waitpid, args=(child, 0)) for child in children]  # as the zygote reaps
    for reaper in reapers:
        reaper.start()
    try:
        assert sorted(uids.processes_of(STUDENT)) == sorted(children)
        uids.kill_all(STUDENT)
        assert uids.processes_of(STUDENT) == [] and uids.processes_of(OTHER) == [other]
    finally:
        end(other)
        for child in children:
            try:
                os.kill(child, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for reaper in reapers:
            reaper.join()


def test_only_folders_the_uid_could_write_are_searched(tmp_path):
    """Is a uid's file found in a world-writable folder and in its group's, but not below a folder it cannot write
    (where it cannot have made anything: a file given to it there is not its doing)?"""
    place = tmp_path / "tmp"
    for name, mode, group in (("open", 0o1777, 0), ("group", 0o770, STUDENT), ("closed", 0o755, 0)):
        (place / name).mkdir(parents=True)
        os.chown(place / name, 0, group)
        os.chmod(place / name, mode)
        (place / name / "file").write_text("x")
        os.chown(place / name / "file", STUDENT, STUDENT)
    found = sorted(os.path.relpath(path, place) for path, _ in uids.owned_entries(STUDENT, places=(str(place),)))
    assert found == ["group/file", "open/file"]
