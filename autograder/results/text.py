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
``csv_cell``    a cell of a CSV file that a spreadsheet opens: on one line, and a cell a
                spreadsheet could run as a formula starts with ``'``
==============  ===========================================================================

The Markdown functions follow CommonMark and GitHub's tables (a backslash before any
ASCII punctuation is that character, literally). ``csv_cell`` and ``csv_document`` follow
OWASP's "CSV Injection" (owasp.org/www-community/attacks/CSV_Injection): a cell that
starts with ``= + - @``, a tab, a carriage return or a line feed gets a leading ``'``, and
every field is quoted, so that a separator inside a cell (``;`` where a spreadsheet's
locale splits on it) cannot start a cell of its own.
"""

from __future__ import annotations

import csv
import html
import io
import re
import unicodedata
from collections.abc import Iterable, Sequence

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


# ------------------------------------------------------------------ CSV

# What a spreadsheet (Excel, LibreOffice, Google Sheets) may read as the start of a formula,
# once the cell's first character is normalised as NFKC normalises it (the full-width
# ＝ ＋ － ＠, the small ﹦ ﹢ ﹣ ﹫, the super- and subscript ⁺ ⁼ ₊ ₌ and ⁻, which becomes −):
# OWASP's = + - @, and the minus sign. A dash of any kind (Unicode's Pd: ‐ – — ...) counts too.
_FORMULA_START = frozenset("=+-@\u2212")


def csv_cell(value, limit: int = 1000) -> str:
    """Text from outside (a student, an LMS export) as a CSV cell: one_line, and inert in a spreadsheet.

    A cell is made inert with a leading ``'`` when, after any spaces, its first character
    is a tab, a carriage return, a line feed or any other control, format or non-ASCII
    space character (a spreadsheet may skip it), or is, or normalises to, ``= + - @`` or
    a dash. The decision is made on the text as given, before one_line escapes anything.
    A number the kit computed is not text from outside: its writer writes it as it is (a
    negative one stays a number), never through this function.
    """
    raw = value if isinstance(value, str) else "" if value is None else str(value)
    text = one_line(raw, limit)
    return "'" + text if opens_a_formula(raw) or opens_a_formula(text) else text


def opens_a_formula(text: str) -> bool:
    """Whether a spreadsheet could take a cell holding ``text`` for a formula (see csv_cell)."""
    for char in text:
        if char == " ":
            continue
        if char.isspace() or unicodedata.category(char) in ("Cc", "Cf", "Zs", "Zl", "Zp"):
            return True  # a tab, CR, LF, NBSP, ideographic space, zero-width space, BOM: OWASP's tab and CR, and kin
        return unicodedata.normalize("NFKC", char)[:1] in _FORMULA_START or unicodedata.category(char) == "Pd"
    return False


def csv_document(rows: Iterable[Sequence[object]]) -> str:
    """Rows (the header first) as a CSV file's text, every field quoted (RFC 4180, as OWASP advises).

    The cells are written as given: text from outside must have passed through csv_cell.
    """
    buffer = io.StringIO()
    csv.writer(buffer, quoting=csv.QUOTE_ALL).writerows(rows)
    return buffer.getvalue()
