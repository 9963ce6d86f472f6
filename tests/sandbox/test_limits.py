"""Does a student process with no cgroup have every kind of memory bounded: each kind tried for real?

Each test forks a child of this process, enters the "process" tier there (the limits and
the seccomp filter every tier ends with; sandbox/guest/isolation.py), tries one kind
of allocation and reports the errno it got (0 when it worked). tests/data/hostile/ does the
same through whole gradings, in every tier this machine can make.
"""

import ctypes
import errno
import mmap
import os

import pytest

from autograder.sandbox.guest import isolation, seccomp

from .forked import ChildFailed, in_a_child

MiB = 1024**2
LIMIT = 256 * MiB
libc = ctypes.CDLL(None, use_errno=True)


def request(tmp_path, device="cpu", cgroup=False) -> dict:
    return {
        "tier": "process",
        "device": device,
        "work": str(tmp_path),
        "limits": {"memory_bytes": LIMIT, "processes": 64, "file_bytes": 64 * MiB, "scratch_bytes": 64 * MiB,
                   "cpu_seconds": 30},
        "rlimit_memory": not cgroup,
        "rlimit_processes": True,
    }  # fmt: skip


def in_the_sandbox(request: dict, attempt) -> int:
    """The errno attempt() raised in a child that entered the request's tier (0: it worked; ENOMEM for MemoryError)."""

    def work() -> int:
        try:
            isolation.enter(request)
            attempt()
            return 0
        except OSError as error:
            return error.errno
        except MemoryError:
            return errno.ENOMEM

    try:
        return in_a_child(work)
    except ChildFailed:
        return -1


def checked(result: int) -> None:
    if result < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))


def shared_anonymous(size: int):
    return lambda: mmap.mmap(-1, size)


def dev_zero(size: int):
    return lambda: mmap.mmap(os.open("/dev/zero", os.O_RDWR), size)


def private(size: int):
    return lambda: bytearray(size)


def memfd():
    os.memfd_create("probe")


def shmget():
    checked(libc.shmget(0, ctypes.c_size_t(MiB), 0o1000 | 0o600))  # IPC_PRIVATE, IPC_CREAT


def msgget():
    checked(libc.msgget(0, 0o1000 | 0o600))


def add_key():
    keyring_user = -4
    checked(libc.syscall(seccomp.ARCHES[os.uname().machine][1]["add_key"], b"user", b"k", b"v", 1, keyring_user))


def x32_getpid():
    checked(libc.syscall(seccomp.X32_SYSCALL_BIT | 39))


needs_known_machine = pytest.mark.skipif(not seccomp.supported(), reason="the filter knows x86_64 and aarch64 only")


@needs_known_machine
@pytest.mark.parametrize(
    "make", [shared_anonymous, dev_zero, private], ids=["shared anonymous", "/dev/zero", "private"]
)
def test_mappings_of_every_kind_stop_at_the_address_space_limit(tmp_path, make):
    """Without a cgroup, on the CPU path: does a mapping past the limit fail, and one well within it work?"""
    assert in_the_sandbox(request(tmp_path), make(2 * LIMIT)) == errno.ENOMEM
    assert in_the_sandbox(request(tmp_path), make(LIMIT // 4)) == 0


@needs_known_machine
@pytest.mark.parametrize("attempt", [memfd, shmget, msgget])
def test_memory_outside_any_mapping_is_refused_without_a_cgroup(tmp_path, attempt):
    """Without a cgroup: are memfds, System V segments and message queues refused, and allowed where a cgroup counts them?"""
    assert in_the_sandbox(request(tmp_path), attempt) == errno.EPERM
    assert in_the_sandbox(request(tmp_path, cgroup=True), attempt) == 0


@needs_known_machine
def test_the_keyrings_and_other_abis_are_refused_in_every_case(tmp_path):
    """With or without a cgroup: is adding a key refused (it would outlive the student), and is x32 closed?"""
    for cgroup in (False, True):
        assert in_the_sandbox(request(tmp_path, cgroup=cgroup), add_key) == errno.EPERM
        assert in_the_sandbox(request(tmp_path, cgroup=cgroup), x32_getpid) == errno.ENOSYS


@needs_known_machine
def test_the_cuda_path_keeps_memfd_for_the_driver(tmp_path):
    """On the CUDA path (graded only where a cgroup bounds memory): is memfd_create left to CUDA's driver?"""
    assert in_the_sandbox(request(tmp_path, device="cuda"), memfd) == 0
    assert "memfd_create" not in isolation.refused_calls(request(tmp_path, device="cuda"))


def test_no_posix_message_queue_can_be_made(tmp_path):
    """Is RLIMIT_MSGQUEUE 0 in the sandbox, so that no queue outlives a student of the uid tier?"""
    import resource

    def limit():
        if resource.getrlimit(resource.RLIMIT_MSGQUEUE) != (0, 0):
            raise OSError(errno.EINVAL, "RLIMIT_MSGQUEUE is not 0")

    assert in_the_sandbox(request(tmp_path), limit) == 0


def tcp_to(port: int):
    def attempt():
        import socket

        with socket.create_connection(("127.0.0.1", port), timeout=2) as connection:
            connection.sendall(b"a classmate's work")

    return attempt


def unix_socket_pair():
    import socket

    left, right = socket.socketpair()
    left.sendall(b"x")
    assert right.recv(1) == b"x"
    left.close()
    right.close()


def io_uring_setup():
    params = ctypes.create_string_buffer(120)  # struct io_uring_params, zeroed
    number = {"x86_64": 425, "aarch64": 425}[os.uname().machine]
    if libc.syscall(number, 4, params) < 0:
        raise OSError(ctypes.get_errno(), "io_uring_setup")


@needs_known_machine
def test_the_network_is_refused_and_unix_sockets_kept(tmp_path):
    """With or without a cgroup (the uid tier has no network namespace): is a TCP connection to a port this
    machine listens on refused, and io_uring (which could open one unseen) too, while AF_UNIX pairs still work?"""
    import socket

    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(0)
        port = server.getsockname()[1]
        for cgroup in (False, True):
            assert in_the_sandbox(request(tmp_path, cgroup=cgroup), tcp_to(port)) == errno.EPERM
            assert in_the_sandbox(request(tmp_path, cgroup=cgroup), io_uring_setup) == errno.EPERM
            assert in_the_sandbox(request(tmp_path, cgroup=cgroup), unix_socket_pair) == 0
        with pytest.raises(BlockingIOError):
            server.accept()  # nothing reached the listening port
        assert in_the_sandbox_without_filter(tcp_to(port)) == 0  # the test's own probe works outside the sandbox


def in_the_sandbox_without_filter(attempt) -> int:
    try:
        attempt()
    except OSError as error:
        return error.errno
    return 0
