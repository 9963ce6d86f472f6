"""Text that came from a student's code, made safe to store, to print and to render.

Feedback quotes exception messages, file names and lines of code the student wrote:
those may be megabytes long, hold terminal escape codes that rewrite an instructor's
screen, or hold markup (a newline and ``### mha: 40 of 40 points``, a ``|`` that adds a
table column, ``<script>``, ``[x](javascript:...)``) that a Markdown or HTML viewer would
obey. Every such text passes through one function per place it is shown, and only
through these:

==============  ===========================================================================
``clean``       stored or printed as a block (results.json, a terminal): bounded, control
                characters shown escaped (``\\x1b``), newlines kept
``one_line``    one line of plain text (report.txt, a terminal line): also newlines and tabs
                shown escaped, so that no text adds a line
``md_text``     Markdown prose, a table cell or a heading: on one line, every character that
                could start markup backslash-escaped
``md_name``     a name in Markdown: an identifier as inline code, anything else as md_text
``md_block``    a Markdown code block: fenced with more backticks than the text holds
``html_text``   HTML text or an attribute value: ``& < > " '`` as entities
==============  ===========================================================================

The Markdown functions follow CommonMark and GitHub's tables (a backslash before any
ASCII punctuation is that character, literally).
"""

from __future__ import annotations

import html
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


def one_line(value, limit: int = LIMIT) -> str:
    """Text on one line of plain text: clean, with newlines and tabs shown as \\n and \\t."""
    return clean(value, limit).replace("\n", "\\n").replace("\t", "\\t")


def clean_name(text, limit: int = 200) -> str:
    """A name from outside (a file or folder name, possibly undecodable bytes) as printable text on one line."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "backslashreplace")
    text = str(text).encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return one_line(text, limit)


# ------------------------------------------------------------------ Markdown

# Every ASCII character that can start or end inline markup: emphasis, code, links and
# images (their "(" and "!" do nothing without a "["), autolinks and HTML, entities, table
# cells, strikethrough, a heading's closing #s.
_MD_INLINE = re.compile(r"([\\`*_\[\]<>#|~&])")
# What makes a line a block of its own when it starts it: a list item, a heading
# underline, an ordered list item ("1." or "1)"); "*", ">" and "#" are escaped already.
_MD_BULLET = re.compile(r"^([-+=])")
# What GitHub's Markdown links by itself: "scheme://..." and "www.x" (its autolink extension).
_MD_AUTOLINK = re.compile(r"(?<=[A-Za-z])(:)(?=//)|(?<![\w.])([wW]{3})(\.)")
_MD_ORDERED = re.compile(r"^(\d+)([.)])")


def md_text(value, limit: int = LIMIT) -> str:
    """Text as Markdown prose on one line: it renders as the same characters and as nothing else.

    Whitespace runs (newlines included) become one space; every character that could
    start markup is backslash-escaped, and so is one that would make the line a block
    (a list item, a heading underline) where the text starts a line, or a bare address
    a link (the ":" of "https://", the "." of "www.").
    """
    text = " ".join(clean(value, limit).split())
    text = _MD_INLINE.sub(r"\\\1", text)
    text = _MD_AUTOLINK.sub(lambda m: "\\:" if m.group(1) else m.group(2) + "\\.", text)
    return _MD_ORDERED.sub(r"\1\\\2", _MD_BULLET.sub(r"\\\1", text))


def md_name(value, limit: int = 300) -> str:
    """A name (an exercise, a known mistake's id) as Markdown: an identifier as code, anything else as md_text."""
    text = " ".join(clean(value, limit).split())
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", text):
        return f"`{text}`"
    return md_text(text) or "(unnamed)"


def md_block(value, limit: int = LIMIT, info: str = "text") -> str:
    """Text as a fenced Markdown code block (no trailing newline): no backtick run in it can close the fence."""
    text = clean(value, limit)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"


# ------------------------------------------------------------------ HTML


def html_text(value, limit: int = LIMIT) -> str:
    """Text as HTML element content or a quoted attribute value: clean, then & < > " ' as entities."""
    return html.escape(clean(value, limit), quote=True)
