# Tries to change its own submission while it is graded: a file and a __pycache__
# beside its code, bytecode written by an import, a new mode and time on its file.
# Its tokenize is honest only if its folder is as it was handed in, so it loses
# points wherever a write succeeds.
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))


def _listing():
    return sorted((n, os.lstat(os.path.join(_HERE, n)).st_mtime_ns) for n in os.listdir(_HERE))


_BEFORE = _listing()
for _attempt in (
    lambda: open(os.path.join(_HERE, "planted.txt"), "w").close(),
    lambda: os.mkdir(os.path.join(_HERE, "__pycache__")),
    lambda: os.chmod(__file__, 0o777),
    lambda: os.utime(__file__, (0, 0)),
):
    try:
        _attempt()
    except OSError:
        pass
sys.dont_write_bytecode = False
try:
    sys.path.insert(0, _HERE)
    __import__(os.path.basename(__file__).removesuffix(".py"))  # imports itself as a module: bytecode, if it can
except Exception:
    pass
finally:
    sys.dont_write_bytecode = True
_honest_tokenize = tokenize


def tokenize(text):
    return _honest_tokenize(text) if _listing() == _BEFORE else []
