# Hoards memory in System V shared-memory segments, 256 MiB each, touched and then
# detached (no address space holds them any more), while Embeddings is checked.
import ctypes
import os

_libc = ctypes.CDLL(None, use_errno=True)
_libc.shmat.restype = ctypes.c_void_p
_libc.shmdt.argtypes = [ctypes.c_void_p]
IPC_PRIVATE, IPC_CREAT = 0, 0o1000


class Embeddings(Embeddings):
    def forward(self, x):
        size = 256 << 20
        while True:
            segment = _libc.shmget(IPC_PRIVATE, ctypes.c_size_t(size), IPC_CREAT | 0o600)
            if segment < 0:
                raise OSError(ctypes.get_errno(), f"shmget: {os.strerror(ctypes.get_errno())}")
            address = _libc.shmat(segment, None, 0)
            ctypes.memset(address, 1, size)
            _libc.shmdt(address)
