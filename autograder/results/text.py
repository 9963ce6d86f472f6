"""Text that came from a student's code, made safe to store and to print.

Feedback quotes exception messages and lines of code the student wrote: those may be
megabytes long or hold terminal escape codes that rewrite an instructor's screen.
Everything shown passes through ``clean``: bounded, with control characters (other
than newlines and tabs) escaped visibly.
"""

from __future__ import annotations

import re

LIMIT = 2000  # characters of one message
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


def clean(text, limit: int = LIMIT) -> str:
    """text, at most ``limit`` characters (then '… (cut)'), with control characters shown as escapes."""
    text = str(text)
    if len(text) > limit:
        text = text[:limit] + "… (cut)"
    return _CONTROL.sub(lambda match: match.group().encode("unicode_escape").decode("ascii"), text)


def clean_name(text, limit: int = 200) -> str:
    """A name from outside (a file or folder name, possibly undecodable bytes) as printable text."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "backslashreplace")
    text = str(text).encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return clean(text.replace("\n", "\\n"), limit)
