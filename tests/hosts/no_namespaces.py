#!/usr/bin/env python3
"""Run a command on a simulated host that refuses new namespaces, like a Docker container.

    python tests/hosts/no_namespaces.py -- COMMAND [ARGS...]

Docker's default seccomp profile (and Gradescope's containers) let a process fork and
spawn as usual but refuse it new namespaces. This script installs the same refusal as a
seccomp filter (classic BPF, through prctl), then execs COMMAND in its place, as the same
user (root stays root, with all its capabilities: only namespaces are refused). For the
command and everything it starts:

- unshare() and setns() fail with EPERM (EPERM is what Docker answers);
- clone() with any CLONE_NEW* flag (mount, cgroup, UTS, IPC, user, PID, network) fails
  with EPERM; clone() without one (fork, threads, posix_spawn) works;
- clone3() fails with ENOSYS, as on kernels before 5.3 and in Docker: its flags lie in
  memory a filter cannot read, and glibc then falls back to clone();
- system calls of another ABI (i386 or arm32 compat) fail with ENOSYS.

x86_64 and aarch64. A seccomp filter cannot be lifted: it goes with the command and its
children and ends with them, so there is nothing to clean up. As root the filter needs no
no_new_privs (setuid programs keep working, as in Docker); any other user must set it,
and so does --no-new-privs.
"""

import ctypes
import errno
import os
import platform
import struct
import sys

# Classic BPF (linux/filter.h, linux/bpf_common.h)
BPF_LD, BPF_W, BPF_ABS = 0x00, 0x00, 0x20
BPF_ALU, BPF_AND = 0x04, 0x50
BPF_JMP, BPF_JEQ, BPF_JSET, BPF_K = 0x05, 0x10, 0x40, 0x00
BPF_RET = 0x06

# linux/seccomp.h, linux/prctl.h
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2

# struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6]
OFFSET_NR, OFFSET_ARCH, OFFSET_ARG0_LOW = 0, 4, 16  # args[0]'s low half (little-endian)

CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
# CLONE_NEWTIME (0x80) is not among them: clone() reads that bit as part of the exit signal.
CLONE_NEW_ANY = (
    CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET
)

X32_SYSCALL_BIT = 0x40000000  # x86_64's x32 ABI: same numbers for these calls, with this bit set

ARCHES = {
    # machine: (AUDIT_ARCH_*, syscall numbers, mask applied to the number first)
    "x86_64": (0xC000003E, {"clone": 56, "unshare": 272, "setns": 308, "clone3": 435}, ~X32_SYSCALL_BIT & 0xFFFFFFFF),
    "aarch64": (0xC00000B7, {"clone": 220, "unshare": 97, "setns": 268, "clone3": 435}, 0xFFFFFFFF),
}
ARCHES["arm64"] = ARCHES["aarch64"]


def errno_return(number: int) -> int:
    return SECCOMP_RET_ERRNO | (number & 0xFFFF)


def assemble(program: list) -> list[tuple[int, int, int, int]]:
    """(code, jump-if-true label, jump-if-false label, k) and label strings into sock_filter tuples."""
    labels, instructions = {}, []
    for item in program:
        if isinstance(item, str):
            labels[item] = len(instructions)
        else:
            instructions.append(item)

    def offset(target, pc):
        return 0 if target is None else labels[target] - (pc + 1)

    return [(code, offset(jt, pc), offset(jf, pc), k) for pc, (code, jt, jf, k) in enumerate(instructions)]


def filter_program(machine: str) -> list[tuple[int, int, int, int]]:
    if machine not in ARCHES:
        raise SystemExit(f"no_namespaces: no system call numbers for {machine!r} (x86_64 and aarch64 only)")
    arch, nr, mask = ARCHES[machine]
    return assemble(
        [
            (BPF_LD | BPF_W | BPF_ABS, None, None, OFFSET_ARCH),
            (BPF_JMP | BPF_JEQ | BPF_K, "native", "enosys", arch),
            "native",
            (BPF_LD | BPF_W | BPF_ABS, None, None, OFFSET_NR),
            (BPF_ALU | BPF_AND | BPF_K, None, None, mask),
            (BPF_JMP | BPF_JEQ | BPF_K, "eperm", None, nr["unshare"]),
            (BPF_JMP | BPF_JEQ | BPF_K, "eperm", None, nr["setns"]),
            (BPF_JMP | BPF_JEQ | BPF_K, "enosys", None, nr["clone3"]),
            (BPF_JMP | BPF_JEQ | BPF_K, None, "allow", nr["clone"]),
            (BPF_LD | BPF_W | BPF_ABS, None, None, OFFSET_ARG0_LOW),
            (BPF_JMP | BPF_JSET | BPF_K, "eperm", "allow", CLONE_NEW_ANY),
            "allow",
            (BPF_RET | BPF_K, None, None, SECCOMP_RET_ALLOW),
            "eperm",
            (BPF_RET | BPF_K, None, None, errno_return(errno.EPERM)),
            "enosys",
            (BPF_RET | BPF_K, None, None, errno_return(errno.ENOSYS)),
        ]
    )


def install(no_new_privs: bool) -> None:
    """Install the filter on this process (and so on whatever it execs)."""
    program = filter_program(platform.machine())
    raw = b"".join(struct.pack("=HBBI", code, jt, jf, k) for code, jt, jf, k in program)
    filters = ctypes.create_string_buffer(raw, len(raw))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = SockFprog(len(program), ctypes.addressof(filters))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    if no_new_privs or os.geteuid() != 0:
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(fprog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER)")


def command_after_dashes(argv: list[str], usage: str) -> tuple[list[str], list[str]]:
    """(options before '--', the command after it)."""
    if "--" not in argv or argv.index("--") == len(argv) - 1:
        raise SystemExit(usage)
    split = argv.index("--")
    return argv[:split], argv[split + 1 :]


def main(argv: list[str]) -> None:
    usage = "usage: python tests/hosts/no_namespaces.py [--no-new-privs] -- COMMAND [ARGS...]"
    options, command = command_after_dashes(argv, usage)
    if any(option not in ("--no-new-privs",) for option in options):
        raise SystemExit(usage)
    install(no_new_privs="--no-new-privs" in options)
    try:
        os.execvp(command[0], command)
    except OSError as error:
        raise SystemExit(f"no_namespaces: cannot run {command[0]!r}: {error.strerror}") from None


if __name__ == "__main__":
    main(sys.argv[1:])
