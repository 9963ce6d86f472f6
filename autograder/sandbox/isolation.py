"""The OS sandbox a student process enters before it loads any student code.

Two levels:

"hardened" (Linux, as root): the process joins its own memory and pids cgroups, then
    unshares the mount, PID, network, IPC and UTS namespaces. It becomes PID 1 of a
    fresh PID namespace, so every process it starts dies with it. Its root is a new,
    read-only tmpfs holding read-only binds of the system (/usr, /etc), the Python
    installation and the virtual environment, the submission's copy at /sandbox/submission
    (read-only), a writable /sandbox/work and /tmp of its own, /dev/null and friends and a
    fresh /proc. It has no network. Then it drops to an unprivileged uid of its own
    with no supplementary groups and no way to regain privileges (no_new_privs).
    The kit's files, the reference, the graders, other submissions and the output
    folder are not in its root at all.

"process": a separate process with rlimits only, for machines without the above (a
    student's laptop, macOS). Not hardened: the student's code can read and write what
    the grader's user can.

The environment is emptied at both levels (CI secrets stay with the grader).
"""
from __future__ import annotations

import ctypes
import ctypes.util
import glob
import os
import resource
import sys

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
PR_SET_NO_NEW_PRIVS = 38
PR_SET_DUMPABLE = 4
INSIDE = "/sandbox"  # where the submission and the work folder appear; no host path is bound below it

SANDBOX_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "HOME": "/tmp",
    "LANG": "C.UTF-8",
    "MPLBACKEND": "Agg",
    "MPLCONFIGDIR": "/tmp/matplotlib",
    "PYTHONDONTWRITEBYTECODE": "1",
}


class SandboxError(Exception):
    pass


_libc = None


def _call(name: str, *args) -> None:
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    if getattr(_libc, name)(*args) != 0:
        errno = ctypes.get_errno()
        raise SandboxError(f"{name}{args}: {os.strerror(errno)}")


def _mount(source, target, fstype, flags, data=None) -> None:
    encode = lambda value: value.encode() if isinstance(value, str) else value  # noqa: E731
    _call("mount", encode(source), encode(target), encode(fstype), ctypes.c_ulong(flags), encode(data))


def _bind(source: str, target: str, writable: bool = False) -> None:
    if os.path.isdir(source):
        os.makedirs(target, mode=0o755, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
        open(target, "a").close()
    _mount(source, target, None, MS_BIND | MS_REC)
    flags = MS_REMOUNT | MS_BIND | MS_NOSUID | (0 if writable else MS_RDONLY)
    if not source.startswith("/dev/"):
        flags |= MS_NODEV
    _mount(None, target, None, flags)


def _limit(which: int, value: int) -> None:
    soft, hard = resource.getrlimit(which)
    value = value if hard == resource.RLIM_INFINITY else min(value, hard)
    resource.setrlimit(which, (value, value))


def address_space_now() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def _clean_environment() -> None:
    os.environ.clear()
    os.environ.update(SANDBOX_ENV)


def enter(request: dict) -> None:
    """Isolate the calling process as the request's level says; may fork (hardened)."""
    limits = request["limits"]
    if request["isolation"] == "hardened":
        _enter_hardened(request)
    else:
        _clean_environment()
        # torch is already mapped: allow its address space plus the memory limit.
        _limit(resource.RLIMIT_AS, address_space_now() + limits["memory_bytes"])
    _limit(resource.RLIMIT_CORE, 0)
    _limit(resource.RLIMIT_FSIZE, limits["file_bytes"])
    _limit(resource.RLIMIT_NOFILE, 256)


def _enter_hardened(request: dict) -> None:
    # 1. Cgroups first, while still root: everything forked from here on is counted.
    for procs in request["cgroups"]:
        with open(procs, "w") as file:
            file.write(str(os.getpid()))
    # 2. New namespaces; the PID namespace applies to the children of this process.
    _call("unshare", CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWPID | CLONE_NEWNET)
    pid = os.fork()
    if pid:
        # This process stays outside, only to pass on how the sandbox's PID 1 ended.
        os.closerange(3, 1 << 16)
        _, status = os.waitpid(pid, 0)
        os._exit(os.waitstatus_to_exitcode(status) & 0xFF if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
    # 3. PID 1 of the new namespace: build the new root, enter it, drop privileges.
    _build_root(request)
    _drop_privileges(request["uid"])
    _clean_environment()


def _build_root(request: dict) -> None:
    scratch = request["scratch"]
    root = os.path.join(scratch, "root")
    _mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing mounted here shows outside
    _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=8m,mode=755")
    # /tmp first: Python or the virtual environment may live below it (a clone in /tmp),
    # and their binds must land on top of the new /tmp, not under it.
    os.makedirs(root + "/tmp", exist_ok=True)
    _mount("tmpfs", root + "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, f"size={request['limits']['file_bytes']},mode=1777")
    for path in ("/usr", "/etc", sys.base_prefix, sys.prefix):
        if os.path.isdir(path) and not os.path.ismount(root + path):
            _bind(path, root + path)
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        if os.path.islink("/" + name):
            os.symlink(os.readlink("/" + name), os.path.join(root, name))
        elif os.path.isdir("/" + name):
            _bind("/" + name, os.path.join(root, name))
    devices = ["/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/full"]
    if request["device"].startswith("cuda"):
        devices += sorted(glob.glob("/dev/nvidia*"))
    for device in devices:
        if os.path.exists(device):
            _bind(device, root + device, writable=True)
    if any(path.startswith(INSIDE + "/") for path in (sys.prefix, sys.base_prefix)):
        raise SandboxError(f"Python lives under {INSIDE}, where the sandbox puts the submission")
    _bind(os.path.join(scratch, "submission"), root + INSIDE + "/submission")
    _bind(os.path.join(scratch, "work"), root + INSIDE + "/work", writable=True)
    os.makedirs(root + "/proc", exist_ok=True)
    _mount("proc", root + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    _mount(None, root, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    os.chroot(root)
    os.chdir(INSIDE + "/work")


def _drop_privileges(uid: int) -> None:
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    _call("prctl", PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    _call("prctl", PR_SET_DUMPABLE, 0, 0, 0, 0)  # no ptrace, no /proc/<pid>/mem from outside the uid
    if os.getuid() == 0 or os.geteuid() == 0:
        raise SandboxError("the privilege drop did not happen")
