"""What the intake's tests share: an export built as a folder or a zip, and questions asked of the intake it gives."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from autograder.deliver.intake import RESERVED_STEMS, names

NOTEBOOK = b'{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'

# A submission_metadata.yml of a few hundred bytes whose aliases expand to 9**9 strings.
BILLION_LAUGHS = (
    "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8))
    + "submission_1:\n  :submitters: *i\n"
)


def build(tmp_path: Path, files: dict[str, bytes], *, as_zip: bool, name: str = "export") -> Path:
    """files (path -> bytes) as a folder, or as a zip of that folder's contents."""
    if as_zip:
        archive = tmp_path / f"{name}.zip"
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
            for relative, data in files.items():
                zf.writestr(relative, data)
        return archive
    root = tmp_path / name
    for relative, data in files.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if not relative.endswith("/"):
            target.write_bytes(data)
    return root


def by_key(intake) -> dict:
    return {s.key: s for s in intake.submissions}


def why(intake, entry_part: str) -> str:
    """The reason skipped gives for the first entry holding entry_part; fails if none does."""
    return skipped_why(intake.skipped, entry_part)


def skipped_why(skipped: list[tuple[str, str]], entry_part: str) -> str:
    reasons = [reason for entry, reason in skipped if entry_part in entry]
    assert reasons, f"{entry_part!r} is not in skipped: {skipped}"
    return reasons[0]


def files_of(submission) -> list[str]:
    return sorted(p.name for p in submission.path.iterdir())


def assert_safe_keys(intake) -> None:
    keys = [s.key for s in intake.submissions]
    assert len({k.casefold() for k in keys}) == len(keys), keys
    for key in keys:
        assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", key), key
        assert key.split(".")[0].casefold() not in RESERVED_STEMS, key
        assert len(key) <= names.MAX_KEY_LENGTH


def git_repository(folder: Path, files: dict[str, bytes], when: str) -> str:
    """folder as a git repository whose one commit holds files, committed at when (git's date format); its id.

    Skips the test where git is not installed: the intake itself never runs git."""
    git = shutil.which("git")
    if git is None:
        pytest.skip("git is not installed")
    folder.mkdir(parents=True, exist_ok=True)
    for relative, data in files.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_bytes(data)
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(folder),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Octo Cat",
        "GIT_AUTHOR_EMAIL": "octocat@example.org",
        "GIT_COMMITTER_NAME": "Octo Cat",
        "GIT_COMMITTER_EMAIL": "octocat@example.org",
        "GIT_AUTHOR_DATE": when,
        "GIT_COMMITTER_DATE": when,
    }
    for command in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "my work"]):
        subprocess.run([git, "-C", str(folder), *command], env=env, check=True, capture_output=True)
    done = subprocess.run([git, "-C", str(folder), "rev-parse", "HEAD"], env=env, check=True, capture_output=True)
    return done.stdout.decode().strip()
