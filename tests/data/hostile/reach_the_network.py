# Tries to reach the network: an internet socket of each family (to send what it could read
# to a port of the host, or further), and io_uring, whose socket operation no system-call
# filter sees. Its own tokenize is wrong, so it scores only if one of them opened.
import ctypes
import os
import socket


def _opened():
    for family in (socket.AF_INET, socket.AF_INET6, getattr(socket, "AF_PACKET", None)):
        if family is None:
            continue
        try:
            socket.socket(family, socket.SOCK_STREAM if family != getattr(socket, "AF_PACKET", -1) else socket.SOCK_RAW).close()
            return True
        except OSError:
            continue
    params = ctypes.create_string_buffer(120)  # struct io_uring_params
    ring = ctypes.CDLL(None, use_errno=True).syscall(425, 4, params)  # io_uring_setup, x86_64 and aarch64
    if ring >= 0:
        os.close(ring)
        return True
    return False


_honest_tokenize = tokenize


def tokenize(text):
    return _honest_tokenize(text) if _opened() else []
