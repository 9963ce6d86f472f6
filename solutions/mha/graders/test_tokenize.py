"""Hidden checks of tokenize: lowercase, no punctuation, split on any whitespace."""

import pytest

from autograder.grade.authoring import expect_same

from .. import probes

GRADED = "tokenize"

TEXTS = {
    "mixed case and punctuation": "Where, Exactly, Did THE Cat sit?!",
    "tabs, newlines and repeated spaces": "  the\tcat \n\n sat   on\tthe mat  ",
    "only punctuation": "?!... --- ;:",
    "empty": "",
    "apostrophes and hyphens inside words": "Don't dry-clean the cat's rug.",
    "digits and symbols": "3 cats @ 10:30 cost $4.50 (each)",
    "every punctuation character": "a!b\"c#d$e%f&g'h(i)j*k+l,m-n.o/p:q;r<s=t>u?v@w[x\\y]z^_`{|}~end",
    "one word": "Attention",
}


@pytest.mark.weight(3)
@pytest.mark.parametrize("text", TEXTS.values(), ids=TEXTS.keys())
def test_matches_the_reference(student, reference, text):
    """lowercases, removes string.punctuation and splits on whitespace like the reference"""
    expect_same(student, reference, probes.tokenize, {"text": text})
