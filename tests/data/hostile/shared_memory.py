# Hoards shared memory, which a limit on private data (RLIMIT_DATA) does not count:
# anonymous shared mappings while Embeddings is checked, shared mappings of /dev/zero
# while PositionalEncoding is checked; every page touched. Once a kind of hoard has
# failed in this process, each later call fails the same way at once (a hoard of 1 GiB
# for every one of a name's calls would spend the name's time, not its memory).
import ctypes
import mmap
import os

_failed = {}


def _fill(kind, make):
    if kind in _failed:
        raise OSError(*_failed[kind])
    hoard = []
    try:
        while True:
            block = make(256 << 20)
            ctypes.memset(ctypes.addressof(ctypes.c_char.from_buffer(block)), 1, len(block))
            hoard.append(block)
    except OSError as error:
        _failed[kind] = (error.errno, error.strerror)  # not the error itself: its traceback holds the hoard
        raise


class Embeddings(Embeddings):
    def forward(self, x):
        _fill("anonymous", lambda size: mmap.mmap(-1, size))  # MAP_SHARED | MAP_ANONYMOUS


class PositionalEncoding(PositionalEncoding):
    def forward(self, x):
        _fill("/dev/zero", lambda size: mmap.mmap(os.open("/dev/zero", os.O_RDWR), size))  # MAP_SHARED
