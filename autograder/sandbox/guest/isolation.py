"""The OS sandbox a student process enters before it loads any student code.

The tier comes from the host (sandbox/host/tiers.py chooses the strongest this
machine allows); each is entered here, in the student's process, before its code:

"hardened"  root: joins its own cgroups, unshares the mount, PID, network, IPC and UTS
            namespaces, pivots into a new read-only root (the system, Python and the
            virtual environment, read-only; the submission's copy read-only at
            /sandbox/submission; a size-limited tmpfs for /sandbox/work and /tmp; a
            fresh /proc; no network), then drops to an unprivileged uid of its own.
"userns"    not root: the same namespaces and root inside an unprivileged user
            namespace, then every capability dropped. The process keeps the grader's
            uid outside, but sees nothing of the grader's files.
"uid"       root where namespaces are refused (containers): a separate unprivileged
            uid of its own, in a work folder of its own; the host makes sure that uid
            can read no file of the kit and kills every process of it afterwards.
"process"   a plain separate process, with limits only (--allow-unsandboxed).

In "hardened" and "userns" the process forks: the student's code runs in the PID
namespace's first process, and this one stays outside as its warden, which kills the
whole namespace on SIGTERM (from the host) or when the zygote goes away. Every tier
ends with limits (rlimits where no cgroup bounds the tree: on the CPU path RLIMIT_AS,
which counts every mapping, shared ones included), no way to regain privileges
(no_new_privs), a seccomp filter (guest/seccomp.py: where no cgroup counts memory, what
lives outside any mapping is refused) and a clean environment (CI secrets stay with the
grader).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import glob
import os
import platform
import resource
import signal
import sys

from . import seccomp

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
NAMESPACES = CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWPID | CLONE_NEWNET
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MNT_DETACH = 2
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}
INSIDE = "/sandbox"  # where the submission and the work folder appear; no host path is bound below it

SANDBOX_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "HOME": "/sandbox/work",
    "TMPDIR": "/tmp",
    "LANG": "C.UTF-8",
    "MPLBACKEND": "Agg",
    "MPLCONFIGDIR": "/tmp/matplotlib",
    "PYTHONDONTWRITEBYTECODE": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}
# What CUDA needs from the grader's environment, on a GPU host.
CUDA_ENV = (
    "CUDA_VISIBLE_DEVICES",
    "NVIDIA_VISIBLE_DEVICES",
    "NVIDIA_DRIVER_CAPABILITIES",
    "LD_LIBRARY_PATH",
    "CUDA_HOME",
    "CUDA_MODULE_LOADING",
)


class SandboxError(Exception):
    pass


_libc = None


def _call(name: str, *args) -> int:
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    result = getattr(_libc, name)(*args)
    if result == -1 or (name != "syscall" and result != 0):
        errno = ctypes.get_errno()
        raise SandboxError(f"{name}{args}: {os.strerror(errno)}")
    return result


def _encode(value):
    return value.encode() if isinstance(value, str) else value


def _mount(source, target, fstype, flags, data=None) -> None:
    _call("mount", _encode(source), _encode(target), _encode(fstype), ctypes.c_ulong(flags), _encode(data))


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
    try:
        _mount(None, target, None, flags)
    except SandboxError:
        # In a user namespace, flags the host set on the source mount (nodev, noexec, ...)
        # are locked: keep them and add read-only.
        _mount(None, target, None, flags | _locked_flags(source))


def _locked_flags(path: str) -> int:
    flags = 0
    stat = os.statvfs(path)
    for bit, flag in ((os.ST_NODEV, MS_NODEV), (os.ST_NOEXEC, MS_NOEXEC), (os.ST_NOSUID, MS_NOSUID)):
        if stat.f_flag & bit:
            flags |= flag
    return flags


def _limit(which: int, value: int) -> None:
    soft, hard = resource.getrlimit(which)
    value = value if hard == resource.RLIM_INFINITY else min(value, hard)
    resource.setrlimit(which, (value, value))


def data_now() -> int:
    """This process's private writable memory now (VmData): what RLIMIT_DATA counts."""
    return _status_bytes("VmData")


def address_space_now() -> int:
    """This process's whole address space now (VmSize): what RLIMIT_AS counts."""
    return _status_bytes("VmSize")


def _status_bytes(key: str) -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    return 0


def clean_environment(device: str) -> None:
    keep = {key: os.environ[key] for key in CUDA_ENV if key in os.environ} if device.startswith("cuda") else {}
    os.environ.clear()
    os.environ.update({**SANDBOX_ENV, **keep})


# ------------------------------------------------------------------ entering a tier


def enter(request: dict) -> None:
    """Isolate the calling process as the request's tier says (may fork: see the module's docstring)."""
    tier = request["tier"]
    if tier in ("hardened", "userns"):
        _join_cgroups(request)
        _enter_namespaces(request)  # returns in the PID namespace's first process only
        _build_root(request)
        if tier == "hardened":
            _drop_to_uid(request["uid"])
        else:
            _drop_capabilities()
    elif tier == "uid":
        _join_cgroups(request)
        os.chdir(request["work"])
        _drop_to_uid(request["uid"])
    elif tier != "process":
        raise SandboxError(f"unknown tier {tier!r}")
    _apply_limits(request)
    _call("prctl", PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    _call("prctl", PR_SET_DUMPABLE, 0, 0, 0, 0)  # no ptrace, no /proc/<pid>/mem from outside
    _refuse_unbounded_calls(request)
    clean_environment(request["device"])
    if tier == "uid":
        os.environ.update(
            HOME=request["work"], TMPDIR=request["work"], MPLCONFIGDIR=os.path.join(request["work"], ".matplotlib")
        )
    elif tier == "process":
        os.environ.update(
            MPLCONFIGDIR=os.path.join(request["work"], ".matplotlib"), HOME=request["work"], TMPDIR=request["work"]
        )
        os.chdir(request["work"])


def _join_cgroups(request: dict) -> None:
    """Cgroups first, while still privileged: everything forked from here on is counted."""
    for procs in request.get("cgroups", ()):
        with open(procs, "w") as file:
            file.write(str(os.getpid()))


def _enter_namespaces(request: dict) -> None:
    flags = NAMESPACES | (CLONE_NEWUSER if request["tier"] == "userns" else 0)
    uid, gid = os.getuid(), os.getgid()
    _call("unshare", flags)
    if request["tier"] == "userns":
        # Map the grader's own uid and gid to themselves: files made inside belong to
        # the grader outside, and nothing else is mapped.
        with open("/proc/self/setgroups", "w") as file:
            file.write("deny")
        with open("/proc/self/uid_map", "w") as file:
            file.write(f"{uid} {uid} 1")
        with open("/proc/self/gid_map", "w") as file:
            file.write(f"{gid} {gid} 1")
    _become_warden()


def _become_warden() -> None:
    """Fork the PID namespace's first process; stay outside as its warden.

    The warden holds no socket and runs no student code. It ends the namespace (and so
    every process in it) on SIGTERM from the host or when its parent, the zygote, is
    gone, and exits with the first process's status.
    """
    parent = os.getppid()
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})  # until the warden's handler is in place
    pid = os.fork()
    if pid == 0:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
        return  # PID 1 of the new namespace: go on isolating
    os.closerange(3, 1 << 16)

    def end(*_):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    signal.signal(signal.SIGTERM, end)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    _call("prctl", PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != parent:
        end()
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
        except ChildProcessError:
            os._exit(0)
    os._exit(os.waitstatus_to_exitcode(status) & 0xFF if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))


def _build_root(request: dict) -> None:
    """A new root for the namespace: read-only system and Python, the submission, a bounded scratch."""
    scratch = request["scratch"]
    root = os.path.join(scratch, "root")
    _mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing mounted here shows outside
    _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=16m,mode=755")
    # The scratch (work folder and /tmp) first, as one bounded tmpfs: Python or the
    # virtual environment may live below /tmp (a clone in /tmp), and their binds must
    # land on top of the new /tmp, not under it.
    size = request["limits"]["scratch_bytes"]
    os.makedirs(root + INSIDE + "/scratch", exist_ok=True)
    _mount("tmpfs", root + INSIDE + "/scratch", "tmpfs", MS_NOSUID | MS_NODEV, f"size={size},mode=755")
    for folder in ("work", "tmp"):
        os.makedirs(root + INSIDE + "/scratch/" + folder, exist_ok=True)
    if request["tier"] == "hardened":
        os.chown(root + INSIDE + "/scratch/work", request["uid"], request["uid"])
    os.chmod(root + INSIDE + "/scratch/work", 0o700)
    os.chmod(root + INSIDE + "/scratch/tmp", 0o1777)
    _bind(root + INSIDE + "/scratch/tmp", root + "/tmp", writable=True)
    _bind(root + INSIDE + "/scratch/work", root + INSIDE + "/work", writable=True)
    for path in _system_paths(request):
        if os.path.isdir(path) and not os.path.ismount(root + path):
            _bind(path, root + path)
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        if os.path.islink("/" + name):
            os.symlink(os.readlink("/" + name), os.path.join(root, name))
        elif os.path.isdir("/" + name):
            _bind("/" + name, os.path.join(root, name))
    for device in _devices(request["device"]):
        _bind(device, root + device, writable=True)
    os.makedirs(root + "/dev/shm", exist_ok=True)
    _mount("tmpfs", root + "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=1777")
    if any(path.startswith(INSIDE + "/") for path in (sys.prefix, sys.base_prefix)):
        raise SandboxError(f"Python lives under {INSIDE}, where the sandbox puts the submission")
    _bind(os.path.join(scratch, "submission"), root + INSIDE + "/submission")
    os.makedirs(root + "/proc", exist_ok=True)
    _mount("proc", root + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    _pivot(root)


def _system_paths(request: dict) -> list[str]:
    paths = ["/usr", "/etc", sys.base_prefix, sys.prefix, *request.get("python_paths", ())]
    if request["device"].startswith("cuda"):
        paths += ["/sys", "/run/nvidia-persistenced"]  # the driver reads the PCI topology and its daemon's socket
    return paths


def _devices(device: str) -> list[str]:
    devices = ["/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/full"]
    if device.startswith("cuda"):
        devices += sorted(glob.glob("/dev/nvidia*")) + sorted(glob.glob("/dev/dri/*"))
    return [d for d in devices if os.path.exists(d)]


def _pivot(root: str) -> None:
    """Make root the namespace's root and detach the old one: no host path stays reachable."""
    old = os.path.join(root, ".old")
    os.makedirs(old, exist_ok=True)
    _call("syscall", SYS_PIVOT_ROOT[platform.machine()], _encode(root), _encode(old))
    os.chdir("/")
    _call("umount2", b"/.old", MNT_DETACH)
    os.rmdir("/.old")
    _mount(None, "/", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
    os.chdir(INSIDE + "/work")


def _drop_to_uid(uid: int) -> None:
    _clear_bounding_set()
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    if os.getuid() == 0 or os.geteuid() == 0:
        raise SandboxError("the privilege drop did not happen")


def _clear_bounding_set() -> None:
    for capability in range(64):
        try:
            _call("prctl", PR_CAPBSET_DROP, capability, 0, 0, 0)
        except SandboxError:
            break  # past the last capability this kernel knows


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _drop_capabilities() -> None:
    """Give up every capability the user namespace granted, for good."""
    _clear_bounding_set()
    _call("prctl", PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header = _CapHeader(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3
    data = (_CapData * 2)()
    _call("capset", ctypes.byref(header), data)


def _apply_limits(request: dict) -> None:
    limits = request["limits"]
    if request.get("rlimit_memory"):
        # No cgroup counts this process's memory. RLIMIT_DATA counts private writable
        # memory (heap, tensors); on the CPU path RLIMIT_AS counts every mapping besides
        # (shared anonymous memory, /dev/zero, files and memfds mapped, System V segments
        # attached): CPU PyTorch reserves little address space (about 0.6 GiB with
        # matplotlib, all of it counted in the base). CUDA reserves far more than it
        # uses, so on that path only a cgroup bounds memory (sandbox/host/tiers.py).
        _limit(resource.RLIMIT_DATA, data_now() + limits["memory_bytes"])
        if not request["device"].startswith("cuda"):
            _limit(resource.RLIMIT_AS, address_space_now() + limits["memory_bytes"])
    _limit(resource.RLIMIT_MSGQUEUE, 0)  # no POSIX message queue: in the uid tier one would outlive the student
    if request.get("rlimit_processes"):
        _limit(resource.RLIMIT_NPROC, limits["processes"])
    _limit(resource.RLIMIT_CPU, int(limits["cpu_seconds"]) + 1)  # a backstop; the host counts each name's share
    _limit(resource.RLIMIT_CORE, 0)
    _limit(resource.RLIMIT_FSIZE, limits["file_bytes"])
    _limit(resource.RLIMIT_NOFILE, 256)


def refused_calls(request: dict) -> tuple[str, ...]:
    """What the seccomp filter refuses: the keyrings and the network (with every socket but AF_UNIX)
    always; where no cgroup counts memory (on the CPU path, the only one graded so), what lives
    outside any mapping."""
    unbounded = request.get("rlimit_memory") and not request["device"].startswith("cuda")
    return seccomp.KEYRINGS + seccomp.NETWORK + (seccomp.UNMAPPED_MEMORY if unbounded else ())


def _refuse_unbounded_calls(request: dict) -> None:
    if request["tier"] == "process" and not seccomp.supported():
        return  # a plain process, said so in the results: no filter on a machine it does not know
    try:
        seccomp.install(refused_calls(request), only_unix_sockets=True)
    except seccomp.FilterError as error:
        raise SandboxError(str(error)) from None


# ------------------------------------------------------------------ what this machine allows


def probe_tier(request: dict) -> str | None:
    """Enter the tier in a throwaway child and build its root: None when it works, else why not."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            enter(request)
            found = [f"it could read {path}" for path in request.get("must_not_read", ()) if _reachable(path, os.R_OK)]
            found += [
                f"it could write {path}" for path in request.get("must_not_write", ()) if _reachable(path, os.W_OK)
            ]
            if not found and request["device"].startswith("cuda"):
                found += cuda_fails(request["device"])
            os.write(write, ("; ".join(found) or "ok").encode())
        except BaseException as error:
            os.write(write, f"{type(error).__name__}: {error}"[:500].encode())
        os._exit(0)
    os.close(write)
    answer = b""
    while chunk := os.read(read, 4096):
        answer += chunk
    os.close(read)
    os.waitpid(pid, 0)
    text = answer.decode(errors="replace")
    return None if text == "ok" else (text or "the probe process ended without a word")


def cuda_fails(device: str) -> list[str]:
    """Why CUDA does not start in this process, as a student's would start it; [] when it does."""
    try:
        import torch  # here: only a probe of the CUDA path imports PyTorch (doctor's zygote preloads none)

        torch.zeros(1, device=device).add_(1).cpu()
        return []
    except Exception as error:
        return [f"CUDA does not start inside the tier ({type(error).__name__}: {str(error)[:300]})"]


def _reachable(path: str, mode: int) -> bool:
    """Whether this process can open path for reading (or writing), or list or enter it, for a folder:
    a folder it may enter but not list still gives away every file whose name it can guess."""
    try:
        if mode == os.R_OK and os.path.isdir(path):
            if os.access(path, os.X_OK):
                return True
            os.listdir(path)
            return True
        return os.access(path, mode)
    except OSError:
        return False
