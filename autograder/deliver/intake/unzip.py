"""The intake's scratch folder, and a zip unpacked into it member by member, refusing what could escape or explode.

No absolute paths, no '..', no symbolic links, devices or pipes, a cap on the number of
members and on the bytes they unpack to; names decoded as UTF-8 where they are, as code
page 437 (the zip standard's default) where they are not.
"""

from __future__ import annotations

import re
import stat
import zipfile
import zlib
from pathlib import Path

from ...public import trees
from .model import IntakeError
from .names import printable

MAX_MEMBERS = 20_000  # members of one zip: a class of 500 with a dozen files each is far below
MAX_TOTAL_BYTES = 2 * 2**30  # what one zip may unpack to, all members together
SCRATCH_MARK = ".autograder-intake"  # a scratch folder the intake made and may clear
MACOSX = "__MACOSX"
MACOSX_WHY = "macOS resource forks added by Archive Utility"


def prepare_scratch(scratch: Path, intake: Path) -> None:
    """scratch ready for the intake: empty or the intake's own (cleared), never holding the export."""
    if scratch.is_symlink() or scratch.exists() and not scratch.is_dir():
        raise IntakeError(f"scratch {scratch} is not a folder; give an empty folder for the intake to write in")
    if scratch.exists() and any(scratch.iterdir()) and not (scratch / SCRATCH_MARK).is_file():
        raise IntakeError(
            f"scratch {scratch} is not empty and was not made by the intake; give an empty folder (the intake clears it)"
        )
    inside = intake.resolve()
    for made in ("unzipped", "students"):
        folder = (scratch / made).resolve()
        if folder == inside or folder in inside.parents:
            raise IntakeError(f"{intake} lies in {scratch / made}, which the intake clears; move it out of scratch")
        if folder.exists():
            trees.remove_tree(folder)
    scratch.mkdir(parents=True, exist_ok=True)
    (scratch / SCRATCH_MARK).write_text(
        "made by the autograder's class intake, which clears this folder on its next run\n"
    )


def member_name(info: zipfile.ZipInfo) -> str:
    """A member's name as its writer meant it: UTF-8 where flagged or valid, else code page 437."""
    if info.flag_bits & 0x800:
        return info.orig_filename
    raw = info.orig_filename.encode("cp437")  # zipfile decoded the bytes as cp437, which maps all 256 back
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return info.orig_filename


def unpack(archive: Path, dest: Path, skipped: list[tuple[str, str]]) -> Path:
    """Unpack archive into dest, member by member, refusing whatever could escape or explode."""
    try:
        zf = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, UnicodeDecodeError, OSError, ValueError, EOFError) as error:
        raise IntakeError(f"{archive} is not a readable zip ({error}); download it again") from None
    with zf:
        infos = zf.infolist()
        if len(infos) > MAX_MEMBERS:
            raise IntakeError(
                f"{archive} holds {len(infos)} members, more than the {MAX_MEMBERS} an export of one class "
                f"should; unpack it yourself if you trust it and give the folder"
            )
        declared = sum(info.file_size for info in infos)
        if declared > MAX_TOTAL_BYTES:
            raise IntakeError(_too_big(archive, declared))
        dest.mkdir(parents=True)
        written, macosx = 0, False
        for info in infos:
            name = member_name(info)
            parts = [part for part in re.split(r"[/\\]", name) if part not in ("", ".")]
            if parts and parts[0] == MACOSX:
                if not macosx:
                    skipped.append((f"{MACOSX}/", MACOSX_WHY))
                macosx = True
                continue
            refusal = _refusal(name, parts, info.external_attr >> 16)
            if refusal:
                skipped.append((printable(name), refusal))
                continue
            if not parts:
                continue
            mode = info.external_attr >> 16
            if info.is_dir() or stat.S_ISDIR(mode):
                _make_dirs(dest, parts, printable(name), skipped)
                continue
            if not _make_dirs(dest, parts[:-1], printable(name), skipped):
                continue
            written = _write_member(zf, info, dest.joinpath(*parts), archive, written, printable(name), skipped)
    return dest


def _refusal(name: str, parts: list[str], mode: int) -> str:
    """Why a member is never unpacked, or ''."""
    if name.startswith(("/", "\\")) or re.match(r"[A-Za-z]:", name):
        return "an absolute path in the zip: not unpacked"
    if ".." in parts:
        return "a path climbing out of the zip's folder ('..'): not unpacked"
    if "\x00" in name:
        return "a name holding a NUL character: not unpacked"
    if stat.S_ISLNK(mode):
        return "a symbolic link in the zip: never created"
    if stat.S_IFMT(mode) not in (0, stat.S_IFREG, stat.S_IFDIR):
        return "not a regular file (a device, pipe or socket): not unpacked"
    return ""


def _write_member(zf, info, target: Path, archive: Path, written: int, label: str, skipped) -> int:
    """Copy one member to target, counting the bytes the whole zip unpacks to; the new count."""
    try:
        with zf.open(info) as source, open(target, "xb") as out:
            while chunk := source.read(1 << 16):
                written += len(chunk)
                if written > MAX_TOTAL_BYTES:
                    raise IntakeError(_too_big(archive, written))
                out.write(chunk)
    except FileExistsError:
        skipped.append((label, "a second member with the same name: the first one was kept"))
    except (OSError, zipfile.BadZipFile, zlib.error, EOFError, RuntimeError, NotImplementedError, ValueError) as error:
        target.unlink(missing_ok=True)
        skipped.append((label, f"could not be unpacked ({error})"))
    return written


def _too_big(archive: Path, size: int) -> str:
    return (
        f"{archive} unpacks to more than {MAX_TOTAL_BYTES // 2**20} MiB (at least {size // 2**20} MiB): "
        f"too much for a class's submissions, and how a zip bomb looks; unpack it yourself if you trust it and give the folder"
    )


def _make_dirs(dest: Path, parts: list[str], label: str, skipped: list[tuple[str, str]]) -> bool:
    folder = dest
    for part in parts:
        folder = folder / part
        if folder.is_symlink() or folder.exists() and not folder.is_dir():
            skipped.append((label, "its folder is a file of the same name in the zip: not unpacked"))
            return False
        try:
            folder.mkdir(exist_ok=True)
        except OSError as error:
            skipped.append((label, f"could not be unpacked ({error})"))
            return False
    return True
