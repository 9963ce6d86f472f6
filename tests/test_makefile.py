"""Does the Makefile deal the lock into its install shares whole: every requirement in exactly one share, with the
lines that continue it and the lock's pip options, and pip and setuptools in the share installed first? Does it
name a disk without room for the venv before it starts?"""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from autograder import KIT_ROOT

LOCK = """\
# a comment, and the options every share needs
--index-url https://example.org/simple
aaa==1.0 \\
    --hash=sha256:1111 \\
    --hash=sha256:2222
    # via bbb
bbb==2.0 ; sys_platform == 'darwin'
    # via
    #   ccc
ccc==3.0
pip==24.0
torch==2.5.1
ddd==4.0 \\
    --hash=sha256:4444
setuptools==80.0 ; python_version >= '3.9'
"""


def shares(lock: Path, folder: Path, n: int) -> dict[str, str]:
    """The Makefile's SPLIT_LOCK run on a lock, as the venv's recipe runs it: each share's text, by file name."""
    if shutil.which("make") is None or shutil.which("awk") is None:
        pytest.skip("make and awk are what `make test` runs on; this machine lacks one")
    folder.mkdir()
    rule = f"split: ; @awk -v n={n} -v dir={folder} '$(SPLIT_LOCK)' {lock} {lock}"
    done = subprocess.run(
        ["make", "-s", "--no-print-directory", "-f", str(KIT_ROOT / "Makefile"), "--eval", rule, "split"],
        capture_output=True,
        text=True,
        cwd=KIT_ROOT,
    )
    assert done.returncode == 0, done.stderr
    return {path.name: path.read_text() for path in sorted(folder.iterdir())}


def requirements(text: str) -> list[str]:
    return [line for line in text.splitlines() if re.match(r"[A-Za-z0-9]", line)]


def test_a_lock_is_dealt_whole_with_its_continuations_and_options(tmp_path):
    lock = tmp_path / "requirements.lock"
    lock.write_text(LOCK)
    found = shares(lock, tmp_path / "shares", 2)
    options = "--index-url https://example.org/simple\n"
    assert found == {
        "0.txt": options
        + "aaa==1.0 \\\n    --hash=sha256:1111 \\\n    --hash=sha256:2222\nccc==3.0\nddd==4.0 \\\n    --hash=sha256:4444\n",
        "1.txt": options + "bbb==2.0 ; sys_platform == 'darwin'\ntorch==2.5.1\n",
        "first.txt": options + "pip==24.0\nsetuptools==80.0 ; python_version >= '3.9'\n",
    }


def test_the_kits_lock_lands_in_the_shares_each_requirement_once(tmp_path):
    lock = KIT_ROOT / "requirements.lock"
    found = shares(lock, tmp_path / "shares", 8)
    dealt = sorted(line for text in found.values() for line in requirements(text))
    assert dealt == sorted(requirements(lock.read_text()))
    assert len([name for name in found if name != "first.txt"]) == 8


def test_a_disk_without_room_for_the_venv_is_named_before_anything_is_installed(tmp_path):
    """Where the venv's disk has less room than it needs, does make say how much is free and what to do, and stop
    before it makes the venv (where pip stopped half way with "No space left on device")?"""
    if shutil.which("make") is None:
        pytest.skip("make is what `make test` runs on; this machine lacks it")
    venv = tmp_path / "venv"
    done = subprocess.run(
        ["make", "--no-print-directory", f"{venv}/.installed", f"VENV={venv}", "VENV_GIB=1e9"],
        capture_output=True,
        text=True,
        cwd=KIT_ROOT,
    )
    assert done.returncode != 0
    assert re.search(r"needs about 1e9 GiB of disk .* its disk has [0-9.]+ GiB free", done.stderr), done.stderr
    assert "make VENV=/path/with/space/venv" in done.stderr
    assert not venv.exists()
