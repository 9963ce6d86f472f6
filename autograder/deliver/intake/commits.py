"""A clone's last commit (its id and the committer's time), read from .git without running git.

git is not run on a student's repository: its .git/config and hooks would be honoured,
and an object missing from a partial clone would be fetched. Instead the few files that
name HEAD's commit are read as git writes them (git's Documentation/gitformat-pack.txt,
gitrepository-layout.txt): HEAD and its ref (a file under refs/ or a line of
packed-refs), then the commit, loose (objects/xx/yyyy..., zlib) or in a pack (the
version 2 .idx's fan-out, sorted ids and offsets; in the .pack, the object's type and
size, then zlib data, a delta applied to its base where git stored one: a fresh clone
packs everything). No link is followed, nothing but a regular file is opened, and every
read is bounded: what cannot be read that way gives no time, never an error.

The committer's time is what the student's machine wrote when committing (git takes it
from the clock, or from GIT_COMMITTER_DATE): it says when the work claims to be done,
not when GitHub received it.
"""

from __future__ import annotations

import os
import re
import stat
import zlib
from datetime import datetime, timedelta, timezone
from pathlib import Path

MAX_FILE_BYTES = 1 << 16  # HEAD or a loose ref
MAX_OBJECT_BYTES = 1 << 20  # a commit (or a delta) inflated, packed-refs
MAX_DELTA_CHAIN = 50  # git's default pack.depth
MAX_PACKS = 64
OBJECT_ID = re.compile(r"[0-9a-f]{40}")
REF_NAME = re.compile(r"refs/[A-Za-z0-9._/-]+")
COMMITTER = re.compile(rb"^committer .*> (?P<seconds>-?\d+) (?P<zone>[+-]\d{4})$", re.MULTILINE)
COMMIT, OFS_DELTA, REF_DELTA = 1, 6, 7


class Unreadable(Exception):
    """Something in .git is not as git writes it: no time is given."""


def last_commit(repository: Path) -> tuple[str, str]:
    """(HEAD's commit id, its committer's time in ISO 8601) of a clone; ("", "") where .git does not say."""
    git = Path(repository) / ".git"
    try:
        if not _plain(git, "", stat.S_ISDIR):
            return "", ""
        commit = head(git)
        return commit, committed_at(read_commit(git, commit))
    except (Unreadable, OSError, zlib.error, ValueError, OverflowError, IndexError):
        return "", ""


def head(git: Path) -> str:
    """The commit HEAD names: directly (a detached HEAD) or through its branch's ref."""
    name = "HEAD"
    for _ in range(5):  # HEAD -> refs/heads/main, at most a few links deep
        text = _read_ref(git, name)
        if OBJECT_ID.fullmatch(text):
            return text
        if not text.startswith("ref: ") or not REF_NAME.fullmatch(text[5:]) or ".." in text:
            raise Unreadable(f"{name} holds no commit id nor ref")
        name = text[5:]
    raise Unreadable("HEAD's refs go round")


def _read_ref(git: Path, name: str) -> str:
    path = _plain(git, name, stat.S_ISREG)
    if path:
        return _read(path, MAX_FILE_BYTES).decode("ascii").strip()
    packed = _plain(git, "packed-refs", stat.S_ISREG)
    if name != "HEAD" and packed:
        for line in _read(packed, MAX_OBJECT_BYTES).decode("ascii", "replace").splitlines():
            commit, _, ref = line.partition(" ")
            if ref == name and OBJECT_ID.fullmatch(commit):
                return commit
    raise Unreadable(f"no ref {name}")


def committed_at(commit: bytes) -> str:
    """The committer's time of a commit object's text, in ISO 8601 with its zone."""
    header = commit.split(b"\n\n", 1)[0]
    found = COMMITTER.search(header)
    if not found:
        raise Unreadable("a commit without a committer line")
    zone = found["zone"].decode()
    offset = timedelta(hours=int(zone[1:3]), minutes=int(zone[3:])) * (-1 if zone[0] == "-" else 1)
    return datetime.fromtimestamp(int(found["seconds"]), timezone(offset)).isoformat()


def read_commit(git: Path, object_id: str) -> bytes:
    """A commit object's text, loose or packed."""
    loose = _plain(git, f"objects/{object_id[:2]}/{object_id[2:]}", stat.S_ISREG)
    if loose:
        header, _, body = _inflate(_read(loose, MAX_OBJECT_BYTES), MAX_OBJECT_BYTES + 64).partition(b"\0")
        kind = COMMIT if header.startswith(b"commit ") else 0
    else:
        kind, body = _packed(git, object_id, 0)
    if kind != COMMIT:
        raise Unreadable(f"{object_id} is not a commit")
    return body


def _packed(git: Path, object_id: str, depth: int) -> tuple[int, bytes]:
    packs = _plain(git, "objects/pack", stat.S_ISDIR)
    if not packs:
        raise Unreadable(f"{object_id} is in no pack")
    for index in sorted(packs.glob("pack-*.idx"))[:MAX_PACKS]:
        pack = index.with_suffix(".pack")
        if not (_plain(packs, index.name, stat.S_ISREG) and _plain(packs, pack.name, stat.S_ISREG)):
            continue
        offset = _offset(index, bytes.fromhex(object_id))
        if offset is not None:
            return _entry(git, pack, index, offset, depth)
    raise Unreadable(f"{object_id} is in no pack")


def _offset(index: Path, wanted: bytes) -> int | None:
    """Where an object starts in its pack, from a version 2 .idx (None if that pack does not hold it)."""
    with _open(index) as file:
        if file.read(8) != b"\xfftOc\x00\x00\x00\x02":
            raise Unreadable(f"{index.name} is not a version 2 pack index")
        fanout = [int.from_bytes(file.read(4), "big") for _ in range(256)]
        count = fanout[255]
        low, high = fanout[wanted[0] - 1] if wanted[0] else 0, fanout[wanted[0]]
        while low < high:  # the ids are sorted: a binary search
            middle = (low + high) // 2
            file.seek(8 + 1024 + 20 * middle)
            here = file.read(20)
            if here == wanted:
                file.seek(8 + 1024 + 24 * count + 4 * middle)
                offset = int.from_bytes(file.read(4), "big")
                if offset & 0x80000000:  # an offset past 2 GiB, in the table of 8-byte offsets
                    file.seek(8 + 1024 + 28 * count + 8 * (offset & 0x7FFFFFFF))
                    offset = int.from_bytes(file.read(8), "big")
                return offset
            low, high = (middle + 1, high) if here < wanted else (low, middle)
    return None


def _entry(git: Path, pack: Path, index: Path, offset: int, depth: int) -> tuple[int, bytes]:
    """(type, content) of the pack's object at offset, its delta applied to its base."""
    if depth > MAX_DELTA_CHAIN:
        raise Unreadable("a delta chain longer than git makes")
    with _open(pack) as file:
        file.seek(offset)
        byte = file.read(1)[0]
        kind, size, shift = (byte >> 4) & 7, byte & 15, 4
        while byte & 0x80:
            byte = file.read(1)[0]
            size |= (byte & 0x7F) << shift
            shift += 7
        if size > MAX_OBJECT_BYTES:
            raise Unreadable("an object larger than a commit")
        if kind == OFS_DELTA:
            byte = file.read(1)[0]
            back = byte & 0x7F
            while byte & 0x80:
                byte = file.read(1)[0]
                back = ((back + 1) << 7) | (byte & 0x7F)
            base = _entry(git, pack, index, offset - back, depth + 1)
        elif kind == REF_DELTA:
            base = _packed(git, file.read(20).hex(), depth + 1)
        data = _inflate_stream(file, size)
    if kind in (OFS_DELTA, REF_DELTA):
        return base[0], apply_delta(base[1], data)
    return kind, data


def apply_delta(base: bytes, delta: bytes) -> bytes:
    """git's delta: the base's and the result's sizes, then copies from the base and inserted bytes."""
    at = 0

    def size() -> int:
        nonlocal at
        value, shift = 0, 0
        while True:
            byte = delta[at]
            at += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return value

    if size() != len(base):
        raise Unreadable("a delta for another base")
    target = size()
    if target > MAX_OBJECT_BYTES:
        raise Unreadable("an object larger than a commit")
    out = bytearray()
    while at < len(delta):
        op = delta[at]
        at += 1
        if op & 0x80:  # copy from the base: offset and size, each byte present where its bit is set
            start = length = 0
            for bit in range(4):
                if op & (1 << bit):
                    start |= delta[at] << (8 * bit)
                    at += 1
            for bit in range(3):
                if op & (0x10 << bit):
                    length |= delta[at] << (8 * bit)
                    at += 1
            length = length or 0x10000
            if start + length > len(base):
                raise Unreadable("a delta copying past its base")
            out += base[start : start + length]
        elif op:  # insert the next op bytes
            out += delta[at : at + op]
            at += op
        else:
            raise Unreadable("a delta with a reserved instruction")
        if len(out) > target:
            raise Unreadable("a delta longer than it says")
    if len(out) != target:
        raise Unreadable("a delta shorter than it says")
    return bytes(out)


def _inflate(data: bytes, limit: int) -> bytes:
    inflater = zlib.decompressobj()
    out = inflater.decompress(data, limit)
    if inflater.unconsumed_tail:
        raise Unreadable("an object larger than a commit")
    return out


def _inflate_stream(file, size: int) -> bytes:
    """The zlib stream at the file's position, which must inflate to size bytes."""
    inflater, out = zlib.decompressobj(), b""
    while not inflater.eof:
        chunk = file.read(1 << 14)  # inflates to 16 MiB at most: zlib's ratio is bounded
        if not chunk:
            raise Unreadable("a pack that ends inside an object")
        out += inflater.decompress(chunk)
        if len(out) > size:
            raise Unreadable("an object larger than its pack says")
    if len(out) != size:
        raise Unreadable("an object smaller than its pack says")
    return out


def _plain(root: Path, relative: str, kind) -> Path | None:
    """root/relative where it is of that kind (a folder, a regular file) and no part of it below root is a link."""
    path = root
    parts = [part for part in relative.split("/") if part]
    try:
        for part in parts[:-1]:
            path = path / part
            if not stat.S_ISDIR(os.lstat(path).st_mode):
                return None
        path = path / parts[-1] if parts else path
        return path if kind(os.lstat(path).st_mode) else None
    except OSError:
        return None


def _open(path: Path):
    return open(os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0)), "rb")


def _read(path: Path, limit: int) -> bytes:
    with _open(path) as file:
        data = file.read(limit + 1)
    if len(data) > limit:
        raise Unreadable(f"{path.name} is larger than git writes it")
    return data
