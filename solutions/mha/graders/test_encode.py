"""Hidden checks of encode: ids, <unk> for unknown words, right padding, truncation."""

import pytest

from autograder.grade.authoring import expect_same

from .. import probes

GRADED = "encode"

STOI = {"<pad>": 0, "<unk>": 1, "a": 2, "cat": 3, "dog": 4, "on": 5, "sat": 6, "the": 7}
# The contract says "<pad>"'s id and "<unk>"'s id, not 0 and 1.
SWAPPED = {"<unk>": 0, "<pad>": 1, "a": 2, "cat": 3, "dog": 4, "on": 5, "sat": 6, "the": 7}

CASES = {
    "pads to the longest text": (["The cat sat on a dog.", "a cat", "dog"], STOI, None),
    "unknown words": (["the zebra sat on the unicorn", "quokka"], STOI, None),
    "max_length longer than every text": (["the cat", "a dog sat"], STOI, 6),
    "max_length cuts long texts": (["the cat sat on the dog", "a cat sat", "on"], STOI, 3),
    "one text, no padding needed": (["The cat sat."], STOI, None),
    "special ids looked up in stoi": (["the cat", "a dog sat on the unicorn"], SWAPPED, None),
    "punctuation inside words": (["The cat's dog-toy sat.", "a.dog"], STOI, None),
}


@pytest.mark.weight(3)
@pytest.mark.parametrize("texts, stoi, max_length", CASES.values(), ids=CASES.keys())
def test_matches_the_reference(student, reference, texts, stoi, max_length):
    """gives the reference's ids, padded on the right, as a LongTensor (batch, L)"""
    expect_same(student, reference, probes.encode, {"texts": texts, "stoi": stoi, "max_length": max_length})
