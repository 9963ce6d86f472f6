"""The pairs of a class that share the largest share of their fingerprints, best first, without comparing all of them.

Each student is a set of fingerprints (deliver/class_view/fingerprints.py); two students are
ranked by Dice's coefficient of their sets, 2 |A & B| / (|A| + |B|), the share of
their code found in the other's. A class of up to EXACT_UP_TO students ranks every
pair (one product of a students-by-fingerprints matrix, blocks at a time). A larger
one ranks the pairs MinHash finds (Broder, "On the resemblance and containment of
documents", 1997; the banding of Leskovec, Rajaraman and Ullman, "Mining of Massive
Datasets", chapter 3):

* each student's set gets ROWS x BANDS min-hashes (the least of a_k * x modulo 2**32
  over its fingerprints x, a_k odd and random: the fingerprints are digests already);
  two students agree on one with probability J, the Jaccard index |A & B| / |A | B| of
  their sets (tests/deliver/class_view/test_candidates.py measures it);
* the min-hashes are cut into BANDS bands of ROWS rows, and two students who agree on
  every row of some band are a candidate pair: probability 1 - (1 - J ** ROWS) ** BANDS;
* ROWS and BANDS are the fewest hashes (``bands``) for which a pair of J >= THRESHOLD
  (Dice >= 0.82: most of each one's code found in the other's) is a candidate with
  probability >= RECALL, and a pair of J <= NOISE_SHARE (students who wrote their own
  code: the most two of the kit's correct samples share is J = 0.11) with probability
  <= NOISE_RATE, so that the candidates stay few: THRESHOLD 0.7, RECALL 0.99 give
  ROWS 5 and BANDS 26 (130 min-hashes); a pair of J = 0.8 is then missed once in 30,000
  tries, one of 0.9 (a renamed or reordered copy) once in 10**10;
* every candidate's Dice is then computed exactly, from the two sets, and ranked.

The cost is that of the min-hashes, linear in the class's fingerprints, and of the
candidates: the pairs above the threshold, a few below it, and in a band where more
than BUCKET students agree (a crowd of near-identical submissions) each with the
BUCKET next in the class's order only, so that no crowd costs the square of its size.
"""

from __future__ import annotations

import math

import numpy as np

EXACT_UP_TO = 200  # students: every pair ranked (20,000 pairs at most)
THRESHOLD = 0.7  # Jaccard index above which a pair is found with probability >= RECALL
RECALL = 0.99
NOISE_SHARE = 0.2  # Jaccard index of students who wrote their own code, at most
NOISE_RATE = 0.01  # the most such a pair may become a candidate
BUCKET = 100  # students of one band's bucket each paired with all others; more: with their BUCKET next
BLOCK = 4096  # fingerprints per block of the exact product (bounded memory)
STUDENTS_PER_BLOCK = 64  # students whose min-hashes are computed together


def bands(threshold: float, recall: float, noise: float, noise_rate: float) -> tuple[int, int]:
    """(rows, bands) with the fewest min-hashes such that a pair of Jaccard index >= threshold is a candidate with
    probability >= recall and one of index <= noise with probability <= noise_rate."""
    best: tuple[int, int] | None = None
    for rows in range(1, 64):  # log1p and expm1 (found): exact where share ** rows is far below float's epsilon
        count = math.ceil(math.log1p(-recall) / math.log1p(-(threshold**rows)))
        if found(noise, rows, count) <= noise_rate and (best is None or rows * count < best[0] * best[1]):
            best = (rows, count)
    if best is None:
        raise ValueError(f"no bands separate a Jaccard index of {threshold} from {noise} so")
    return best


def found(share: float, rows: int, count: int) -> float:
    """The probability that a pair of that Jaccard index agrees on every row of at least one of ``count`` bands."""
    return -math.expm1(count * math.log1p(-(share**rows)))


ROWS, BANDS = bands(THRESHOLD, RECALL, NOISE_SHARE, NOISE_RATE)


def ranked(prints: list[np.ndarray], limit: int, exact_up_to: int = EXACT_UP_TO) -> list[tuple[int, int, float]]:
    """The ``limit`` pairs (i, j, Dice), i < j, with the largest Dice's coefficient, best first (ties: by i, then j);
    pairs that share nothing are left out. prints: each student's fingerprints, sorted and distinct."""
    if len(prints) < 2:
        return []
    if len(prints) <= exact_up_to:
        first, second, shared = every_pair(prints)
    else:
        first, second = lsh_candidates(prints)
        shared = shared_counts(prints, first, second)
    alike = shared > 0
    first, second, shared = first[alike], second[alike], shared[alike]
    sizes = np.array([len(p) for p in prints], dtype=np.float64)
    dice = 2 * shared / (sizes[first] + sizes[second])
    order = np.lexsort((second, first, -dice))[:limit]
    return [(int(first[k]), int(second[k]), float(dice[k])) for k in order]


def every_pair(prints: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every pair (i < j) and the fingerprints it shares: a product of the students-by-fingerprints matrix."""
    n = len(prints)
    owners = np.repeat(np.arange(n), [len(p) for p in prints])
    _, column, counts = np.unique(np.concatenate(prints), return_inverse=True, return_counts=True)
    column = column.reshape(-1)
    kept = counts[column] >= 2  # a fingerprint of one student only is shared with nobody
    owners, column = owners[kept], np.unique(column[kept], return_inverse=True)[1].reshape(-1)
    shared = np.zeros((n, n), dtype=np.float64)
    for start in range(0, int(column.max(initial=-1)) + 1, BLOCK):
        inside = (column >= start) & (column < start + BLOCK)
        block = np.zeros((n, BLOCK), dtype=np.float32)  # exact: counts far below 2**24
        block[owners[inside], column[inside] - start] = 1.0
        shared += block @ block.T
    first, second = np.triu_indices(n, k=1)
    return first, second, shared[first, second].astype(np.int64)


def signatures(prints: list[np.ndarray], hashes: int = ROWS * BANDS, seed: int = 0) -> np.ndarray:
    """Each student's min-hashes (students x hashes, uint32): hash k of a set is the least of (a_k * x) mod 2**32 over
    its fingerprints x (their upper 32 bits), a_k odd and random; an empty set's are all 2**32 - 1."""
    multipliers = np.random.default_rng(seed).integers(1, 2**32, size=hashes, dtype=np.uint64).astype(np.uint32) | 1
    found = np.full((len(prints), hashes), np.iinfo(np.uint32).max, dtype=np.uint32)
    for first in range(0, len(prints), STUDENTS_PER_BLOCK):
        block = [p for p in prints[first : first + STUDENTS_PER_BLOCK]]
        sizes = np.array([len(p) for p in block])
        filled = np.flatnonzero(sizes)
        if not len(filled):
            continue
        values = (np.concatenate([block[i] for i in filled]) >> np.uint64(32)).astype(np.uint32)
        starts = np.concatenate(([0], np.cumsum(sizes[filled])[:-1]))
        scratch = np.empty_like(values)
        for k, multiplier in enumerate(multipliers):
            np.multiply(values, multiplier, out=scratch)  # modulo 2**32
            found[first + filled, k] = np.minimum.reduceat(scratch, starts)
    return found


def lsh_candidates(prints: list[np.ndarray], rows: int = ROWS, count: int = BANDS) -> tuple[np.ndarray, np.ndarray]:
    """The pairs (i < j) that agree on every min-hash of at least one band, each once."""
    found = signatures(prints, rows * count)
    n = len(prints)
    keys = _band_keys(found, rows, count)
    pairs = []
    for band in range(count):
        pairs.append(_bucket_pairs(keys[:, band], n))
    codes = np.unique(np.concatenate(pairs)) if pairs else np.empty(0, dtype=np.int64)
    return codes // n, codes % n


def _band_keys(found: np.ndarray, rows: int, count: int) -> np.ndarray:
    """One 64-bit key per student and band, from the band's rows (equal rows, equal keys)."""
    keys = np.zeros((len(found), count), dtype=np.uint64)
    multipliers = np.random.default_rng(1).integers(1, 2**63, size=rows, dtype=np.uint64) | np.uint64(1)
    with np.errstate(over="ignore"):  # modulo 2**64, as meant
        for row in range(rows):
            keys = keys * np.uint64(0x100000001B3) + found[:, row::rows][:, :count].astype(np.uint64) * multipliers[row]
    return keys


def _bucket_pairs(keys: np.ndarray, n: int) -> np.ndarray:
    """The pairs of students with the same key, coded i * n + j (i < j): each with every other of its bucket, or
    with its BUCKET next in the class's order in a larger bucket."""
    order = np.lexsort((np.arange(len(keys)), keys))  # by key, then by student
    ordered = keys[order]
    codes = []
    for offset in range(1, BUCKET + 1):
        same = ordered[offset:] == ordered[:-offset]
        if not same.any():
            break
        a, b = order[:-offset][same], order[offset:][same]
        codes.append(np.minimum(a, b).astype(np.int64) * n + np.maximum(a, b))
    return np.concatenate(codes) if codes else np.empty(0, dtype=np.int64)


def shared_counts(prints: list[np.ndarray], first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """The fingerprints each pair (first[k], second[k]) shares, exactly; pairs sorted by first (as lsh_candidates
    gives them)."""
    shared = np.zeros(len(first), dtype=np.int64)
    if not len(first):
        return shared
    boundaries = np.flatnonzero(np.diff(first)) + 1
    for start, stop in zip(np.concatenate(([0], boundaries)), np.concatenate((boundaries, [len(first)]))):
        mine = prints[first[start]]
        others = [prints[j] for j in second[start:stop]]
        values = np.concatenate(others)
        where = np.minimum(np.searchsorted(mine, values), len(mine) - 1)
        hits = (mine[where] == values) if len(mine) else np.zeros(len(values), dtype=bool)
        ends = np.cumsum([len(o) for o in others])
        totals = np.concatenate(([0], np.cumsum(hits)))
        shared[start:stop] = totals[ends] - totals[np.concatenate(([0], ends[:-1]))]
    return shared
