"""Hidden checks of PositionalEncoding: the sine/cosine table, added, as a buffer, with dropout."""

import numpy as np
import pytest

from autograder.grade.authoring import expect_same, normal, require

from .. import probes

GRADED = "PositionalEncoding"

TABLES = {  # d_model, max_length, batch, seq
    "the seed example: d_model 8, 10 positions": (8, 10, 3, 6),
    "d_model 2": (2, 16, 1, 16),
    "d_model 6 (not a power of two)": (6, 40, 2, 7),
    "d_model 64, 128 positions": (64, 128, 2, 33),
    "seq 1": (12, 20, 4, 1),
}


def inputs(seed, d_model, max_length, batch, seq):
    return {"d_model": d_model, "max_length": max_length, "x": normal(seed, batch, seq, d_model)}


@pytest.mark.weight(2)
@pytest.mark.parametrize("shape", TABLES.values(), ids=TABLES.keys())
def test_table(student, reference, shape):
    """stores pe[0, pos, 2i] = sin(pos / 10000^(2i/d)), pe[0, pos, 2i+1] = cos(same), shape (1, max_length, d)"""
    got = student.run(probes.positional_encoding.probe_id, inputs(5, *shape))
    require(
        "table" in got, "PositionalEncoding has no tensor attribute pe: keep the table in self.pe, with register_buffer"
    )
    expect_same(student, reference, probes.positional_encoding, inputs(5, *shape), keys=("table",))


def test_default_table(student, reference):
    """covers 5000 positions by default"""
    expect_same(student, reference, probes.positional_encoding_default_table, {"d_model": 16})


@pytest.mark.weight(2)
@pytest.mark.parametrize("shape", TABLES.values(), ids=TABLES.keys())
def test_adds_the_table(student, reference, shape):
    """returns x + pe[:, :seq] in eval mode"""
    expect_same(student, reference, probes.positional_encoding, inputs(9, *shape), keys=("out",))


def test_input_unchanged(student, reference):
    """leaves the tensor it is given unchanged (x + pe is a new tensor, not x += pe)"""
    expect_same(
        student,
        reference,
        probes.positional_encoding_input_kept,
        inputs(21, *TABLES["the seed example: d_model 8, 10 positions"]),
        what="x += pe changes the caller's tensor",
    )


def test_nothing_is_trained(student):
    """has no trainable parameters and keeps pe as a buffer"""
    case = inputs(1, 8, 10, 1, 3)
    got = student.run(probes.positional_encoding.probe_id, case)
    evidence = {
        "probe_id": probes.positional_encoding.probe_id,
        "inputs": case,
        "got": got,
        "keys": ("trainable", "buffer"),
    }
    require(
        int(got["trainable"]) == 0,
        f"PositionalEncoding has {int(got['trainable'])} trainable numbers; the table must not be trained: use register_buffer, not nn.Parameter",
        evidence,
    )
    require(
        bool(got["buffer"]),
        "PositionalEncoding should keep its table as a buffer named pe: self.register_buffer('pe', table)",
        evidence,
    )


def test_dropout_after_adding(student):
    """in train mode, applies dropout to x + pe: each output is 0 or its eval-mode value / (1 - p)"""
    p = 0.5
    dropout_inputs = {"d_model": 16, "max_length": 32, "x": normal(3, 4, 20, 16), "p": p}
    outputs = student.run(probes.positional_encoding_dropout.probe_id, dropout_inputs)
    evidence = {"probe_id": probes.positional_encoding_dropout.probe_id, "inputs": dropout_inputs, "got": outputs}
    train, summed = outputs["train"], outputs["eval"]  # the student's own x + pe: only the dropout is judged here
    require(train.shape == summed.shape, f"train-mode output has shape {train.shape}; eval mode gives {summed.shape}")
    implied = probes.implied_probability(train, summed, p)
    require(
        abs(implied - p) <= probes.IMPLIED_PROBABILITY.atol,
        f"in train mode the kept outputs are (x + pe) / {1 - implied:.3g}: the dropout's probability is "
        f"{implied:.3g}, not the p = {p} given: build self.dropout = nn.Dropout(dropout)",
        evidence,
    )
    zero = train == 0
    scaled = np.isclose(train, summed / (1 - p), rtol=1e-5, atol=1e-6)  # one float32 multiply apart
    require(
        bool(np.all(zero | scaled)),
        "in train mode some outputs are neither 0 nor (x + pe) / (1 - p): apply self.dropout to x + pe, as the last step",
        evidence,
    )
    require(
        0.2 < zero.mean() < 0.8,
        f"with dropout p = {p}, {zero.mean():.0%} of the outputs are 0; about half should be: is self.dropout applied, with the p given?",
        evidence,
    )
