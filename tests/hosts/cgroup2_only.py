#!/usr/bin/env python3
"""Run a command on a simulated cgroup-v2-only host (as most current distributions boot).

    python tests/hosts/cgroup2_only.py -- COMMAND [ARGS...]

Needs root. The script enters a mount namespace of its own (unshare(CLONE_NEWNS)), makes
every mount in it private (so nothing it does reaches the real host), unmounts whatever
is mounted at and below /sys/fs/cgroup (the cgroup v1 hierarchies, the tmpfs holding
them, a hybrid host's cgroup2 at /sys/fs/cgroup/unified) and mounts the cgroup2
hierarchy at /sys/fs/cgroup, as a cgroup-v2-only host has it. Then it execs COMMAND,
still as root. In the command's view /proc/self/mountinfo lists cgroup2 as the only cgroup
file system, and /sys/fs/cgroup/cgroup.controllers exists.

Only the view changes: the kernel's v1 hierarchies still exist for the rest of the
machine, and a controller bound to one of them (on a hybrid host: memory, pids, cpu...)
is not offered by cgroup2 here; cgroup.controllers lists those that are free. The
namespace, and with it every mount made here, ends with the last process in it: there is
nothing to clean up. The command stays in the initial cgroup namespace, so /proc/self/cgroup
keeps its paths (the v1 lines as well as the "0::" one).
"""

import ctypes
import os
import sys

CLONE_NEWNS = 0x00020000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_RELATIME = 0x2, 0x4, 0x8, 0x200000
MS_REC, MS_PRIVATE = 0x4000, 0x40000
MNT_DETACH = 0x2
CGROUP_ROOT = "/sys/fs/cgroup"

libc = ctypes.CDLL(None, use_errno=True)
libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_void_p]


def check(result: int, what: str) -> None:
    if result != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"{what}: {os.strerror(number)}")


def unescape(field: str) -> str:
    """mountinfo writes space, tab, newline and backslash as octal escapes."""
    for escaped, plain in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        field = field.replace(escaped, plain)
    return field


def mounts() -> list[tuple[str, str]]:
    """(mount point, file system type) of each mount this process sees, in mount order."""
    found = []
    with open("/proc/self/mountinfo") as table:
        for line in table:
            fields = line.split()
            separator = fields.index("-")
            found.append((unescape(fields[4]), fields[separator + 1]))
    return found


def under_cgroup_root(point: str) -> bool:
    return point == CGROUP_ROOT or point.startswith(CGROUP_ROOT + "/")


def become_cgroup2_only() -> None:
    check(libc.unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    check(libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "making / private")
    # Deepest first: the v1 hierarchies, then the tmpfs they sit on (it may be stacked).
    while True:
        points = [point for point, _ in mounts() if under_cgroup_root(point)]
        if not points:
            break
        deepest = max(points, key=lambda point: point.count("/"))
        check(libc.umount2(deepest.encode(), MNT_DETACH), f"unmounting {deepest}")
    check(
        libc.mount(b"cgroup2", CGROUP_ROOT.encode(), b"cgroup2", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RELATIME, None),
        f"mounting cgroup2 at {CGROUP_ROOT}",
    )


def main(argv: list[str]) -> None:
    usage = "usage: python tests/hosts/cgroup2_only.py -- COMMAND [ARGS...]   (as root)"
    if "--" not in argv or argv.index("--") != 0 or len(argv) < 2:
        raise SystemExit(usage)
    command = argv[1:]
    if os.geteuid() != 0:
        raise SystemExit("cgroup2_only: needs root (a mount namespace and mounts of its own)")
    try:
        become_cgroup2_only()
    except OSError as error:
        raise SystemExit(f"cgroup2_only: {error.strerror}") from None
    try:
        os.execvp(command[0], command)
    except OSError as error:
        raise SystemExit(f"cgroup2_only: cannot run {command[0]!r}: {error.strerror}") from None


if __name__ == "__main__":
    main(sys.argv[1:])
