# Looks for other students' work: the paths on every process's command line (grade-all's
# export and --out folder), the grader's scratch folders in /tmp and /var/tmp, each
# searched for a classmate's marker in the names of what they hold and in their files.
# Its own tokenize is wrong, so it scores only if it read something of a classmate
# (tests/sandbox/test_classmates.py plants the marker). The marker holds the grading
# run's token (written for RUN-TOKEN), so that a classmate another test plants in a place
# every user may read, graded at the same moment on this host, is not this run's to find.
import os
import time

MARKER = "CLASSMATE" + "-MARKER-" + "RUN-TOKEN"  # never written whole in this file


def _places():
    """Paths named on command lines, the grader's first (its command names the kit), then the scratch."""
    found = {}
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as file:
                words = [os.fsdecode(word) for word in file.read().split(b"\0")]
        except OSError:
            continue
        first = any("autograder" in word for word in words)
        for path in words:
            if path.startswith("/") and os.path.exists(path) and path not in ("/", "/proc"):
                found[path] = min(found.get(path, 1), 0 if first else 1)
    for scratch in ("/tmp", "/var/tmp"):
        try:
            found.update({os.path.join(scratch, n): 1 for n in os.listdir(scratch) if n.startswith("autograder")})
        except OSError:
            pass
    return sorted(found, key=lambda path: (found[path], path))


def _holds_marker(place, deadline):
    """Whether the marker is in a name or a file under place (its first 500 files, until the deadline)."""
    files = 0
    for folder, folders, names in os.walk(place) if os.path.isdir(place) else [("", [], [place])]:
        if any(MARKER in name for name in folders + names):
            return True
        for name in names:
            files += 1
            if files > 500 or time.monotonic() > deadline:
                return False
            try:
                with open(os.path.join(folder, name), "rb") as file:
                    if MARKER.encode() in file.read(1 << 20):
                        return True
            except OSError:
                continue
    return False


def _read_a_classmate():
    deadline = time.monotonic() + 2
    return any(_holds_marker(place, deadline) for place in _places())


_honest_tokenize = tokenize


def tokenize(text):
    return _honest_tokenize(text) if _read_a_classmate() else []
