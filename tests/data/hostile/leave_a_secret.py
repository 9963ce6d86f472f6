# Leaves a secret behind for whoever is graded next, in every place a later process
# might look: files in /tmp, /var/tmp, /dev/shm (POSIX shared memory) and /run/lock, a
# System V shared-memory segment, semaphore set and message queue (open to every uid),
# its uid's keyring. Its tokenize is honest once the secret is planted in /tmp, which
# every tier lets it write. tests/data/hostile/look_for_the_secret.py looks for it. Its names
# hold the grading run's token (tests/sandbox/hostile_run.py writes it for RUN-TOKEN): only a
# student of the same run looks for them.
import ctypes
import os
import zlib

SECRET = "a secret left by the previous student"
NAME = "left-by-a-student-RUN-TOKEN"
KEY = 0x5EC2E7 ^ (zlib.crc32(NAME.encode()) & 0x7FFF0000)  # the System V key both sides of one run know
_libc = ctypes.CDLL(None, use_errno=True)
_libc.shmat.restype = ctypes.c_void_p
IPC_CREAT = 0o1000


def _plant():
    for folder in ("/tmp", "/var/tmp", "/dev/shm", "/run/lock"):
        try:
            path = os.path.join(folder, NAME)
            with open(path, "w") as file:
                file.write(SECRET)
            os.chmod(path, 0o666)
        except OSError:
            pass
    segment = _libc.shmget(KEY, 4096, IPC_CREAT | 0o666)
    if segment >= 0:
        address = _libc.shmat(segment, None, 0)
        if address not in (None, ctypes.c_void_p(-1).value):
            ctypes.memmove(address, SECRET.encode() + b"\0", len(SECRET) + 1)
            _libc.shmdt(ctypes.c_void_p(address))
    semaphores = _libc.semget(KEY + 1, 1, IPC_CREAT | 0o666)
    if semaphores >= 0:
        _libc.semctl(semaphores, 0, 16, 4242)  # SETVAL
    queue = _libc.msgget(KEY + 2, IPC_CREAT | 0o666)
    if queue >= 0:
        message = ctypes.create_string_buffer(ctypes.sizeof(ctypes.c_long) + len(SECRET))
        ctypes.memmove(message, ctypes.byref(ctypes.c_long(1)), ctypes.sizeof(ctypes.c_long))
        ctypes.memmove(ctypes.addressof(message) + ctypes.sizeof(ctypes.c_long), SECRET.encode(), len(SECRET))
        _libc.msgsnd(queue, message, len(SECRET), 0o4000)  # IPC_NOWAIT
    _libc.syscall(248 if os.uname().machine == "x86_64" else 217, b"user", NAME.encode(), SECRET.encode(), len(SECRET), -4)  # add_key to @u


_plant()
_honest_tokenize = tokenize


def tokenize(text):
    try:
        with open(os.path.join("/tmp", NAME)) as file:
            planted = file.read() == SECRET
    except OSError:
        planted = False
    return _honest_tokenize(text) if planted else []
