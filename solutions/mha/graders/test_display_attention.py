"""Hidden checks of display_attention: one heatmap per head, the tokens on the axes."""

import numpy as np
import pytest

from autograder.grade.authoring import expect_same, require, rng

from .. import probes

GRADED = "display_attention"


def weights(seed, *shape):
    scores = rng(seed).standard_normal(shape)
    probs = np.exp(scores) / np.exp(scores).sum(-1, keepdims=True)
    return probs.astype(np.float32)


# Few heads, short sentences and few figures on purpose: each call of the student's
# function builds a matplotlib figure, 10 to 30 ms of the student's process, more than
# all the other exercises' checks together. Each case is one call, checked three ways
# (heatmaps, labels, colours). Labels that only line up with matplotlib's automatic
# ticks (one per cell up to about 9 cells, every 2 or 5 cells beyond) are right for
# short sentences only: one case has 12 keys and 10 queries.
CASES = {  # sentence (keys, x axis), translation (queries, y axis), heads, rows, cols, batch axis
    "4 heads on a 2 x 2 grid, queries differ from keys": (["das", "ist", "ein"], ["this", "is"], 4, 2, 2, False),
    # The course's own idiom, attention.squeeze(0)[h], reads one head from (1, 1, q_len, k_len).
    "one head, as (1, 1, q_len, k_len)": (["attention", "please"], None, 1, 1, 1, True),
    "12 keys, 10 queries, one head": (
        ["the", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog", "and", "runs", "away"],
        ["der", "schnelle", "braune", "fuchs", "springt", "über", "den", "faulen", "hund", "weg"],
        1,
        1,
        1,
        False,
    ),
}
# Gradients get a case of their own: code that forgets .detach() fails here only.
WITH_GRADIENTS = (["a", "layer", "says"], ["ein", "layer"], 1, 1, 1, False)


def inputs(seed, sentence, translation, n_heads, n_rows, n_cols, batch_dim=False):
    translation = translation or sentence
    attention = weights(seed, n_heads, len(translation), len(sentence))
    return {
        "sentence": sentence,
        "translation": translation,
        "attention": attention[None] if batch_dim else attention,
        "n_heads": n_heads,
        "n_rows": n_rows,
        "n_cols": n_cols,
    }


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_one_heatmap_per_head(student, reference, case):
    """returns a Figure with one heatmap per head showing that head's weights"""
    got = expect_same(student, reference, probes.display_attention, inputs(89, *case), keys=("heads",))
    require("data" in got, "each heatmap should have len(translation) rows and len(sentence) columns")
    expect_same(student, reference, probes.display_attention, inputs(89, *case), keys=("data",))


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_tokens_label_the_axes(student, reference, case):
    """labels the columns with the sentence and the rows with the translation"""
    expect_same(student, reference, probes.display_attention, inputs(89, *case), keys=("x_labels", "y_labels"))


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_colours_from_0_to_1(student, reference, case):
    """draws every head on one colour scale, from weight 0 to weight 1 (vmin=0, vmax=1)"""
    expect_same(student, reference, probes.display_attention, inputs(89, *case), keys=("limits",))


def test_accepts_weights_that_carry_gradients(student, reference):
    """accepts the attn_probs of a layer as they come, with gradients attached"""
    expect_same(
        student,
        reference,
        probes.display_attention,
        {**inputs(103, *WITH_GRADIENTS), "requires_grad": True},
        keys=("heads", "data"),
    )


def test_accepts_a_batch_of_one(student, reference):
    """accepts attention of shape (1, n_heads, q_len, k_len), as a layer returns it for one sentence"""
    expect_same(
        student,
        reference,
        probes.display_attention,
        inputs(89, *CASES["one head, as (1, 1, q_len, k_len)"]),
        keys=("heads", "data"),
    )
