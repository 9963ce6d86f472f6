# Looks for what tests/data/hostile/leave_a_secret.py left behind (graded just before it,
# perhaps under the same uid): the files, the System V segment, semaphore set and
# message queue, the uid's keyring. Its own tokenize is wrong, so it scores only if
# something of the previous student is still there. The names are those of leave_a_secret.py in
# the same grading run (tests/sandbox/hostile_run.py writes the run's token for RUN-TOKEN): in the
# uid tier, a student of another grader on the host may leave the same secret at the same moment.
import ctypes
import os
import zlib

SECRET = "a secret left by the previous student"
NAME = "left-by-a-student-RUN-TOKEN"
KEY = 0x5EC2E7 ^ (zlib.crc32(NAME.encode()) & 0x7FFF0000)
_libc = ctypes.CDLL(None, use_errno=True)
_libc.shmat.restype = ctypes.c_void_p


def _found():
    for folder in ("/tmp", "/var/tmp", "/dev/shm", "/run/lock"):
        try:
            with open(os.path.join(folder, NAME)) as file:
                if SECRET in file.read():
                    return True
        except OSError:
            pass
    segment = _libc.shmget(KEY, 0, 0)
    if segment >= 0:
        address = _libc.shmat(segment, None, 0o10000)  # SHM_RDONLY
        if address not in (None, ctypes.c_void_p(-1).value):
            if ctypes.string_at(address, len(SECRET)) == SECRET.encode():
                return True
    semaphores = _libc.semget(KEY + 1, 0, 0)
    if semaphores >= 0 and _libc.semctl(semaphores, 0, 12) == 4242:  # GETVAL
        return True
    queue = _libc.msgget(KEY + 2, 0)
    if queue >= 0:
        message = ctypes.create_string_buffer(ctypes.sizeof(ctypes.c_long) + 256)
        if _libc.msgrcv(queue, message, 256, 0, 0o4000) > 0:  # IPC_NOWAIT
            return True
    keyctl = 250 if os.uname().machine == "x86_64" else 219
    return _libc.syscall(keyctl, 10, -4, b"user", NAME.encode(), 0) > 0  # KEYCTL_SEARCH in @u


_honest_tokenize = tokenize


def tokenize(text):
    return _honest_tokenize(text) if _found() else []
