"""The kit's one way to write an output file whole: beside it first, then renamed into place.

A reader (an LMS import, a browser, the next grade-all, Gradescope) never sees half a
file, and a run stopped in the middle leaves the previous file as it was. Text is written
as given (no newline translation: a CSV keeps the ``\\r\\n`` its writer chose), in UTF-8.
The file gets ``mode`` less the process's umask, as a file made with open() would.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO


@contextmanager
def atomic_file(path: Path, mode: int = 0o644) -> Iterator[IO[bytes]]:
    """A binary file that becomes ``path`` when the block ends without an error (and is removed when it raises)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "wb") as file:
            yield file
        os.chmod(temporary, mode & ~_umask())
        os.replace(temporary, path)
    except BaseException as error:
        os.unlink(temporary)
        if isinstance(error, OSError) and error.errno is not None and error.filename is None:
            error.filename = str(path)  # a write's error names no file: this one
        raise


def write_atomically(path: Path, data: str | bytes, mode: int = 0o644) -> None:
    """Write text (UTF-8, newlines as given) or bytes to path, whole."""
    with atomic_file(path, mode) as file:
        file.write(data.encode("utf-8") if isinstance(data, str) else data)


def _umask() -> int:
    umask = os.umask(0)  # reading the umask means setting it: set it straight back
    os.umask(umask)
    return umask
