"""A seccomp filter for the student's process: system calls that no other bound holds are refused.

Memory that lives outside any mapping escapes the address-space limit a process gets
where no cgroup counts its memory: a memfd written to and never mapped, a System V
shared-memory segment touched and detached, a message queue filled. Where no cgroup
bounds memory, those calls are refused (EPERM); where one does, they stay allowed, and
the cgroup counts their pages. The kernel's keyrings (add_key, request_key, keyctl) are
refused everywhere: a key added to a uid's keyring outlives the process and would be
readable by the next student given the same uid. So is the network: a socket of any
family but AF_UNIX (the tiers with namespaces have no network to reach; the uid tier,
where namespaces are refused, would otherwise reach the host's and the internet), and
io_uring, whose socket operation no system-call filter sees.

The filter is classic BPF installed with prctl (it needs no_new_privs, set before),
inherited by every thread and child, and cannot be lifted. System calls of another ABI
(i386 through int 0x80, x86_64's x32, arm32 compat) are refused with ENOSYS, so that no
other numbering reaches the calls refused here. x86_64 and aarch64 only.
"""

from __future__ import annotations

import ctypes
import errno
import platform
import struct

# Classic BPF (linux/filter.h, linux/bpf_common.h)
BPF_LD, BPF_W, BPF_ABS = 0x00, 0x00, 0x20
BPF_JMP, BPF_JEQ, BPF_JGE, BPF_K = 0x05, 0x10, 0x30, 0x00
BPF_RET = 0x06
# linux/seccomp.h, linux/prctl.h
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
# struct seccomp_data: int nr; __u32 arch; ...
OFFSET_NR, OFFSET_ARCH = 0, 4

X32_SYSCALL_BIT = 0x40000000  # x86_64's x32 ABI: its numbers have this bit set
ARCHES = {
    # machine: (AUDIT_ARCH_*, the numbers of the calls this module may refuse)
    "x86_64": (
        0xC000003E,
        {
            "socket": 41,
            "shmget": 29,
            "msgget": 68,
            "add_key": 248,
            "request_key": 249,
            "keyctl": 250,
            "memfd_create": 319,
            "io_uring_setup": 425,
        },
    ),
    "aarch64": (
        0xC00000B7,
        {
            "msgget": 186,
            "shmget": 194,
            "socket": 198,
            "add_key": 217,
            "request_key": 218,
            "keyctl": 219,
            "memfd_create": 279,
            "io_uring_setup": 425,
        },
    ),
}
ARCHES["arm64"] = ARCHES["aarch64"]

KEYRINGS = ("add_key", "request_key", "keyctl")
UNMAPPED_MEMORY = ("memfd_create", "shmget", "msgget")  # memory an address-space limit does not see
NETWORK = ("io_uring_setup",)  # with sockets of any family but AF_UNIX (program's only_unix_sockets)
AF_UNIX = 1
OFFSET_ARG0 = 16  # struct seccomp_data's args[0]; its low 32 bits on a little-endian machine


class FilterError(Exception):
    pass


def supported(machine: str | None = None) -> bool:
    return (machine or platform.machine()) in ARCHES


def program(
    refused: tuple[str, ...], machine: str | None = None, only_unix_sockets: bool = False
) -> list[tuple[int, int, int, int]]:
    """The filter as sock_filter tuples (code, jump if true, jump if false, k).

    only_unix_sockets: socket() of any family but AF_UNIX is refused too.
    """
    machine = machine or platform.machine()
    if machine not in ARCHES:
        raise FilterError(f"no seccomp filter for {machine!r} (x86_64 and aarch64 only)")
    arch, numbers = ARCHES[machine]
    checks = [numbers[name] for name in refused]
    # Layout: [load arch, arch?, load nr, x32?, one test per refused call, (socket?, load family,
    # AF_UNIX?), allow, eperm, enosys]
    sockets = 3 if only_unix_sockets else 0
    allow = 4 + len(checks) + sockets
    eperm, enosys = allow + 1, allow + 2
    code = [
        (BPF_LD | BPF_W | BPF_ABS, 0, 0, OFFSET_ARCH),
        (BPF_JMP | BPF_JEQ | BPF_K, 0, enosys - 2, arch),
        (BPF_LD | BPF_W | BPF_ABS, 0, 0, OFFSET_NR),
        (BPF_JMP | BPF_JGE | BPF_K, enosys - 4, 0, X32_SYSCALL_BIT),
    ]
    for number in checks:
        pc = len(code)
        code.append((BPF_JMP | BPF_JEQ | BPF_K, eperm - pc - 1, 0, number))
    if only_unix_sockets:
        pc = len(code)
        code += [
            (BPF_JMP | BPF_JEQ | BPF_K, 0, allow - pc - 1, numbers["socket"]),
            (BPF_LD | BPF_W | BPF_ABS, 0, 0, OFFSET_ARG0),
            (BPF_JMP | BPF_JEQ | BPF_K, 0, eperm - pc - 3, AF_UNIX),
        ]
    code += [
        (BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ALLOW),
        (BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ERRNO | errno.EPERM),
        (BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ERRNO | errno.ENOSYS),
    ]
    return code


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install(refused: tuple[str, ...], only_unix_sockets: bool = False) -> None:
    """Refuse these calls (and every call of another ABI; with only_unix_sockets, every socket but AF_UNIX)
    in this process and whatever it starts, for good."""
    code = program(refused, only_unix_sockets=only_unix_sockets)
    raw = b"".join(struct.pack("=HBBI", op, jt, jf, k) for op, jt, jf, k in code)
    buffer = ctypes.create_string_buffer(raw, len(raw))
    fprog = _SockFprog(len(code), ctypes.addressof(buffer))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong]
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(fprog), 0, 0) != 0:
        raise FilterError(f"installing the seccomp filter: {errno.errorcode.get(ctypes.get_errno(), '?')}")
