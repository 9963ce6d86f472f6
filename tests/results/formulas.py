"""What the CSV tests share: the cells a spreadsheet would run (tests/data/hostile/spreadsheet_formulas.json),
and a spreadsheet's view of a cell, written apart from the kit's csv_cell so that each checks the other."""

from __future__ import annotations

import json
import unicodedata

from autograder import KIT_ROOT

HOSTILE = json.loads((KIT_ROOT / "tests" / "data" / "hostile" / "spreadsheet_formulas.json").read_text())
FORMULAS: list[str] = HOSTILE["formulas"]
SPLIT: list[str] = HOSTILE["split"]
HONEST: list[str] = HOSTILE["honest"]

# What Excel, LibreOffice and Google Sheets take for the start of a formula: OWASP's list, the
# full-width and small forms that an input method or NFKC turns into it, the minus sign.
STARTS = set("=+-@\u2212")


def runs_as_formula(cell: str) -> bool:
    """Whether a spreadsheet could run this cell: after leading whitespace (Unicode's, and invisible
    format characters), it starts with = + - @ or a character that normalises to one; or it starts
    with a tab, carriage return or line feed."""
    if cell[:1] in ("\t", "\r", "\n"):
        return True
    rest = cell.lstrip()
    while rest and unicodedata.category(rest[0]) in ("Cc", "Cf", "Zs"):
        rest = rest[1:].lstrip()
    first = rest[:1]
    return bool(first) and (unicodedata.normalize("NFKC", first)[:1] in STARTS or unicodedata.category(first) == "Pd")
