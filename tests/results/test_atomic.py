"""Is every output file written whole, with the mode a plain open() would give, and nothing left beside it?"""

import errno
import os
import stat
from pathlib import Path

import pytest

from autograder.results.atomic import atomic_file, write_atomically

from ..sandbox.forked import in_a_child


def test_text_and_bytes_are_written_as_given(tmp_path):
    """Is text written in UTF-8 with its newlines as given (a CSV's \\r\\n stays), and bytes as they are?"""
    write_atomically(tmp_path / "a" / "summary.csv", "key,name\r\nada,Ada Lovelace é\r\n")
    assert (tmp_path / "a" / "summary.csv").read_bytes() == "key,name\r\nada,Ada Lovelace é\r\n".encode()
    write_atomically(tmp_path / "b.zip", b"PK\x03\x04")
    assert (tmp_path / "b.zip").read_bytes() == b"PK\x03\x04"


@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_the_mode_follows_the_umask(tmp_path, umask):
    """Does the file get 0644 less the umask (mkstemp's own 0600 would hide a page meant to be served)?"""
    old = os.umask(umask)
    try:
        write_atomically(tmp_path / "feedback.html", "<p>")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "feedback.html").stat().st_mode) == 0o644 & ~umask


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    """When writing fails half way, is the earlier file intact and no temporary file left beside it?"""
    path = tmp_path / "report.txt"
    path.write_text("the earlier report")
    with pytest.raises(RuntimeError), atomic_file(path) as file:
        file.write(b"half a rep")
        raise RuntimeError("stopped")
    assert path.read_text() == "the earlier report" and os.listdir(tmp_path) == ["report.txt"]
    with pytest.raises(UnicodeEncodeError):
        write_atomically(path, "a lone surrogate \udc80")
    assert path.read_text() == "the earlier report" and os.listdir(tmp_path) == ["report.txt"]


def _write_past_the_file_size_limit(path: str) -> list:
    import resource
    import signal

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails (EFBIG) instead of ending the process
    resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))
    try:
        write_atomically(Path(path), "x" * 4096)
    except OSError as error:
        return [error.errno, error.filename, os.listdir(os.path.dirname(path))]
    return ["written"]


def test_a_write_that_fails_names_the_file_it_was_writing(tmp_path):
    """A write's own error (a full disk, a file size limit) names no file: does the error raised name the file being
    written, the temporary gone, so that the message a person reads says where?"""
    path = tmp_path / "feedback.html"
    assert in_a_child(lambda: _write_past_the_file_size_limit(str(path))) == [errno.EFBIG, str(path), []]
