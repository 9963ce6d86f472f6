"""The seccomp filter's program, read by a small classic-BPF interpreter here, and the filter installed in a child."""

import ctypes
import errno
import os
import struct

import pytest

from autograder.sandbox.guest import seccomp
from autograder.sandbox.guest.isolation import PR_SET_NO_NEW_PRIVS

from ..forked import ChildFailed, in_a_child

ALLOW, EPERM, ENOSYS = "allow", "EPERM", "ENOSYS"
AF_INET = 2


def verdict(code: list[tuple[int, int, int, int]], nr: int, arch: int, arg0: int = 0) -> str:
    """What the filter returns for one system call: run the program on its struct seccomp_data."""
    data = struct.pack("=iIQQ", nr, arch, 0, arg0)  # nr, arch, instruction_pointer, args[0]
    pc, accumulator = 0, 0
    for _ in range(len(code)):  # classic BPF only jumps forward: each instruction runs at most once
        op, jump_true, jump_false, k = code[pc]
        if op == seccomp.BPF_LD | seccomp.BPF_W | seccomp.BPF_ABS:
            (accumulator,) = struct.unpack_from("=I", data, k)
            pc += 1
        elif op in (
            seccomp.BPF_JMP | seccomp.BPF_JEQ | seccomp.BPF_K,
            seccomp.BPF_JMP | seccomp.BPF_JGE | seccomp.BPF_K,
        ):
            taken = accumulator == k if op & 0xF0 == seccomp.BPF_JEQ else accumulator >= k
            pc += 1 + (jump_true if taken else jump_false)
        elif op == seccomp.BPF_RET | seccomp.BPF_K:
            if k == seccomp.SECCOMP_RET_ALLOW:
                return ALLOW
            assert k & 0xFFFF0000 == seccomp.SECCOMP_RET_ERRNO, hex(k)
            return errno.errorcode[k & 0xFFFF]
        else:
            raise AssertionError(f"an instruction this interpreter does not know: {op:#x}")
    raise AssertionError("the program ran off its end")


@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
def test_refused_calls_get_eperm_and_every_other_call_is_allowed(machine):
    """On each machine, does every refused call (by its own number there) get EPERM, and the others pass?"""
    arch, numbers = seccomp.ARCHES[machine]
    refused = seccomp.KEYRINGS + seccomp.UNMAPPED_MEMORY
    code = seccomp.program(refused, machine)
    for name, number in numbers.items():
        assert verdict(code, number, arch) == (EPERM if name in refused else ALLOW), name
    assert verdict(code, 0, arch) == ALLOW  # read on x86_64, io_setup on aarch64
    assert verdict(code, 39, arch) == ALLOW


@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
def test_another_abi_gets_enosys_whatever_the_call(machine):
    """Is a call of another architecture (i386, arm32), or of x86_64's x32 numbering, refused with ENOSYS,
    so that no other numbering reaches what is refused here?"""
    arch, numbers = seccomp.ARCHES[machine]
    code = seccomp.program(seccomp.KEYRINGS, machine, only_unix_sockets=True)
    i386, arm32 = 0x40000003, 0x40000028  # AUDIT_ARCH_I386, AUDIT_ARCH_ARM
    for other in (i386, arm32):
        assert verdict(code, 39, other) == ENOSYS
        assert verdict(code, numbers["socket"], other, AF_INET) == ENOSYS
    assert verdict(code, seccomp.X32_SYSCALL_BIT | 39, arch) == ENOSYS


@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
def test_only_unix_sockets_refuses_every_other_family(machine):
    """With only_unix_sockets, is socket(AF_UNIX) allowed and socket(AF_INET) refused; without it, both allowed?"""
    arch, numbers = seccomp.ARCHES[machine]
    unix_only = seccomp.program(seccomp.NETWORK, machine, only_unix_sockets=True)
    assert verdict(unix_only, numbers["socket"], arch, seccomp.AF_UNIX) == ALLOW
    assert verdict(unix_only, numbers["socket"], arch, AF_INET) == EPERM
    assert verdict(unix_only, numbers["io_uring_setup"], arch) == EPERM
    assert verdict(unix_only, 0, arch, AF_INET) == ALLOW  # only socket's first argument is a family
    any_family = seccomp.program(seccomp.NETWORK, machine)
    assert verdict(any_family, numbers["socket"], arch, AF_INET) == ALLOW


def test_a_machine_without_numbers_is_refused_by_name():
    """Is a filter for a machine the module has no numbers for refused, naming the machine and those it knows?"""
    assert seccomp.supported("x86_64") and seccomp.supported("arm64") and not seccomp.supported("riscv64")
    with pytest.raises(seccomp.FilterError, match=r"'riscv64' \(x86_64 and aarch64 only\)"):
        seccomp.program(seccomp.KEYRINGS, "riscv64")


def memfd_then_pipe() -> list[int]:
    """In the child: install a filter refusing memfd_create, then try it and an allowed call.

    no_new_privs first, as isolation.py sets it: without it only root may install a filter."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    seccomp.install(("memfd_create",))
    try:
        os.memfd_create("hoard")
        refused = 0
    except OSError as error:
        refused = error.errno
    read, write = os.pipe()
    return [refused, int(read >= 0 and write >= 0)]


@pytest.mark.skipif(not seccomp.supported(), reason="the filter knows x86_64 and aarch64 only")
def test_the_installed_filter_refuses_its_calls_and_lets_others_through():
    """In a child that installed it (never in the tests' own process): is memfd_create EPERM, and pipe still made?"""
    assert in_a_child(memfd_then_pipe) == [errno.EPERM, 1]


def install_without_no_new_privs() -> None:
    os.setresuid(65534, 65534, 0)  # an unprivileged effective uid: the kernel then asks for no_new_privs first
    seccomp.install(("memfd_create",))


@pytest.mark.skipif(os.geteuid() != 0 or not seccomp.supported(), reason="dropping to another uid needs root")
def test_a_refused_install_raises_with_the_errno():
    """Without no_new_privs and without privilege, does install raise FilterError naming EACCES (not pass silently)?"""
    with pytest.raises(ChildFailed, match="FilterError: installing the seccomp filter: EACCES"):
        in_a_child(install_without_no_new_privs)
