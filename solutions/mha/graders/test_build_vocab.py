"""Hidden checks of build_vocab: specials first, then the sorted unique tokens."""

import pytest

from autograder.grade.authoring import expect_same, require

from .. import probes

GRADED = "build_vocab"

CORPORA = {
    "repeated words across texts": ["the cat sat", "The cat ran!", "a dog sat on the cat"],
    "punctuation and case variants of one word": ["Split? split. SPLIT!", "splits"],
    "an empty text among others": ["", "zebra apple", "mango"],
    "one text": ["attention is all you need"],
    "words that sort before and after the specials": ["aardvark zulu 42 _under"],
}


def test_pad_is_0_and_unk_is_1(student):
    """gives <pad> the id 0 and <unk> the id 1"""
    case = {"texts": ["the cat sat"]}
    got = student.run(probes.build_vocab.probe_id, case)
    evidence = {"probe_id": probes.build_vocab.probe_id, "inputs": case, "got": got, "keys": ("words", "ids")}
    pairs = dict(zip(got.get("words", []), got.get("ids", [])))
    require(pairs.get("<pad>") == 0, f"<pad> should have id 0, has {pairs.get('<pad>')}", evidence)
    require(pairs.get("<unk>") == 1, f"<unk> should have id 1, has {pairs.get('<unk>')}", evidence)


@pytest.mark.weight(2)
@pytest.mark.parametrize("texts", CORPORA.values(), ids=CORPORA.keys())
def test_matches_the_reference(student, reference, texts):
    """numbers the sorted unique tokens from 2 on, like the reference"""
    expect_same(student, reference, probes.build_vocab, {"texts": texts})
