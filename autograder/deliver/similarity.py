"""Pairs of submissions whose code is much alike, most alike first: a flag to look at, never a verdict.

grade-all writes DIR/similarity.csv with copydetect (https://github.com/blingenf/copydetect,
MIT licence), the winnowing method of MOSS (Schleimer, Wilkerson and Aiken, SIGMOD 2003)
as a maintained Python library. Each student's own code (deliver/sources.py: what the
release gave them left out) is normalised by copydetect's ``filter_code``, which
tokenizes it with Pygments, replaces every variable, attribute, function and class name
by one letter and every string by another, and drops comments and blank space; its
``CodeFingerprint`` keeps each run of 25 characters of what is left (copydetect's noise
threshold) as a fingerprint. Tokenizing is most of the cost: it runs in as many
processes as grade-all has jobs. Renamed variables,
reformatted code and reordered functions leave the fingerprints as they were. The
release's own code (the stub module and every code cell of the release notebook) is
fingerprinted the same way and its fingerprints are struck from every student's, as
copydetect's boilerplate: the stubs' signatures and docstrings, the given code and the
demonstrations are never a reason for two students to look alike.

Every pair is ranked by the share of fingerprints the two have in common, all at once
(one product of a students-by-fingerprints matrix); the pairs that rank highest (a
quarter as many as there are students, at least 50) are then compared by copydetect's
``compare_files``, which measures, for each of the two,
the share of its code (in characters of normalised code) covered by runs the other
holds too. A pair's similarity is those two shares together, weighted by the sizes of
the two: 1 for identical code, near 1 for a renamed or reordered copy, and some way
above 0 for two students who wrote the same short idioms independently. Students whose
own code is shorter than a few lines are left out: there is nothing to compare.

copydetect hashes with Python's hash(), which differs from one process to the next;
only equal runs matter (every run is kept: a window of 1), so the figures do not.
"""

from __future__ import annotations

import importlib.util
import io
import multiprocessing
import signal
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..assignments import Assignment
from ..results.atomic import write_atomically
from ..results.text import csv_cell, csv_document
from .sources import release_code, student_code

NOISE = 25  # characters of normalised code per fingerprint: copydetect's default noise threshold
WINDOW = 1  # every fingerprint kept (copydetect's default, guarantee threshold = noise threshold)
MIN_FINGERPRINTS = 40  # fewer after the release's code is struck: a few lines of one's own, nothing to compare
POOL_FROM = 16  # students: fewer are tokenized in this process
BLOCK = 4096  # fingerprints per block of the students-by-fingerprints product (bounded memory)


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


def normalised(code: str) -> str:
    """copydetect's normalised code: Pygments' Python tokens, every name one letter, no comments, no blank space."""
    from copydetect.utils import filter_code  # here: copydetect is the instructor's extra (see available())

    return filter_code(code, "submission.py", "python")[0]


def fingerprint(normal: str, boilerplate: np.ndarray):
    """copydetect's fingerprint of normalised code, the release's fingerprints struck."""
    from copydetect import CodeFingerprint  # here: copydetect is the instructor's extra (see available())

    return CodeFingerprint("submission.py", NOISE, WINDOW, boilerplate, filter=False, fp=io.StringIO(normal))


def boilerplate_hashes(normal_pieces) -> np.ndarray:
    """The fingerprints of the release's own code (each piece normalised on its own), as copydetect strikes them."""
    hashes: set[int] = set()
    for normal in normal_pieces:
        hashes |= fingerprint(normal, np.array([], dtype=np.int64)).hashes
    return np.unique(np.fromiter(hashes, dtype=np.int64, count=len(hashes)))


_pool_assignment: Assignment | None = None  # set before a pool forks: whose code its workers read


def _normalise(source: Path | str) -> str:
    """A student's own code (from the path of their submission) or a piece of the release's, normalised."""
    if isinstance(source, str):
        return normalised(source)
    assert _pool_assignment is not None
    return normalised(student_code(source, _pool_assignment).text)


def _ends_on_terminate() -> None:
    """A pool worker ends on SIGTERM, as the pool expects when it closes: the command's own handler, inherited through
    fork (interrupts.py: SIGTERM raises KeyboardInterrupt), left workers stuck on the pool's locks and the command
    waiting for them forever."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def normalise_all(sources: list, assignment: Assignment, jobs: int = 1) -> list[str]:
    """Each source normalised (_normalise), in order: across ``jobs`` processes for a large class
    (tokenizing is most of the cost; a normalised text is small to send back)."""
    global _pool_assignment
    _pool_assignment = assignment
    if jobs <= 1 or len(sources) < POOL_FROM:
        return [_normalise(source) for source in sources]
    with multiprocessing.get_context("fork").Pool(jobs, initializer=_ends_on_terminate) as pool:
        return pool.map(_normalise, sources, chunksize=max(1, len(sources) // (8 * jobs)))


def ranked_candidates(prints: dict, limit: int) -> list[tuple[str, str]]:
    """The ``limit`` pairs that share the largest share of their fingerprints (Dice's coefficient), best first."""
    keys = [key for key, fp in prints.items() if len(fp.hashes) >= MIN_FINGERPRINTS]
    if len(keys) < 2:
        return []
    arrays = [np.fromiter(prints[key].hashes, dtype=np.int64, count=len(prints[key].hashes)) for key in keys]
    sizes = np.array([len(a) for a in arrays], dtype=np.float64)
    owners = np.repeat(np.arange(len(keys)), [len(a) for a in arrays])
    _, column, counts = np.unique(np.concatenate(arrays), return_inverse=True, return_counts=True)
    column = column.reshape(-1)
    kept = counts[column] >= 2  # a fingerprint of one student only is shared with nobody
    owners, column = owners[kept], np.unique(column[kept], return_inverse=True)[1].reshape(-1)
    shared = np.zeros((len(keys), len(keys)), dtype=np.float64)
    for start in range(0, int(column.max(initial=-1)) + 1, BLOCK):
        inside = (column >= start) & (column < start + BLOCK)
        block = np.zeros((len(keys), BLOCK), dtype=np.float32)  # exact: counts far below 2**24
        block[owners[inside], column[inside] - start] = 1.0
        shared += block @ block.T
    dice = 2 * shared / (sizes[:, None] + sizes[None, :])
    first, second = np.triu_indices(len(keys), k=1)
    alike = shared[first, second] > 0  # two students who share no fingerprint are no pair to look at
    first, second = first[alike], second[alike]
    order = np.lexsort((second, first, -dice[first, second]))[:limit]
    return [(keys[first[i]], keys[second[i]]) for i in order]


def similar_pairs(
    paths: dict[str, Path], assignment: Assignment, jobs: int = 1, limit: int | None = None
) -> list[Pair]:
    """The most alike pairs of a class, most alike first: copydetect's figures for the best-ranked ``limit``
    pairs (default: a quarter as many as there are students, and at least 50)."""
    release = list(release_code(assignment))
    keys = list(paths)
    normal = normalise_all(release + [Path(paths[key]) for key in keys], assignment, jobs)
    boilerplate = boilerplate_hashes(normal[: len(release)])
    prints = {key: fingerprint(text, boilerplate) for key, text in zip(keys, normal[len(release) :])}
    pairs = [_compare(a, b, prints) for a, b in ranked_candidates(prints, limit or max(50, len(keys) // 4))]
    return sorted(pairs, key=lambda p: (-p.similarity, p.a, p.b))


def _compare(a: str, b: str, prints: dict) -> Pair:
    from copydetect import compare_files  # here: copydetect is the instructor's extra (see available())

    _, (share_a, share_b), _ = compare_files(prints[a], prints[b])
    covered_a, covered_b = float(prints[a].token_coverage), float(prints[b].token_coverage)
    both = (share_a * covered_a + share_b * covered_b) / (covered_a + covered_b) if covered_a + covered_b else 0.0
    return Pair(a, b, round(float(both), 4), round(float(share_a), 4), round(float(share_b), 4))


def write_similarity(path: Path, pairs: list[Pair], names: dict[str, str]) -> None:
    """similarity.csv: a row per pair, most alike first, with both shares and the students' names."""
    rows: list[list[str]] = [["similarity", "student_a", "student_b", "share_of_a", "share_of_b", "name_a", "name_b"]]
    for pair in pairs:  # the keys and names came from the export: inert cells; the figures are the kit's
        rows.append(
            [f"{pair.similarity:.4f}", csv_cell(pair.a), csv_cell(pair.b), f"{pair.share_a:.4f}", f"{pair.share_b:.4f}"]
            + [csv_cell(names.get(pair.a, "")), csv_cell(names.get(pair.b, ""))]
        )
    write_atomically(path, csv_document(rows))
