"""Errors the kit reports to a person: each says what is wrong and what to do."""

import errno


class KitError(Exception):
    """Bad input or set-up. The command prints the message and exits with status 2."""


NO_ROOM = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS})  # a disk that takes no more: full, over quota, read-only


def no_room(error: BaseException) -> bool:
    """Whether the error is a file the disk takes no more of: nothing the kit or a student did, and every later
    write there fails the same way. Only an error that names its file: the kernel says ENOSPC of limits that are no
    disk too (inotify watches, a cgroup's), which stay the kit's own failure, traceback and all."""
    return isinstance(error, OSError) and error.errno in NO_ROOM and bool(error.filename or error.filename2)


def no_room_message(error: OSError) -> str:
    """What the person must do about an error no_room() admits (it names its file); what the kit wrote whole stays."""
    written = error.filename2 or error.filename  # a copy's or a rename's target is the second
    fix = (
        "Make that folder writable, or have the command write elsewhere"
        if error.errno == errno.EROFS
        else "Free some space on that disk (or raise the quota there), or have the command write elsewhere"
    )
    return (
        f"{written} could not be written: {error.strerror}. {fix} (grade-all's --out; TMPDIR for its temporary files). What was written "
        "whole is kept: the same command again resumes (grade-all grades only the students whose results it had not "
        "written)."
    )
