"""A student's code as copydetect fingerprints it, computed without importing copydetect.

copydetect (https://github.com/blingenf/copydetect, MIT licence) normalises code with
``utils.filter_code``: Pygments' Python tokens, every variable and attribute name "V",
every function name "F", every class name "O", every string "S" (a lone quote '"'),
no comment and no blank space. Its ``CodeFingerprint`` then keeps every run of NOISE
characters of what is left (winnowing with a window of 1) as a fingerprint. Importing
copydetect loads matplotlib's pyplot, Jinja and tqdm for its HTML report (about 2
core-seconds here), so the steps that run for every student use ``normalised`` below,
the same function over Pygments alone (tests/deliver/class_view/test_fingerprints.py holds it
equal to copydetect's on the kit's sample submissions), and deliver/class_view/similarity.py
imports copydetect only to compare the few pairs it reports.

A fingerprint here is a 64-bit digest of a run, the same for the same run in every
process (copydetect's Python ``hash()`` differs from one process to the next): two
students share a fingerprint exactly where their normalised code shares a run, as
they share copydetect's, so the share of fingerprints two students have in common is
copydetect's too.
"""

from __future__ import annotations

import hashlib
import importlib.util
from functools import cache, lru_cache

import numpy as np

NOISE = 25  # characters of normalised code per fingerprint: copydetect's default noise threshold
VERSION = "1"  # of normalised() and fingerprints(): a change makes every cached one stale
_BASE = np.uint64(0x9E3779B97F4A7C15)  # the polynomial's base: odd, its bits spread
BLOCK = 64  # students whose fingerprints are computed together: their code stays in the CPU's cache
_NONE = np.empty(0, dtype=np.uint64)
_MIX = (np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB))  # splitmix64's finaliser


def available() -> bool:
    """Whether Pygments, copydetect's tokenizer, is installed (with copydetect, the instructor extra)."""
    return importlib.util.find_spec("pygments") is not None


@cache
def normaliser_id() -> str:
    """What decides a normalised text: this module's version and Pygments' (its lexer makes the tokens)."""
    from importlib.metadata import version  # here: read once, only where code is normalised

    return f"{VERSION} pygments {version('pygments')}"


@cache
def _lexer():
    from pygments.lexers import get_lexer_by_name  # here: Pygments comes with the instructor extra (available())

    return get_lexer_by_name("python")


def normalised(code: str) -> str:
    """copydetect's ``filter_code(code, name, "python")[0]``: the tokens, each name one letter, no comment or space."""
    table = _KINDS
    out: list[str] = []
    for kind, text in _lexer().get_tokens(code):
        written = table.get(kind)
        if written is None:
            written = table[kind] = _written_as(kind)
        if written is _TOKEN:
            out.append(text)
        elif written is _STRING:
            out.append('"' if text in ("'", '"') else "S")
        elif written:
            out.append(written)
    return "".join(out)


_TOKEN, _STRING = "token", "string"  # a token written as it is; a string's piece ("S", a quote as itself)
_KINDS: dict = {}  # Pygments' token type -> what normalised() writes of it ("" nothing): read once per type


def _written_as(kind) -> str:
    """What normalised() writes of a token of this type, copydetect's ``filter_code`` rules in its order."""
    from pygments import token  # here: as in _lexer

    if kind in {token.Name, token.Name.Variable, token.Name.Attribute}:
        return "V"
    if kind in token.Name.Function:
        return "F"
    if kind in token.Name.Class:
        return "O"
    if kind == token.Comment.Preproc or kind == token.Comment.Hashbang:
        return "P"
    if kind in token.Text or kind in token.Comment:
        return ""
    if kind in token.Literal.String:
        return _STRING
    return _TOKEN


@lru_cache(maxsize=1024)
def normalised_release_piece(piece: str) -> str:
    """normalised() of a piece of the release's own code, kept for the process: the same for every student of
    the class, and made while the grader waits for its sandbox to start (deliver/class_view/__init__.py)."""
    return normalised(piece)


def fingerprints(normal: str) -> np.ndarray:
    """The fingerprints of normalised code: a digest of each run of NOISE characters, each once, sorted (uint64)."""
    return class_fingerprints([normal])[0]


def class_fingerprints(texts: list[str]) -> list[np.ndarray]:
    """fingerprints() of each normalised text, computed a block of students at a time (a pass over their code)."""
    found: list[np.ndarray] = []
    for first in range(0, len(texts), BLOCK):
        block = texts[first : first + BLOCK]
        points = np.frombuffer("".join(block).encode("utf-32-le", "surrogatepass"), dtype="<u4").astype(np.uint64)
        with np.errstate(over="ignore"):  # arithmetic modulo 2**64, as meant
            value = _runs(points)
            value ^= value >> np.uint64(30)
            value *= _MIX[0]
            value ^= value >> np.uint64(27)
            value *= _MIX[1]
            value ^= value >> np.uint64(31)
        start = 0
        for text in block:  # a student's runs: those that start and end in their code
            found.append(_distinct(value[start : start + len(text) - NOISE + 1]) if len(text) >= NOISE else _NONE)
            start += len(text)
    return found


def _runs(points: np.ndarray) -> np.ndarray:
    """The polynomial sum of each run of NOISE points, sum(points[i + j] * BASE ** (NOISE - 1 - j)), by doubling:
    the sum of a run of a + b is that of its first a times BASE ** b plus that of its last b."""
    if len(points) < NOISE:
        return np.empty(0, dtype=np.uint64)
    runs = {1: points}
    for width in (2, 4, 8, 16):  # runs[w][i]: the sum of the run of w points from i
        half = runs[width // 2]
        runs[width] = half[: len(half) - width // 2] * _BASE ** np.uint64(width // 2) + half[width // 2 :]
    twenty_four = runs[16][: len(points) - 23] * _BASE ** np.uint64(8) + runs[8][16:]
    return twenty_four[: len(points) - 24] * _BASE + points[24:]


def _distinct(values: np.ndarray) -> np.ndarray:
    """The values each once, sorted (np.unique, faster on short arrays)."""
    if len(values) == 0:
        return _NONE
    ordered = np.sort(values)
    return ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))]


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
