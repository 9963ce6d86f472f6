"""Entering a tier: what the student's process is left with, each tier entered in a forked child (tests/sandbox/forked.py)."""

import os
import resource
import tempfile
from pathlib import Path

import pytest

from autograder import KIT_ROOT
from autograder.public import trees
from autograder.sandbox.guest import isolation, seccomp

from ..forked import ChildFailed, in_a_child

MiB = 1024**2
STUDENT = 64996  # from the kit's block, never handed out while this test runs (no lock taken)
ROOT = os.geteuid() == 0


def request(tier: str, scratch: Path, device: str = "cpu", cgroup: bool = False) -> dict:
    """A request as the host makes one (sandbox/host/session.py), with the folders its tier needs."""
    for folder in ("root", "submission", "work"):
        (scratch / folder).mkdir(exist_ok=True)
    return {
        "tier": tier,
        "device": device,
        "scratch": str(scratch),
        "work": str(scratch / "work"),
        "uid": STUDENT,
        "limits": {"memory_bytes": 256 * MiB, "processes": 16, "file_bytes": MiB, "scratch_bytes": MiB,
                   "cpu_seconds": 30},
        "rlimit_memory": not cgroup,
        "rlimit_processes": True,
    }  # fmt: skip


def status_field(key: str) -> str:
    with open("/proc/self/status") as status:
        return next(line.split()[1] for line in status if line.startswith(key + ":"))


def test_a_cuda_sandbox_sees_the_gpu_and_keeps_its_environment():
    """With --device cuda, are the driver's device nodes bound and CUDA's variables kept (checked here without a GPU)?"""
    assert isolation._devices("cpu") == [d for d in isolation._devices("cpu") if not d.startswith("/dev/nvidia")]
    assert "/sys" in isolation._system_paths({"device": "cuda"}) and "/sys" not in isolation._system_paths(
        {"device": "cpu"}
    )

    def cleaned() -> dict:
        os.environ["CUDA_VISIBLE_DEVICES"] = "0"
        isolation.clean_environment("cuda")
        return dict(os.environ)

    environment = in_a_child(cleaned)
    assert environment["CUDA_VISIBLE_DEVICES"] == "0" and "HOME" in environment


def test_the_cpu_path_keeps_nothing_of_the_graders_environment():
    """On the CPU path, is the environment exactly the sandbox's own: no CI secret, no CUDA variable?"""

    def cleaned() -> dict:
        os.environ.update(CUDA_VISIBLE_DEVICES="0", CI_JOB_TOKEN="secret", PYTHONPATH=str(KIT_ROOT))
        isolation.clean_environment("cpu")
        return dict(os.environ)

    assert in_a_child(cleaned) == isolation.SANDBOX_ENV


def test_the_filter_refuses_unmapped_memory_only_where_rlimits_bound_memory_on_the_cpu():
    """Are memfd, System V segments and queues refused exactly where no cgroup counts memory on the CPU path,
    and the keyrings and the network in every case?"""
    cpu_rlimits = {"device": "cpu", "rlimit_memory": True}
    assert isolation.refused_calls(cpu_rlimits) == seccomp.KEYRINGS + seccomp.NETWORK + seccomp.UNMAPPED_MEMORY
    for bounded in ({"device": "cpu", "rlimit_memory": False}, {"device": "cuda:0", "rlimit_memory": True}):
        assert isolation.refused_calls(bounded) == seccomp.KEYRINGS + seccomp.NETWORK


def entered(request: dict):
    """In the child: enter the tier, then say what the process is left with."""

    def work() -> dict:
        os.environ["CI_JOB_TOKEN"] = "secret"
        isolation.enter(request)
        import ctypes

        dumpable = ctypes.CDLL(None).prctl(3, 0, 0, 0, 0)  # PR_GET_DUMPABLE
        return {
            "no_new_privs": status_field("NoNewPrivs"),
            "seccomp": status_field("Seccomp"),
            "dumpable": dumpable,
            "uid": os.getuid(),
            "cwd": os.getcwd(),
            "environment": dict(os.environ),
            "limits": {
                name: resource.getrlimit(getattr(resource, name))
                for name in ("RLIMIT_NOFILE", "RLIMIT_CORE", "RLIMIT_FSIZE", "RLIMIT_NPROC", "RLIMIT_MSGQUEUE")
            },
            "cpu": resource.getrlimit(resource.RLIMIT_CPU),
            "address_space": resource.getrlimit(resource.RLIMIT_AS)[0],
            "base": isolation.address_space_now(),
        }

    return work


@pytest.mark.skipif(not seccomp.supported(), reason="the filter knows x86_64 and aarch64 only")
def test_the_process_tier_ends_with_limits_a_filter_and_no_way_back(tmp_path):
    """Entering the plain process tier: no_new_privs, a seccomp filter, not dumpable, its rlimits, the work folder
    as home and cwd, no secret in the environment; memory bounded a little above what it already maps?"""
    state = in_a_child(entered(request("process", tmp_path)))
    assert (state["no_new_privs"], state["seccomp"], state["dumpable"]) == ("1", "2", 0)
    assert state["cwd"] == str(tmp_path / "work")
    assert state["environment"]["HOME"] == state["environment"]["TMPDIR"] == str(tmp_path / "work")
    assert "CI_JOB_TOKEN" not in state["environment"]
    assert state["limits"] == {
        "RLIMIT_NOFILE": [256, 256],
        "RLIMIT_CORE": [0, 0],
        "RLIMIT_FSIZE": [MiB, MiB],
        "RLIMIT_NPROC": [16, 16],
        "RLIMIT_MSGQUEUE": [0, 0],
    }
    assert state["cpu"] == [31, 31]  # a backstop a second past the whole budget
    assert 0 < state["address_space"] - state["base"] <= 256 * MiB


@pytest.mark.skipif(not ROOT, reason="the uid tier needs root")
def test_the_uid_tier_runs_as_the_students_uid_in_its_work_folder():
    """Entering the uid tier as root: is the process the student's uid, in its work folder, home there?"""
    scratch = Path(tempfile.mkdtemp(prefix="kit-isolation-"))  # pytest's folders sit below root's private ones
    try:
        uid = request("uid", scratch)
        os.chmod(scratch, 0o711)
        os.chown(scratch / "work", STUDENT, STUDENT)
        state = in_a_child(entered(uid))
    finally:
        trees.remove_tree(scratch)
    assert state["uid"] == STUDENT and state["cwd"] == str(scratch / "work")
    assert state["environment"]["HOME"] == state["environment"]["TMPDIR"] == str(scratch / "work")


def test_an_unknown_tier_is_refused_before_anything_is_entered(tmp_path):
    """Is a tier the module does not know refused by name (and not run as a plain process)?"""
    with pytest.raises(ChildFailed, match="SandboxError: unknown tier 'vm'"):
        in_a_child(entered(request("vm", tmp_path)))


def test_a_limit_never_rises_past_the_hard_limit_it_inherits():
    """Where the host set a lower hard limit, does the sandbox's limit stay at it (raising it would fail)?"""

    def work() -> list:
        resource.setrlimit(resource.RLIMIT_NOFILE, (100, 100))
        isolation._limit(resource.RLIMIT_NOFILE, 256)
        low = resource.getrlimit(resource.RLIMIT_NOFILE)
        isolation._limit(resource.RLIMIT_NOFILE, 50)
        return [low, resource.getrlimit(resource.RLIMIT_NOFILE)]

    assert in_a_child(work) == [[100, 100], [50, 50]]


def test_memory_now_counts_what_the_process_maps():
    """Does data_now grow by an allocation, and is the whole address space at least the private memory?"""
    before = isolation.data_now()
    block = bytearray(64 * MiB)
    grown = isolation.data_now() - before
    assert 64 * MiB <= grown < 64 * MiB + 8 * MiB  # the block, and what the allocator adds around it
    assert isolation.address_space_now() >= isolation.data_now() > 0
    del block


@pytest.mark.skipif(not ROOT, reason="mounting needs root")
def test_locked_mount_flags_are_read_from_the_mount(tmp_path):
    """Are a mount's nodev and noexec (and not nosuid, which it lacks) read as the flags a user namespace must keep?"""

    def work() -> int:
        isolation._call("unshare", isolation.CLONE_NEWNS)  # in the child's own mount namespace: gone with it
        isolation._mount(None, "/", None, isolation.MS_REC | isolation.MS_PRIVATE)
        isolation._mount("tmpfs", str(tmp_path), "tmpfs", isolation.MS_NODEV | isolation.MS_NOEXEC, "size=1m")
        return isolation._locked_flags(str(tmp_path))

    assert in_a_child(work) == isolation.MS_NODEV | isolation.MS_NOEXEC


def test_the_probe_names_what_the_tier_left_readable_and_writable(tmp_path):
    """Does probe_tier answer None where nothing listed is reachable, and name each readable and writable path?"""
    secret = tmp_path / "secret"
    secret.write_text("x")
    missing = tmp_path / "missing"
    (tmp_path / "a").mkdir()
    clean = {**request("process", tmp_path / "a"), "must_not_read": [str(missing)], "must_not_write": [str(missing)]}
    leaky = {**clean, "must_not_read": [str(secret)], "must_not_write": [str(secret)]}
    assert in_a_child(lambda: isolation.probe_tier(clean)) is None
    assert in_a_child(lambda: isolation.probe_tier(leaky)) == f"it could read {secret}; it could write {secret}"
    assert in_a_child(lambda: isolation.probe_tier({**clean, "tier": "vm"})) == "SandboxError: unknown tier 'vm'"


@pytest.mark.skipif(not ROOT, reason="the hardened tier needs root")
def test_the_hardened_root_holds_nothing_of_the_kit():
    """In the hardened tier's new root, are the kit's private folders out of reach and the kit unwritable?"""
    scratch = Path(tempfile.mkdtemp(prefix="kit-isolation-"))
    try:
        hardened = {
            **request("hardened", scratch),
            "must_not_read": [str(KIT_ROOT / "solutions"), str(KIT_ROOT / "tests")],
            "must_not_write": [str(KIT_ROOT), "/usr"],
        }
        assert in_a_child(lambda: isolation.probe_tier(hardened)) is None
    finally:
        trees.remove_tree(scratch)


@pytest.mark.skipif(not ROOT, reason="reading as another uid needs root")
def test_a_folder_one_may_enter_but_not_list_counts_as_readable():
    """As the student's uid: is a folder it may enter (0711) reachable, since every file whose name it guesses is,
    and a closed folder (0700), a closed file and a missing path not?"""
    folder = Path(tempfile.mkdtemp(prefix="kit-isolation-"))  # pytest's folders sit below root's private ones
    os.chmod(folder, 0o711)
    for name, mode in (("enter", 0o711), ("closed", 0o700)):
        (folder / name).mkdir()
        os.chmod(folder / name, mode)
    for name, mode in (("private.txt", 0o600), ("open.txt", 0o644)):
        (folder / name).write_text("x")
        os.chmod(folder / name, mode)

    def as_student() -> dict:
        os.setresuid(STUDENT, STUDENT, STUDENT)
        names = ("enter", "closed", "private.txt", "open.txt", "missing")
        return {name: isolation._reachable(str(folder / name), os.R_OK) for name in names}

    try:
        reachable = in_a_child(as_student)
    finally:
        trees.remove_tree(folder)
    assert reachable == {
        "enter": True,
        "closed": False,
        "private.txt": False,
        "open.txt": True,
        "missing": False,
    }
