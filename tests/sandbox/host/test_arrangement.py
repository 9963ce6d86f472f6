"""Where a grader's job cgroups go: v1 beneath its own, v2 arranged before any child starts (beneath the root, in a
leaf of its own cgroup, beside it, or without controllers, saying what to do), what a killed grader left removed, and
a real job killed and removed where this machine has a hierarchy the grader may use."""

import os
import signal
from pathlib import Path

import pytest

from autograder.sandbox.host import arrangement, cgroups
from autograder.sandbox.host.arrangement import Hierarchy
from autograder.sandbox.host.cgroups import CgroupLimits

from .cgroupfs import CgroupTree

GiB = 1024**3
LIMITS = CgroupLimits(memory_bytes=2 * GiB, processes=32, cpus=0.5)


def test_a_hierarchy_says_what_its_jobs_bound():
    """Does a hierarchy bound memory or processes exactly when its jobs get that controller, and say which?"""
    v1 = Hierarchy(1, {"memory": Path("/m"), "pids": Path("/p"), "cpuacct": Path("/c")})
    assert v1.bounds("memory") and v1.bounds("pids") and v1.describe() == "cgroup v1 (cpuacct, memory, pids)"
    v2 = Hierarchy(2, {"": Path("/x")}, frozenset({"pids", "cpu"}))
    assert not v2.bounds("memory") and v2.bounds("pids") and v2.describe() == "cgroup v2 (cpu, pids)"
    assert Hierarchy(2, {"": Path("/x")}).describe() == "cgroup v2 (no controllers: CPU time and kill only)"


def test_without_a_writable_hierarchy_there_are_no_jobs_and_it_is_said(monkeypatch):
    """With no v1 memory and pids the grader may use and no v2 cgroup of its own: no hierarchy, said so?"""
    monkeypatch.setattr(cgroups, "v1_folders", lambda: {})
    monkeypatch.setattr(arrangement, "v2_place", lambda: None)
    assert arrangement.find_hierarchy() == (None, "no writable cgroup hierarchy here")


def test_v1_with_memory_and_pids_gets_jobs_beneath_the_graders_own(monkeypatch, tmp_path):
    """With writable v1 memory and pids folders: are the jobs put in an 'autograder' folder beneath each, and is
    that folder removed on close once no job is left?"""
    folders = {c: tmp_path / c for c in ("memory", "pids", "cpuacct")}
    for folder in folders.values():
        folder.mkdir()
    monkeypatch.setattr(cgroups, "v1_folders", lambda: folders)
    hierarchy, said = arrangement.find_hierarchy()
    assert hierarchy is not None and hierarchy.version == 1
    assert hierarchy.parents == {c: folder / "autograder" for c, folder in folders.items()}
    assert said == "cgroup v1 (cpuacct, memory, pids)"
    hierarchy.close()
    assert not any((folder / "autograder").exists() for folder in folders.values())


GRADER, AGENT, SHELL = 990001, 990002, 990003  # pids of the simulated hosts (no such process here)


@pytest.fixture
def tree(monkeypatch, tmp_path):
    """A simulated cgroup v2 hierarchy (tests/sandbox/host/cgroupfs.py) that cgroups.py writes to; the grader alive."""
    monkeypatch.setattr(arrangement, "_dead", lambda pid: pid not in {GRADER, AGENT, SHELL})
    return CgroupTree(tmp_path / "cgroup").install(monkeypatch)


def test_the_simulated_tree_refuses_what_the_kernel_refuses(tree):
    """Does the simulated hierarchy keep cgroup v2's rules: no controller enabled for children of a cgroup that holds
    processes (the root excepted), no process moved into a cgroup that delegates, a controller only where offered?"""
    tree.make("", enabled=["memory"])
    busy = tree.make("a", procs=[AGENT])
    with pytest.raises(OSError, match="no internal processes"):
        tree.write(busy / "cgroup.subtree_control", "+memory")
    tree.write(tree.top / "cgroup.procs", str(AGENT))  # the root may hold processes and delegate
    assert tree.procs(busy) == set() and tree.procs(tree.top) == {AGENT}
    tree.write(busy / "cgroup.subtree_control", "+memory")
    with pytest.raises(OSError, match="no internal processes"):
        tree.write(busy / "cgroup.procs", str(AGENT))
    with pytest.raises(OSError, match="no such controller"):
        tree.write(busy / "cgroup.subtree_control", "+rdma")


def test_v2_alone_in_its_cgroup_moves_into_a_leaf_and_delegates(tree):
    """Started alone in a cgroup of its own (a scope, a container's only process): does the grader move into a leaf of
    it, enable memory and pids there, give its jobs both, say so, and on close give the cgroup back as it was?"""
    own = tree.make("system.slice/grading.scope", procs=[GRADER])
    tree.make("system.slice", enabled=["memory", "pids"])
    hierarchy, said = arrangement.arrange_v2(tree.top, own, GRADER)
    assert hierarchy is not None and said == "cgroup v2 (memory, pids)"
    assert tree.where(GRADER) == own / f"autograder-{GRADER}-grader"
    assert hierarchy.parents[""] == own / f"autograder-{GRADER}" and "moved into a leaf" in hierarchy.how
    job = hierarchy.job(f"{GRADER}-0", LIMITS)
    assert (job.folder / "memory.max").read_text() == str(2 * GiB) and (job.folder / "pids.max").read_text() == "32"
    job.remove()
    hierarchy.close()
    assert tree.where(GRADER) == own and tree.words(own, "cgroup.subtree_control") == set()
    assert tree.cgroups() == ["system.slice", "system.slice/grading.scope"]


def test_v2_a_child_started_first_makes_the_grader_share_its_cgroup(tree):
    """Why the kit refused CUDA when root started it alone in a fresh cgroup: its zygote, started before the cgroups
    were arranged, shares the cgroup, which then cannot delegate. Is that cgroup left alone, and the jobs put beside it?"""
    own = tree.make("kit", procs=[GRADER, SHELL])  # SHELL: the zygote, a child of the grader
    tree.make("", enabled=["memory", "pids"])
    hierarchy, said = arrangement.arrange_v2(tree.top, own, GRADER)
    assert hierarchy is not None and hierarchy.parents[""] == tree.top / f"autograder-{GRADER}"
    assert tree.procs(own) == {GRADER, SHELL} and said == "cgroup v2 (cpu, memory, pids)"
    hierarchy.close()


def test_v2_sharing_its_cgroup_the_grader_puts_its_jobs_beside_it(tree):
    """In a cgroup shared with other processes (a VM's agent, a login session): are the jobs put in a cgroup of the
    kit's own beside it, with memory and pids, the others left where they are, and is it removed on close?"""
    own = tree.make("process_api/session", procs=[AGENT, SHELL, GRADER])
    tree.make("", enabled=["memory", "pids", "cpu"])
    tree.make("process_api", enabled=["memory", "pids"])
    hierarchy, said = arrangement.arrange_v2(tree.top, own, GRADER)
    assert hierarchy is not None and hierarchy.parents[""] == tree.top / "process_api" / f"autograder-{GRADER}"
    assert said == "cgroup v2 (cpu, memory, pids)" and hierarchy.how.startswith("job cgroups beside its own cgroup")
    assert tree.procs(own) == {AGENT, SHELL, GRADER}
    hierarchy.close()
    assert tree.cgroups() == ["process_api", "process_api/session"]


def test_v2_enables_the_controllers_where_the_rule_allows_and_climbs_where_it_does_not(tree):
    """Where the parent offers memory and pids but has not enabled them, is it enabled there (it holds no process);
    and where the parent holds processes (it cannot delegate), are the jobs put higher up, at the root?"""
    own = tree.make("user.slice/session-1.scope", procs=[SHELL, GRADER])
    tree.make("", enabled=["memory", "pids"])
    hierarchy, _ = arrangement.arrange_v2(tree.top, own, GRADER)
    assert hierarchy is not None and hierarchy.parents[""].parent == tree.top / "user.slice"
    assert {"memory", "pids"} <= tree.words(tree.top / "user.slice", "cgroup.subtree_control")
    hierarchy.close()
    busy = tree.make("busy", procs=[AGENT])
    own = tree.make("busy/inner", procs=[GRADER, SHELL])
    hierarchy, _ = arrangement.arrange_v2(tree.top, own, GRADER)
    assert hierarchy is not None and hierarchy.parents[""] == tree.top / f"autograder-{GRADER}"
    assert tree.words(busy, "cgroup.subtree_control") == set()
    hierarchy.close()


def test_v2_in_the_root_cgroup_the_jobs_go_beneath_it(tree):
    """Where the grader runs in the hierarchy's root (a VM with no service manager): jobs beneath the root, which may
    hold processes and delegate?"""
    (tree.top / "cgroup.procs").write_text(f"{AGENT}\n{GRADER}\n")
    hierarchy, said = arrangement.arrange_v2(tree.top, tree.top, GRADER)
    assert hierarchy is not None and said == "cgroup v2 (cpu, memory, pids)" and "hierarchy's root" in hierarchy.how
    hierarchy.close()


def test_v2_where_nothing_can_delegate_the_jobs_get_no_controllers_and_it_says_what_to_do(monkeypatch, tmp_path):
    """A container's cgroup namespace (its root is not the real root) shared with the container's init: are the jobs
    for CPU time and kill only, and does the sentence name the processes shared with and the command that helps?"""
    monkeypatch.setattr(arrangement, "_dead", lambda pid: False)
    tree = CgroupTree(tmp_path / "cgroup", real_root=False).install(monkeypatch)
    (tree.top / "cgroup.procs").write_text(f"{AGENT}\n{GRADER}\n")
    hierarchy, said = arrangement.arrange_v2(tree.top, tree.top, GRADER)
    assert hierarchy is not None and not hierarchy.bounds("memory")
    assert f"shares its cgroup {tree.top} with other processes ({AGENT})" in said
    assert "systemd-run" in said and "Delegate=yes" in said
    hierarchy.close()
    (tree.top / "cgroup.controllers").write_text("io\n")
    hierarchy, said = arrangement.arrange_v2(tree.top, tree.top, GRADER)
    assert hierarchy is not None and f"no memory or pids controller is available in {tree.top}" in said
    hierarchy.close()


def test_an_ordinary_user_without_a_delegated_cgroup_is_told_the_command(monkeypatch, tree):
    """As an ordinary user whose cgroup is not its own: no job cgroups, and the sentence gives systemd-run's command?"""
    own = tree.make("user.slice/user-1000.slice/session-2.scope", procs=[SHELL, GRADER])
    monkeypatch.setattr(cgroups, "v1_folders", lambda: {})
    monkeypatch.setattr(arrangement, "v2_place", lambda: (tree.top, own))
    monkeypatch.setattr(arrangement, "_writable", lambda folder: False)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    hierarchy, said = arrangement.find_hierarchy()
    assert hierarchy is None and said.endswith("systemd-run --user --scope -p Delegate=yes python -m autograder ...")


def test_what_a_killed_grader_left_is_removed_at_the_next_start(tree):
    """Does the next grader remove a dead grader's jobs' parent with its jobs (their processes killed), its empty leaf,
    and a dead worker's job in a living grader's parent, and leave a living grader's jobs alone?"""
    dead = 990099
    own = tree.make("scope", procs=[SHELL])
    tree.make("", enabled=["memory", "pids"])
    tree.make(f"autograder-{dead}/{dead}-3", procs=[990100])  # a student process it left
    tree.make(f"scope/autograder-{dead}-grader")
    tree.make(f"autograder-{GRADER}/{GRADER}-1", procs=[990101])
    tree.make(f"autograder-{GRADER}/{dead}-2")
    removed = arrangement.remove_leftovers_v2(tree.top, own)
    assert sorted(str(p.relative_to(tree.top)) for p in removed) == sorted(
        [
            f"autograder-{dead}/{dead}-3",
            f"autograder-{dead}",
            f"scope/autograder-{dead}-grader",
            f"autograder-{GRADER}/{dead}-2",
        ]
    )
    assert tree.cgroups() == [f"autograder-{GRADER}", f"autograder-{GRADER}/{GRADER}-1", "scope"]


def test_graders_of_one_process_share_its_arrangement(monkeypatch):
    """Do a second grader in the same process get the cgroups the first arranged (it started children since), and the
    arrangement end only when the last of them closes?"""
    closed = []
    arranged = Hierarchy(2, {"": Path("/x")}, frozenset({"memory", "pids"}))
    monkeypatch.setattr(arrangement, "_ARRANGED", None)
    monkeypatch.setattr(arrangement, "find_hierarchy", lambda: (arranged, "cgroup v2 (memory, pids)"))
    monkeypatch.setattr(cgroups, "remove_empty", lambda folder, timeout: closed.append(folder) or True)
    first, _ = arrangement.arrange()
    second, said = arrangement.arrange()
    assert first is second is arranged and said == "cgroup v2 (memory, pids)"
    first.close()
    assert closed == []
    second.close()
    assert closed == [Path("/x")] and arrangement._ARRANGED is None


def real_hierarchy() -> Hierarchy:
    hierarchy, said = arrangement.find_hierarchy()
    if hierarchy is None or not hierarchy.bounds("pids"):
        pytest.skip(f"no cgroup hierarchy with the pids controller for this user here: {said}")
    return hierarchy


def test_a_real_job_holds_its_forks_and_kill_all_ends_them(monkeypatch):
    """In a real job cgroup: does a process put in it, and the child it forks, show in pids(), and does
    kill_all end both and remove leave no folder?"""
    hierarchy = real_hierarchy()
    job = hierarchy.job(f"{os.getpid()}-test-cgroups", CgroupLimits(256 * 1024**2, 8))
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # joins the job, forks, says so, then waits to be killed
        try:
            for procs in job.procs_files:
                with open(procs, "w") as file:
                    file.write(str(os.getpid()))
            if os.fork() == 0:
                signal.pause()
            os.write(write, b"x")
            signal.pause()
        finally:
            os._exit(1)
    os.close(write)
    try:
        assert os.read(read, 1) == b"x", "the child could not join the job"
        assert len(job.pids()) == 2 and pid in job.pids()
        job.kill_all()
        assert job.pids() == set()
    finally:
        os.close(read)
        for leftover in job.pids() | {pid}:  # whatever a failing kill_all left
            try:
                os.kill(leftover, signal.SIGKILL)
            except ProcessLookupError:
                pass
        status = os.waitpid(pid, 0)[1]
        job.remove()
        hierarchy.close()
    assert os.waitstatus_to_exitcode(status) == -signal.SIGKILL
    assert not any(folder.exists() for folder in job.folders())


def test_the_real_kernel_lets_a_grader_alone_in_its_cgroup_delegate_and_one_that_shares_it_not(monkeypatch):
    """On this machine's real cgroup2 hierarchy, with hugetlb (a domain controller, the one it offers here; memory and
    pids are held by v1) standing in for memory and pids: does a grader alone in a fresh cgroup move into a leaf of it,
    the kernel then letting that cgroup delegate, and give it back on close; and does one whose child shares its
    cgroup put its jobs beside it instead, as the kernel's no-internal-processes rule requires?"""
    top = next((m.path for m in cgroups.mounts() if m.version == 2), None)
    if os.geteuid() != 0 or top is None or "hugetlb" not in arrangement._controllers(top, "cgroup.controllers"):
        pytest.skip("needs root and a cgroup2 hierarchy that offers hugetlb")
    monkeypatch.setattr(arrangement, "NEEDED", frozenset({"hugetlb"}))
    monkeypatch.setattr(arrangement, "WANTED_V2", ("hugetlb",))
    had = "hugetlb" in arrangement._controllers(top, "cgroup.subtree_control")
    base = top / f"autograder-test-{os.getpid()}"
    base.mkdir()
    arrangement._enable(top, {"hugetlb"})
    try:
        assert _in_a_child(lambda: _arranged(top, base, share=False)) == f"{base}/autograder-PID moved: restored"
        assert _in_a_child(lambda: _arranged(top, base, share=True)) == f"{top}/autograder-PID beside: restored"
    finally:
        base.rmdir()
        if not had:
            cgroups.write_value(top / "cgroup.subtree_control", "-hugetlb")


def _arranged(top: Path, base: Path, share: bool) -> str:
    """In a forked child: join base (with a sleeping child of its own, if share), arrange, make a job, close; in words."""
    pid = os.getpid()
    (base / "cgroup.procs").write_text(str(pid))
    sharer = os.fork() if share else -1
    if sharer == 0:
        signal.pause()
    try:
        hierarchy, said = arrangement.arrange_v2(top, base, pid)
        assert hierarchy is not None and said == "cgroup v2 (hugetlb)", said
        job = hierarchy.job(f"{pid}-0", LIMITS)
        job.remove()
        how = "moved" if hierarchy.moved_from == base else "beside"
        parent = str(hierarchy.parents[""]).replace(str(pid), "PID")
        hierarchy.close()
        back = (base / "cgroup.procs").read_text().split().count(str(pid)) == 1 and not hierarchy.parents[""].exists()
        return f"{parent} {how}: {'restored' if back else 'not restored'}"
    finally:
        if sharer > 0:
            os.kill(sharer, signal.SIGKILL)
            os.waitpid(sharer, 0)
        (top / "cgroup.procs").write_text(str(pid))  # out of base, which the test removes


def _in_a_child(work) -> str:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.write(write, str(work()).encode())
        except BaseException as error:
            os.write(write, f"{type(error).__name__}: {error}".encode())
        finally:
            os._exit(0)
    os.close(write)
    answer = b""
    while chunk := os.read(read, 4096):
        answer += chunk
    os.close(read)
    os.waitpid(pid, 0)
    return answer.decode()
