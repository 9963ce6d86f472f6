"""Names from an export: safe to print, and turned into keys (folder names) that are safe to write."""

from __future__ import annotations

import os
import re
import unicodedata
from pathlib import Path

MAX_KEY_LENGTH = 64

# grade-all writes these beside the students' folders (summary.csv, report.txt, report.png
# and the like), and Windows reserves the device names: no key is one of them, with or
# without an extension.
RESERVED_STEMS = frozenset(
    {"summary", "report", "results", "feedback", "gradebook", "grades", "index", "intake", "scratch", "class", "logs"}
    | {"con", "prn", "aux", "nul"}
    | {f"{device}{n}" for device in ("com", "lpt") for n in range(1, 10)}
)


def printable(text: str) -> str:
    """text, safe to print: undecodable bytes as \\xNN, control and format characters escaped."""
    out = []
    for char in unicodedata.normalize("NFC", text):
        code = ord(char)
        if 0xDC80 <= code <= 0xDCFF:  # a byte os.fsdecode could not decode (surrogateescape)
            out.append(f"\\x{code - 0xDC00:02x}")
        elif char == "\\":
            out.append("\\\\")
        elif unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            out.append(
                {"\n": "\\n", "\t": "\\t", "\r": "\\r"}.get(char)
                or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
            )
        else:
            out.append(char)
    return "".join(out)


def slug(text: str, limit: int = MAX_KEY_LENGTH) -> str:
    """text as ASCII letters, digits, '-', '_' and '.': accents dropped, anything else '_'."""
    out = []
    for char in unicodedata.normalize("NFKD", text):
        if char.isascii() and (char.isalnum() or char in "-_."):
            out.append(char)
        elif not unicodedata.combining(char):
            out.append("_")
    result = re.sub(r"_+", "_", re.sub(r"\.{2,}", ".", "".join(out)))
    return result.strip("._-")[:limit].strip("._-")


def key_base(name: str, student_id: str) -> str:
    """A student's key before it is made unique: the name, then the id where it differs."""
    base, ident = slug(name, 40), slug(student_id, 40)
    if ident and ident.casefold() != base.casefold():
        base = f"{base}-{ident}" if base else ident
    base = base or "student"
    if base.split(".")[0].casefold() in RESERVED_STEMS:
        base = f"student-{base}"
    return base[:MAX_KEY_LENGTH].rstrip("._-")


def unique(base: str, used: set[str]) -> str:
    """base, or base-2, base-3, ...: the first not in used (ignoring case), which it joins."""
    key, n = base, 1
    while key.casefold() in used:
        n += 1
        key = f"{base[: MAX_KEY_LENGTH - len(str(n)) - 1]}-{n}"
    used.add(key.casefold())
    return key


def safe_file_name(name: str, fallback: str) -> str:
    """A single path component: no separators, not '.' or '..', not empty."""
    name = re.split(r"[/\\]", name.replace("\x00", ""))[-1].strip()
    return name if name not in ("", ".", "..") else fallback


def common_prefix(names: list[str], separator: str = "_") -> str:
    """The longest prefix all names share, cut after its last separator; '' for fewer than two names."""
    if len(names) < 2:
        return ""
    shared = os.path.commonprefix(names)
    cut = shared.rfind(separator)
    prefix = shared[: cut + 1] if cut >= 0 else ""
    return prefix if all(len(n) > len(prefix) for n in names) else ""


def dedupe(files: list[tuple[Path, str]]) -> list[tuple[Path, str]]:
    """Distinct names in one folder: a second 'mha.ipynb' of one attempt becomes 'mha-2.ipynb'."""
    seen: set[str] = set()
    out = []
    for path, name in files:
        candidate, n = name, 1
        while candidate.casefold() in seen:
            n += 1
            stem, dot, ext = name.rpartition(".")
            candidate = f"{stem}-{n}.{ext}" if dot and stem else f"{name}-{n}"
        seen.add(candidate.casefold())
        out.append((path, candidate))
    return out
