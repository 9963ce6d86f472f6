# Looks for the instructor's reference in memory and on disk, and copies its tokenize; its
# own tokenize is wrong, so it can only score by cheating. On disk: any reference.py that
# defines a tokenize, in the folder of the kit that grades it (tests/sandbox/hostile_run.py
# writes that folder for KIT-ROOT) and where graders keep theirs (Gradescope's /autograder,
# the sandbox, home folders); searched once a process (kept on the sys module: the code may
# be loaded afresh for each check), to stay within the time limit. A copy elsewhere that
# other users may read (another checkout, one in /tmp) is the host's to close: doctor names it.
import gc
import os
import sys


def _mine(function):
    """This file's own functions, of this load or an earlier one: its name holds "reference" too."""
    return getattr(getattr(function, "__code__", None), "co_filename", None) == tokenize.__code__.co_filename


def _in_memory():
    for module in list(sys.modules.values()):
        try:  # a module's own __getattr__ may raise anything (one of PyTorch's recurses without end)
            found = getattr(module, "tokenize", None)
        except Exception:
            continue
        if callable(found) and not _mine(found) and "reference" in str(getattr(module, "__file__", "")):
            return found
    for thing in gc.get_objects():
        if (
            callable(thing)
            and not _mine(thing)
            and getattr(thing, "__name__", "") == "tokenize"
            and "reference" in str(getattr(thing, "__code__", ""))
        ):
            return thing
    return None


def _on_disk():
    seen = 0
    for root in ("KIT-ROOT", "/autograder", "/sandbox", "/root", os.path.expanduser("~")):
        for folder, _, files in os.walk(root):
            seen += len(files)
            if seen > 50000:  # stay within the time limit
                return None
            if "reference.py" in files:
                namespace = {}
                try:
                    exec(open(os.path.join(folder, "reference.py")).read(), namespace)
                except Exception:
                    continue
                if callable(namespace.get("tokenize")):
                    return namespace["tokenize"]
    return None


def _steal():
    if not hasattr(sys, "_reference_on_disk"):
        sys._reference_on_disk = _on_disk()
    return _in_memory() or sys._reference_on_disk


def tokenize(text):
    stolen = _steal()
    return stolen(text) if stolen else []
