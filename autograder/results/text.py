"""Text that came from a student's code, made safe to store and to print.

Feedback quotes exception messages and lines of code the student wrote: those may be
megabytes long or hold terminal escape codes that rewrite an instructor's screen.
Everything shown passes through ``clean``: bounded, with control characters (other
than newlines and tabs) shown escaped.
"""

from __future__ import annotations

import re

LIMIT = 2000  # characters of one message
CUT = "… (cut)"

# Shown escaped: C0 controls but tab and newline, DEL, C1 controls, the bidirectional
# overrides and isolates (they reorder what a reader sees), line and paragraph separators,
# and lone surrogates (they cannot be written as UTF-8).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _visible(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def clean(value, limit: int = LIMIT) -> str:
    """Text made safe to show: at most ``limit`` characters (then '… (cut)'), control characters escaped."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else str(value)
    if len(text) > limit:
        text = text[:limit] + CUT
    text = text.replace("\r\n", "\n")
    return _CONTROL.sub(_visible, text)


def clean_name(text, limit: int = 200) -> str:
    """A name from outside (a file or folder name, possibly undecodable bytes) as printable text."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "backslashreplace")
    text = str(text).encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return clean(text.replace("\n", "\\n"), limit)
