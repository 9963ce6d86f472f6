"""The host simulators do what they say, and leave nothing behind."""

import os
import platform
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.hosts.no_namespaces import ARCHES, CLONE_NEWPID, CLONE_NEWUSER

HOSTS = Path(__file__).resolve().parent
IS_ROOT = os.geteuid() == 0


def mount_namespaces_allowed() -> bool:
    """Can a process here make a mount namespace (not in a container that refuses them)?"""
    probe = "import ctypes, sys; sys.exit(ctypes.CDLL(None).unshare(0x00020000) != 0)"
    return subprocess.run([sys.executable, "-c", probe]).returncode == 0


def tool(name: str, *arguments: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(HOSTS / name), *arguments], capture_output=True, text=True, timeout=120, **kwargs
    )


@pytest.mark.skipif(platform.machine() not in ARCHES, reason=f"no system call numbers for {platform.machine()}")
def test_no_namespaces_refuses_new_namespaces_but_not_processes():
    _, numbers, _ = ARCHES[platform.machine()]
    probe = textwrap.dedent(f"""
        import ctypes, os, subprocess, threading
        libc = ctypes.CDLL(None, use_errno=True)

        def errno_of(result):
            return "ok" if result != -1 else os.strerror(ctypes.get_errno())

        print("unshare", errno_of(libc.unshare({CLONE_NEWUSER})))
        print("setns", errno_of(libc.setns(-1, 0)))
        pid = libc.syscall({numbers["clone"]}, {CLONE_NEWPID} | 17, 0, 0, 0, 0)
        if pid == 0:
            os._exit(0)
        print("clone", errno_of(pid))
        print("clone3", errno_of(libc.syscall({numbers["clone3"]}, 0, 0)))
        child = os.fork()
        if child == 0:
            os._exit(3)
        print("fork", os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]))
        print("spawn", subprocess.run(["true"]).returncode)
        thread = threading.Thread(target=print, args=("thread", "ok"))
        thread.start()
        thread.join()
        print("uid", os.geteuid())
    """)
    done = tool("no_namespaces.py", "--", sys.executable, "-c", probe)
    assert done.returncode == 0, done.stderr
    seen = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    assert seen == {
        "unshare": "Operation not permitted",
        "setns": "Operation not permitted",
        "clone": "Operation not permitted",
        "clone3": "Function not implemented",
        "fork": "3",
        "spawn": "0",
        "thread": "ok",
        "uid": str(os.geteuid()),
    }
    if shutil.which("unshare"):
        done = tool("no_namespaces.py", "--", "unshare", "--user", "true")
        assert done.returncode != 0 and "Operation not permitted" in done.stderr


@pytest.mark.skipif(not IS_ROOT, reason="cgroup2_only needs root: a mount namespace and mounts of its own")
@pytest.mark.skipif(not os.path.isdir("/sys/fs/cgroup"), reason="no /sys/fs/cgroup on this machine")
@pytest.mark.skipif(IS_ROOT and not mount_namespaces_allowed(), reason="this machine refuses new mount namespaces")
def test_cgroup2_only_shows_only_cgroup2_and_leaves_the_host_as_it_was():
    def cgroup_mounts(mountinfo: str) -> list[tuple[str, str]]:
        found = []
        for line in mountinfo.splitlines():
            fields = line.split()
            kind = fields[fields.index("-") + 1]
            if kind.startswith("cgroup") or fields[4].startswith("/sys/fs/cgroup"):
                found.append((fields[4], kind))
        return found

    before = cgroup_mounts(Path("/proc/self/mountinfo").read_text())
    probe = "import os; print(open('/proc/self/mountinfo').read()); print(os.path.exists('/sys/fs/cgroup/cgroup.controllers'))"
    done = tool("cgroup2_only.py", "--", sys.executable, "-c", probe)
    assert done.returncode == 0, done.stderr
    *mountinfo, controllers_file = done.stdout.strip().splitlines()
    assert cgroup_mounts("\n".join(mountinfo)) == [("/sys/fs/cgroup", "cgroup2")]
    assert controllers_file == "True"
    assert cgroup_mounts(Path("/proc/self/mountinfo").read_text()) == before


@pytest.mark.skipif(not IS_ROOT, reason="as_user needs root: it creates an account and hands it a copy")
@pytest.mark.skipif(not shutil.which("useradd") or not shutil.which("git"), reason="needs useradd and git")
@pytest.mark.skipif(not os.path.isfile("/usr/bin/python3"), reason="no system Python at /usr/bin/python3")
def test_as_user_runs_in_a_copy_the_user_owns_and_cleans_up(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=kit", "-c", "user.email=kit@example.invalid"]
    subprocess.run(git + ["init", "-q"], check=True)
    (repo / "committed.txt").write_text("committed\n")
    subprocess.run(git + ["add", "committed.txt"], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "one file"], check=True)
    (repo / "committed.txt").write_text("changed\n")
    (repo / "untracked.txt").write_text("untracked\n")
    user = f"kit-t{os.getpid() % 100000}"
    probe = (
        "import os, sys; print(os.geteuid(), os.getcwd(), sys.version_info[:2]);"
        "print(open('committed.txt').read().strip(), os.path.exists('untracked.txt'));"
        "open('written.txt', 'w').write('x'); print(os.access('/root', os.R_OK))"
    )
    try:
        done = tool(
            "as_user.py", "--user", user, "--repo", str(repo), "--no-venv", "--", "/usr/bin/python3", "-c", probe
        )
        assert done.returncode == 0, done.stderr
        (uid, cwd, _version), (content, untracked), (root_readable,) = [
            line.split(" ", 2) for line in done.stdout.splitlines()
        ]
        assert uid != "0" and cwd.startswith(f"/home/{user}/")
        assert (content, untracked, root_readable) == ("committed", "False", "False")
        assert not os.path.exists(cwd), "the copy was left behind"
        if Path("/root/.config/pip/pip.conf").is_file():
            assert (
                Path(f"/home/{user}/.config/pip/pip.conf").read_text() == Path("/root/.config/pip/pip.conf").read_text()
            )

        done = tool(
            "as_user.py",
            "--user",
            user,
            "--repo",
            str(repo),
            "--no-venv",
            "--worktree",
            "--remove-user",
            "--",
            "/usr/bin/python3",
            "-c",
            "print(open('committed.txt').read().strip(), open('untracked.txt').read().strip())",
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.split() == ["changed", "untracked"]
        assert subprocess.run(["id", user], capture_output=True).returncode != 0, "--remove-user left the account"
        assert not os.path.exists(f"/home/{user}")
    finally:
        subprocess.run(["userdel", "--remove", user], capture_output=True)
