"""Pairs of submissions whose code is much alike, most alike first: a flag to look at, never a verdict.

grade-all writes DIR/similarity.csv with copydetect (https://github.com/blingenf/copydetect,
MIT licence), the winnowing method of MOSS (Schleimer, Wilkerson and Aiken, SIGMOD 2003)
as a maintained Python library. Each student's own code (deliver/class_view/sources.py: what the
release gave them left out) is normalised as copydetect's ``filter_code`` does: it
tokenizes it with Pygments, replaces every variable, attribute, function and class name
by one letter and every string by another, and drops comments and blank space; each run
of 25 characters of what is left (copydetect's noise threshold) is a fingerprint.
Tokenizing is most of the cost: it is done once per submission, when grade-all's worker
grades it, and kept beside its results (deliver/class_view/sources.py's code.json). Renamed
variables, reformatted code and reordered functions leave the fingerprints as they
were. The release's own code (the stub module and every code cell of the release
notebook) is fingerprinted the same way and its fingerprints are struck from every
student's, as copydetect's boilerplate: the stubs' signatures and docstrings, the given
code and the demonstrations are never a reason for two students to look alike.

The pairs that share the largest share of their fingerprints (deliver/class_view/candidates.py:
every pair of a class of up to 200, MinHash's candidates in a larger one, where a pair
whose fingerprints are 70% shared or more is found with probability 0.99 or more) are
ranked, and the best (a quarter as many as there are students, at least 50) are then
compared by copydetect's ``compare_files``, which measures, for each of the two,
the share of its code (in characters of normalised code) covered by runs the other
holds too. A pair's similarity is those two shares together, weighted by the sizes of
the two: 1 for identical code, near 1 for a renamed or reordered copy, and some way
above 0 for two students who wrote the same short idioms independently. Students whose
own code is shorter than a few lines are left out: there is nothing to compare. When no
student's code and nothing of the release changed since the last run, the pairs it
found are read back (DIR/.cache/similarity.json) and copydetect is not even imported.

copydetect hashes with Python's hash(), which differs from one process to the next;
only equal runs matter (every run is kept: a window of 1), so the figures do not.
"""

from __future__ import annotations

import gc
import importlib.util
import io
import json
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...interrupts import fork_pool
from ...results.atomic import write_atomically
from ...results.text import csv_cell, csv_document
from .candidates import EXACT_UP_TO, ranked
from .fingerprints import NOISE, class_fingerprints, digest, normalised_release_piece, normaliser_id

WINDOW = 1  # every fingerprint kept (copydetect's default, guarantee threshold = noise threshold)
MIN_FINGERPRINTS = 40  # fewer after the release's code is struck: a few lines of one's own, nothing to compare
CACHE_VERSION = "1"  # of what similarity.json holds and how its keys are made
POOL_FROM = 64  # pairs: fewer are compared in this process
PRINTS_KEPT = 1024  # copydetect fingerprints a process keeps (each some 200 kB): a student's pairs come together


@dataclass(frozen=True)
class Pair:
    a: str  # a student's key
    b: str
    similarity: float  # the share of the two students' code found in the other's, weighted by their sizes
    share_a: float  # the share of a's code found in b's
    share_b: float


def available() -> bool:
    """Whether copydetect is installed (the instructor extra)."""
    return importlib.util.find_spec("copydetect") is not None


def limit_for(students: int) -> int:
    """How many pairs similarity.csv lists: a quarter as many as there are students, and at least 50."""
    return max(50, students // 4)


def similar_pairs(
    normal: dict[str, str],
    release: list[str],
    limit: int | None = None,
    cache: Path | None = None,
    jobs: int = 1,
    exact_up_to: int = EXACT_UP_TO,
) -> list[Pair]:
    """The most alike pairs of a class, most alike first: copydetect's figures for the best-ranked ``limit`` pairs
    (default: limit_for the class).

    normal: each student's own code, normalised (deliver/class_view/fingerprints.py), by key, in the class's order;
    release: the release's own code, a piece at a time (deliver/class_view/sources.py release_code); cache: a folder where
    the pairs found and copydetect's figures are kept, with what they came from, and read back where that is the
    same; jobs: processes that compare pairs with copydetect."""
    limit = limit or limit_for(len(normal))
    kept = Kept.read(cache)
    key = _class_key(normal, release, limit, exact_up_to)
    if kept.key == key:
        return kept.pairs
    keys = list(normal)
    normal_release = [normalised_release_piece(piece) for piece in release]
    boilerplate = np.unique(np.concatenate(class_fingerprints(normal_release) + [np.empty(0, dtype=np.uint64)]))
    prints = [np.setdiff1d(p, boilerplate, assume_unique=True) for p in class_fingerprints([normal[k] for k in keys])]
    compared = [i for i, p in enumerate(prints) if len(p) >= MIN_FINGERPRINTS]
    best = [
        (keys[compared[i]], keys[compared[j]]) for i, j, _ in ranked([prints[i] for i in compared], limit, exact_up_to)
    ]
    release_key = _release_key(release)
    pair_keys = {pair: _pair_key(release_key, normal, *pair) for pair in best}
    figures = {k: kept.figures[k] for k in pair_keys.values() if k in kept.figures}
    todo = list({k: pair for pair, k in pair_keys.items() if k not in figures}.items())  # the same code: once
    figures.update(zip([k for k, _ in todo], compare([pair for _, pair in todo], normal, normal_release, jobs)))
    found = sorted((Pair(*pair, *figures[pair_keys[pair]]) for pair in best), key=lambda p: (-p.similarity, p.a, p.b))
    if cache is not None:
        Kept(key, found, {pair_keys[(p.a, p.b)]: _shares(p) for p in found}).write(cache)
    return found


def _shares(pair: Pair) -> tuple[float, float, float]:
    return pair.similarity, pair.share_a, pair.share_b


@dataclass
class Kept:
    """What an earlier run found (DIR/.cache/similarity.json): its pairs with the key of what they came from, and
    copydetect's figures of each by the key of the two students' code."""

    key: str = ""
    pairs: list[Pair] = field(default_factory=list)
    figures: dict[str, tuple[float, float, float]] = field(default_factory=dict)

    @classmethod
    def read(cls, folder: Path | None) -> Kept:
        """What is kept in folder; nothing when there is none or it cannot be read."""
        if folder is None:
            return cls()
        try:
            kept = json.loads((folder / "similarity.json").read_text(encoding="utf-8"))
            pairs = [Pair(str(a), str(b), float(s), float(sa), float(sb)) for a, b, s, sa, sb in kept["pairs"]]
            figures = {str(k): (float(s), float(sa), float(sb)) for k, (s, sa, sb) in kept["figures"].items()}
            return cls(str(kept["key"]), pairs, figures)
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return cls()

    def write(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        pairs = [[p.a, p.b, *_shares(p)] for p in self.pairs]
        write_atomically(
            folder / "similarity.json", json.dumps({"key": self.key, "pairs": pairs, "figures": self.figures}) + "\n"
        )


def _release_key(release: list[str]) -> str:
    """A digest of what decides every fingerprint: this file's method, the normaliser, the release's own code."""
    return digest("\n".join([CACHE_VERSION, normaliser_id(), *(digest(piece) for piece in release)]))


def _class_key(normal: dict[str, str], release: list[str], limit: int, exact_up_to: int) -> str:
    """A digest of everything the pairs are found from: the release's key, each student's code, the method."""
    lines = [_release_key(release), str(limit), str(exact_up_to)]
    lines += [f"{key}\t{digest(text)}" for key, text in normal.items()]
    return digest("\n".join(lines))


def _pair_key(release_key: str, normal: dict[str, str], a: str, b: str) -> str:
    """A digest of what copydetect's figures of a pair come from: the release's key and the two students' code."""
    return digest(f"{release_key}\n{digest(normal[a])}\n{digest(normal[b])}")


# ------------------------------------------------------------------ copydetect

_pool_job: tuple[dict[str, str], np.ndarray] | None = None  # set before a pool forks: the code and boilerplate
_pool_prints: OrderedDict[str, object] = OrderedDict()  # a process's copydetect fingerprints, the last used last


def compare(
    pairs: list[tuple[str, str]], normal: dict[str, str], release: list[str], jobs: int = 1
) -> list[tuple[float, float, float]]:
    """copydetect's figures for each pair (similarity, share of a, share of b), from copydetect's own fingerprints
    of the two; across ``jobs`` processes when there are many (a fingerprint is made where its pairs are)."""
    global _pool_job
    if not pairs:
        return []
    _pool_job = (normal, boilerplate_hashes(release))  # copydetect imported here, before any fork
    _pool_prints.clear()
    if jobs <= 1 or len(pairs) < POOL_FROM:
        return [_figures(pair) for pair in pairs]
    ordered = sorted(range(len(pairs)), key=lambda k: pairs[k])  # a student's pairs together: fingerprinted once
    gc.freeze()  # what lives now stays shared with the workers: their collectors leave it be (grade_all/class_folder.py)
    with fork_pool(jobs) as pool:  # forked: the same hash() as this process's
        found = pool.map(_figures, [pairs[k] for k in ordered], chunksize=-(-len(pairs) // (2 * jobs)))
    figures: list[tuple[float, float, float]] = [(0.0, 0.0, 0.0)] * len(pairs)
    for k, figure in zip(ordered, found):
        figures[k] = figure
    return figures


def _figures(pair: tuple[str, str]) -> tuple[float, float, float]:
    from copydetect import compare_files  # here: copydetect loads pyplot; only the pairs reported need it

    a, b = pair
    first, second = _print(a), _print(b)
    _, (share_a, share_b), _ = compare_files(first, second)
    covered_a, covered_b = float(first.token_coverage), float(second.token_coverage)
    both = (share_a * covered_a + share_b * covered_b) / (covered_a + covered_b) if covered_a + covered_b else 0.0
    return round(float(both), 4), round(float(share_a), 4), round(float(share_b), 4)


def _print(key: str):
    """copydetect's fingerprint of a student's code, made once and kept while it is among the last PRINTS_KEPT used."""
    assert _pool_job is not None
    if key in _pool_prints:
        _pool_prints.move_to_end(key)
    else:
        normal, boilerplate = _pool_job
        _pool_prints[key] = fingerprint(normal[key], boilerplate)
        if len(_pool_prints) > PRINTS_KEPT:
            _pool_prints.popitem(last=False)
    return _pool_prints[key]


def fingerprint(normal: str, boilerplate: np.ndarray):
    """copydetect's fingerprint of normalised code, the release's fingerprints struck."""
    from copydetect import CodeFingerprint  # here: as in _figures

    return CodeFingerprint("submission.py", NOISE, WINDOW, boilerplate, filter=False, fp=io.StringIO(normal))


def boilerplate_hashes(normal_pieces) -> np.ndarray:
    """The fingerprints of the release's own code (each piece normalised on its own), as copydetect strikes them."""
    hashes: set[int] = set()
    for normal in normal_pieces:
        hashes |= fingerprint(normal, np.array([], dtype=np.int64)).hashes
    return np.unique(np.fromiter(hashes, dtype=np.int64, count=len(hashes)))


def write_similarity(path: Path, pairs: list[Pair], names: dict[str, str]) -> None:
    """similarity.csv: a row per pair, most alike first, with both shares and the students' names."""
    rows: list[list[str]] = [["similarity", "student_a", "student_b", "share_of_a", "share_of_b", "name_a", "name_b"]]
    for pair in pairs:  # the keys and names came from the export: inert cells; the figures are the kit's
        rows.append(
            [f"{pair.similarity:.4f}", csv_cell(pair.a), csv_cell(pair.b), f"{pair.share_a:.4f}", f"{pair.share_b:.4f}"]
            + [csv_cell(names.get(pair.a, "")), csv_cell(names.get(pair.b, ""))]
        )
    write_atomically(path, csv_document(rows))
