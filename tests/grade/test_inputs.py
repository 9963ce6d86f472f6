"""Are the graders' inputs the same for the same seed, drawn as their docstrings say, whatever else draws numbers?"""

import random
import sys

import numpy as np
import pytest
import torch

from autograder.grade import inputs


def test_a_seed_gives_the_same_inputs_whatever_ran_before():
    """Do two draws with one seed agree, after other code has drawn from NumPy's, Python's and torch's generators?"""
    first = inputs.normal(3, 2, 4)
    np.random.random(10), random.random(), torch.rand(3)
    assert np.array_equal(inputs.normal(3, 2, 4), first)
    assert not np.array_equal(inputs.normal(4, 2, 4), first)


def test_rng_seeds_the_global_generators_that_student_code_may_draw_from():
    """After rng(seed), do Python's random, NumPy's global generator and torch's CPU generator give the same draws
    as after seeding each directly?"""
    inputs.rng(11)
    drawn = (random.random(), np.random.random(), torch.rand(1).item())
    random.seed(11), np.random.seed(11), torch.manual_seed(11)
    assert drawn == (random.random(), np.random.random(), torch.rand(1).item())


def test_rng_does_not_import_torch(monkeypatch):
    """Where PyTorch is not in use (attention_numpy), is it left unimported?"""
    monkeypatch.delitem(sys.modules, "torch")
    inputs.rng(1)
    assert "torch" not in sys.modules


def test_normal_is_float32_of_the_shape_and_scale_asked():
    """Is normal() float32, of the given shape, with its spread scaled?"""
    values = inputs.normal(0, 200, 200, scale=3.0)
    assert values.dtype == np.float32 and values.shape == (200, 200)
    # a sample std of n draws is off by about 1/sqrt(2n) of itself: 0.35% for 40 000, 1.1% at 3 sigma
    assert values.std() == pytest.approx(3.0, rel=0.011)


def test_linear_weights_are_drawn_like_nn_linears_default():
    """Are the weight (d_out, d_in) and bias (d_out,) float32 within +-1/sqrt(d_in), spread over that range?"""
    weight, bias = inputs.linear_weights(5, 16, 8)
    assert weight.shape == (8, 16) and bias.shape == (8,) and weight.dtype == bias.dtype == np.float32
    bound = 1 / np.sqrt(16)
    assert np.abs(weight).max() <= bound and np.abs(bias).max() <= bound
    assert np.abs(weight).max() > 0.9 * bound  # 128 uniform draws reach the top tenth of the range


def test_layers_draws_each_layer_from_its_own_seed():
    """Are the layers named "<name>.weight"/"<name>.bias", the n-th drawn from seed + n?"""
    table = inputs.layers(7, ["Wq", "Wk"], 4)
    assert sorted(table) == ["Wk.bias", "Wk.weight", "Wq.bias", "Wq.weight"]
    assert np.array_equal(table["Wk.weight"], inputs.linear_weights(8, 4, 4)[0])
    assert not np.array_equal(table["Wq.weight"], table["Wk.weight"])


def test_keep_mask_drops_about_p_of_the_entries():
    """Is the mask 0.0 or 1.0, dropping about p of the entries (within 3 sigma of 10 000 draws)?"""
    mask = inputs.keep_mask(2, 100, 100, p=0.3)
    assert set(np.unique(mask)) == {0.0, 1.0} and mask.dtype == np.float32
    assert 1 - mask.mean() == pytest.approx(0.3, abs=0.014)  # 3 * sqrt(0.3 * 0.7 / 10 000)


def test_counting_names_each_position():
    """Is x[b, t, f] = (b * seq + t) * d + f?"""
    x = inputs.counting(2, 3, 4)
    assert x.dtype == np.float32 and x[1, 2, 3] == (1 * 3 + 2) * 4 + 3 and x[0, 0, 0] == 0
