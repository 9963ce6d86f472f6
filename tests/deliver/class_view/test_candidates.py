"""Does MinHash find the pairs of a class that share most of their code, as every pair's ranking does, with the
probability its bands were derived for, without comparing every pair?"""

import itertools

import numpy as np
import pytest

from autograder import assignments
from autograder.deliver.class_view import candidates
from autograder.deliver.class_view.candidates import (
    BANDS,
    BUCKET,
    NOISE_RATE,
    NOISE_SHARE,
    RECALL,
    ROWS,
    THRESHOLD,
    bands,
    every_pair,
    found,
    lsh_candidates,
    ranked,
    signatures,
)
from autograder.deliver.class_view.fingerprints import class_fingerprints, normalised
from autograder.deliver.class_view.sources import release_code
from autograder.synthetic import students


def random_sets(rng, count: int, size: int) -> list[np.ndarray]:
    return [np.unique(rng.integers(0, 2**63, size=size, dtype=np.int64).astype(np.uint64)) for _ in range(count)]


def pairs_of_share(rng, pairs: int, share: float, size: int = 1500) -> list[np.ndarray]:
    """2 * pairs sets of `size`; set 2i and 2i + 1 have a Jaccard index of `share` (and nothing with the others)."""
    common = round(2 * share * size / (1 + share))  # |A & B| / |A | B| = c / (2 size - c)
    sets = []
    for _ in range(pairs):
        shared, mine, theirs = random_sets(rng, 3, size)
        sets += [
            np.union1d(shared[:common], mine[: size - common]),
            np.union1d(shared[:common], theirs[: size - common]),
        ]
    return sets


def test_the_bands_are_the_fewest_that_keep_the_promise():
    """Are ROWS and BANDS derived from the promise (a pair of Jaccard index THRESHOLD found with probability RECALL
    or more, one of NOISE_SHARE at most NOISE_RATE), and are they the fewest min-hashes that keep it?"""
    assert (ROWS, BANDS) == bands(THRESHOLD, RECALL, NOISE_SHARE, NOISE_RATE) == (5, 26)
    assert found(THRESHOLD, ROWS, BANDS) >= RECALL and found(NOISE_SHARE, ROWS, BANDS) <= NOISE_RATE
    assert found(0.8, ROWS, BANDS) > 1 - 1e-4 and found(0.9, ROWS, BANDS) > 1 - 1e-9  # a renamed copy: 0.9 and more
    fewer = [
        (r, b)
        for r, b in itertools.product(range(1, 40), range(1, 200))
        if r * b < ROWS * BANDS and found(THRESHOLD, r, b) >= RECALL and found(NOISE_SHARE, r, b) <= NOISE_RATE
    ]
    assert not fewer
    with pytest.raises(ValueError):
        bands(0.3, 0.99, 0.29, 0.01)  # too close to tell apart


def test_min_hashes_agree_as_often_as_the_sets_overlap():
    """Do two sets agree on each min-hash with probability their Jaccard index, and is a pair at THRESHOLD found
    (and one at NOISE_SHARE left out) as often as the bands promise?"""
    rng = np.random.default_rng(7)
    near = pairs_of_share(rng, 300, THRESHOLD)
    rows = signatures(near)
    agree = (rows[0::2] == rows[1::2]).mean()
    assert abs(agree - THRESHOLD) < 0.01  # 39,000 min-hashes: the standard error is 0.003
    first, second = lsh_candidates(near)
    pairs = set(zip(first.tolist(), second.tolist()))
    hits = sum((2 * i, 2 * i + 1) in pairs for i in range(300))
    assert hits >= 0.97 * 300, hits  # RECALL 0.99: 297 expected, 294 is 2 standard errors below
    assert all(b == a + 1 and a % 2 == 0 for a, b in pairs)  # sets that share nothing never meet
    far = pairs_of_share(rng, 300, NOISE_SHARE)
    first, second = lsh_candidates(far)
    assert len(first) <= 0.03 * 300  # NOISE_RATE 0.01: 3 expected


def test_every_pair_is_counted_exactly():
    """Does every_pair (the class of up to EXACT_UP_TO) count the fingerprints each pair shares, as sets do?"""
    rng = np.random.default_rng(3)
    pool = rng.integers(0, 2**63, size=400, dtype=np.int64).astype(np.uint64)
    sets = [np.unique(rng.choice(pool, size=rng.integers(0, 120))) for _ in range(30)]
    first, second, shared = every_pair(sets)
    for i, j, count in zip(first, second, shared):
        assert count == len(set(sets[i].tolist()) & set(sets[j].tolist()))
    assert len(first) == 30 * 29 // 2


def class_prints(normal: list[str], assignment) -> list[np.ndarray]:
    """Each student's fingerprints, the release's struck, as similarity.py gives them to ranked()."""
    release = np.unique(np.concatenate(class_fingerprints([normalised(p) for p in release_code(assignment)])))
    return [np.setdiff1d(p, release, assume_unique=True) for p in class_fingerprints(normal)]


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_minhash_ranks_the_top_pairs_of_a_class_as_every_pair_does(seed):
    """On a synthetic class of 600 (the kit's samples and mistakes, copies among them: autograder/synthetic.py),
    are the pairs MinHash ranks, down to where they share less than THRESHOLD, every pair's, in the same order,
    from far fewer candidates than pairs?"""
    mha = assignments.get("mha")
    prints = class_prints([student.normal for student in students(mha, 600, seed)], mha)
    limit = 150
    exact = ranked(prints, limit, exact_up_to=10**9)
    minhash = ranked(prints, limit, exact_up_to=0)
    above = [pair for pair in exact if pair[2] / (2 - pair[2]) >= THRESHOLD]  # Dice to Jaccard
    assert len(above) >= 10  # the copies
    assert minhash[: len(above)] == above
    first, _ = lsh_candidates(prints)
    assert len(first) < 0.02 * 600 * 599 / 2


@pytest.mark.slow
def test_a_crowd_of_identical_submissions_costs_no_square():
    """500 students handing in the same code, among 100 others: is each paired with at most its BUCKET next per
    band (not with all 499 others), and are the pairs listed all of them alike?"""
    rng = np.random.default_rng(5)
    same = random_sets(rng, 1, 1500)[0]
    prints = [same] * 500 + random_sets(rng, 100, 1500)
    first, second = lsh_candidates(prints)
    every = 500 * 499 // 2
    assert len(first) <= 500 * BUCKET < every / 2  # 124,750 pairs otherwise
    assert set(second.tolist()) <= set(range(500))
    best = ranked(prints, 50, exact_up_to=0)
    assert [dice for _, _, dice in best] == [1.0] * 50
    assert candidates.EXACT_UP_TO < 600
