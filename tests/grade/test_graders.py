"""Do the graders judge what the contract says, and say so in words a student can act on?"""

import json

import pytest

from autograder.author.samples import sample_path

from ..conftest import lost_names

SDPA_BODY = """    d_k = query.size(-1)
    scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)  # (..., q_len, k_len)"""

# Ways of calling PyTorch's own attention inside the exercise: each must cost it all its points.
BUILTINS = {
    "torch.nn.functional": "    import torch.nn.functional as F\n    F.scaled_dot_product_attention(query, key, value)\n",
    "torch._C._nn": "    torch._C._nn.scaled_dot_product_attention(query, key, value)\n",
    "torch.ops.aten": "    torch.ops.aten.scaled_dot_product_attention(query, key, value)\n",
    "the fused CPU kernel": "    torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(query[None] if query.dim() == 3 else query, key[None] if key.dim() == 3 else key, value[None] if value.dim() == 3 else value)\n",
}


def edited_reference(mha, tmp_path, old, new, name="edited.py"):
    source = mha.reference_path.read_text()
    assert source.count(old) == 1
    path = tmp_path / name
    path.write_text(source.replace(old, new))
    return path


@pytest.mark.slow
@pytest.mark.parametrize("route", BUILTINS.values(), ids=BUILTINS.keys())
def test_builtin_attention_in_the_exercise_scores_zero(mha, mha_grader, tmp_path, route):
    """Does calling PyTorch's attention, by any route, cost that exercise all its points and name the call?"""
    report = mha_grader.grade(edited_reference(mha, tmp_path, SDPA_BODY, route + SDPA_BODY))
    assert report.by_name()["scaled_dot_product_attention"][0] == 0
    # MultiHeadAttention calls the student's own function, which fails: it loses as its caller,
    # but its own gate holds (its code made no such call).
    assert set(lost_names(report)) <= {"scaled_dot_product_attention", "MultiHeadAttention"}
    gates = {c.name: c for c in report.hidden if c.gate}
    assert (
        gates["scaled_dot_product_attention"].status == "failed"
        and "calls PyTorch's own attention" in gates["scaled_dot_product_attention"].message
    )
    assert gates["MultiHeadAttention"].status == "passed"


@pytest.mark.slow
def test_torch_multihead_attention_scores_zero(mha, mha_grader, tmp_path):
    """Does building nn.MultiheadAttention inside MultiHeadAttention cost it all its points?"""
    old = "        self.dropout = nn.Dropout(p=dropout)\n        ### END SOLUTION"
    new = "        self.dropout = nn.Dropout(p=dropout)\n        self.shortcut = nn.MultiheadAttention(d_model, n_heads)\n        ### END SOLUTION"
    report = mha_grader.grade(edited_reference(mha, tmp_path, old, new))
    assert lost_names(report) == ["MultiHeadAttention"]
    assert report.by_name()["MultiHeadAttention"][0] == 0


@pytest.mark.slow
def test_a_crash_is_not_taken_for_a_builtin_call(mha, mha_grader, tmp_path):
    """Does a softmax over dim=3 (right on 4-D inputs, a crash on 3-D ones) cost only the cases it fails?"""
    path = edited_reference(mha, tmp_path, "attn_probs = scores.softmax(dim=-1)", "attn_probs = scores.softmax(dim=3)")
    report = mha_grader.grade(path)
    score, top = report.by_name()["scaled_dot_product_attention"]
    assert 0 < score < top
    gate = next(c for c in report.hidden if c.gate and c.name == "scaled_dot_product_attention")
    assert gate.status == "passed"


@pytest.mark.slow
def test_a_float_mask_with_the_right_values_loses_its_bool_check_only(mha, mha_grader, tmp_path):
    """Does a float causal mask, right where it allows, lose only the check of its dtype, and hear why?"""
    path = edited_reference(
        mha, tmp_path, "torch.tril(torch.ones(size, size, dtype=torch.bool))", "torch.tril(torch.ones(size, size))"
    )
    report = mha_grader.grade(path)
    assert lost_names(report) == ["make_causal_mask"]
    score, top = report.by_name()["make_causal_mask"]
    assert 0 < score < top
    failed = [c for c in report.hidden if c.status == "failed"]
    assert [c.title for c in failed] == ["gives a bool tensor (dtype torch.bool), which combines with other masks by &"]
    assert "dtype: got 'float32', expected 'bool'" in failed[0].message
    assert "The mask is float" in failed[0].message


@pytest.fixture
def without_carry(mha_grader):
    """The grader of mha with error carried forward turned off (points.toml's carry_forward = false)."""
    mha_grader.carry_forward_enabled = False
    yield mha_grader
    mha_grader.carry_forward_enabled = True


@pytest.mark.slow
def test_a_caller_points_to_the_failing_exercise_it_calls(mha, without_carry, tmp_path):
    """Without error carried forward, with scaled_dot_product_attention failing its own checks (its scores divided
    by sqrt(d_k * dim 1), which the layer's outputs share with a mistake of the layer's own), does each failing
    check of MultiHeadAttention say first to fix scaled_dot_product_attention, and name no mistake of its own?"""
    path = edited_reference(
        mha,
        tmp_path,
        "scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)",
        "scores = query @ key.transpose(-2, -1) / math.sqrt(d_k * query.size(1))",
    )
    report = without_carry.grade(path)
    failing = [c for c in report.checks if c.name == "MultiHeadAttention" and c.status == "failed"]
    first = "MultiHeadAttention calls scaled_dot_product_attention, which fails its own check: fix that first."
    assert failing and all(first in c.message.split("\n", 1)[0] for c in failing)
    assert "mha_scaled_by_d_model" not in report.mistakes()


NOTE = "MultiHeadAttention graded with the reference's split_heads, since yours fails its own checks"


@pytest.mark.slow
def test_a_caller_is_graded_with_the_reference_standing_in(mha, mha_grader, tmp_path):
    """With split_heads wrong and the layer right (a notebook), does the layer earn all its points, every check of
    it saying that the reference's split_heads stood in, while split_heads loses its own?"""
    from autograder.results.write import write_results

    report = mha_grader.grade(sample_path(mha, "split_heads_without_transpose"))
    assert lost_names(report) == ["split_heads"]
    layer = [c for c in report.checks if c.name == "MultiHeadAttention"]
    assert {c.kind for c in layer} == {"hidden", "visible"}
    assert all(c.status == "passed" and NOTE in c.message and c.carried == ["split_heads"] for c in layer)
    assert report.mistakes() == ["split_heads_without_transpose"]
    results = json.loads(write_results(report, tmp_path / "out").read_text())
    tests = [t for t in results["tests"] if t["tags"] == ["MultiHeadAttention"]]
    assert tests and all(t["extra_data"]["carried"] == ["split_heads"] for t in tests)


@pytest.mark.slow
def test_a_carried_caller_is_judged_on_its_own_mistake(mha, mha_grader, tmp_path):
    """With scaled_dot_product_attention unscaled and the layer not passing its mask on, is the layer graded with
    the reference's attention, losing its mask checks only, with its own mistake named?"""
    source = mha.reference_path.read_text()
    for old, new in (
        ("scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)", "scores = query @ key.transpose(-2, -1)"),
        ("scaled_dot_product_attention(Q, K, V, mask, self.dropout)", "scaled_dot_product_attention(Q, K, V, None, self.dropout)"),
    ):  # fmt: skip
        source = source.replace(old, new)
    path = tmp_path / "two_mistakes.py"
    path.write_text(source)
    report = mha_grader.grade(path)
    failed = [c for c in report.hidden if c.name == "MultiHeadAttention" and c.status == "failed"]
    assert [c.title for c in failed] == ["attends from the queries to separate keys and values, and honours masks"]
    assert failed[0].carried == ["scaled_dot_product_attention"] and "fix that first" not in failed[0].message
    assert failed[0].mistakes == ["mha_mask_not_passed"]
    assert {"attention_not_scaled", "mha_mask_not_passed"} == set(report.mistakes())


@pytest.mark.slow
def test_a_caller_that_does_not_call_the_failing_exercise_is_not_sent_to_it(mha, mha_grader, tmp_path):
    """When the layer computes its attention inline (and forgets Wo), is a failing scaled_dot_product_attention left
    out of its feedback, and the layer's own mistake named?"""
    path = edited_reference(
        mha,
        tmp_path,
        "A, attn_probs = scaled_dot_product_attention(Q, K, V, mask, self.dropout)\n"
        "        return self.Wo(combine_heads(A)), attn_probs",
        "scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.size(-1))\n"
        "        if mask is not None:\n"
        '            scores = scores.masked_fill(mask == 0, float("-inf"))\n'
        "        attn_probs = scores.softmax(dim=-1)\n"
        "        return combine_heads(self.dropout(attn_probs) @ V), attn_probs",
    )
    path.write_text(path.read_text().replace("/ math.sqrt(d_k)  #", "#"))  # the free function, unscaled, fails
    report = mha_grader.grade(path)
    assert lost_names(report) == ["MultiHeadAttention", "scaled_dot_product_attention"]
    assert not any("fix that first" in c.message for c in report.checks)
    assert {"attention_not_scaled", "output_projection_missing"} <= set(report.mistakes())


@pytest.mark.slow
def test_a_figure_from_pyplot_costs_nothing_and_gets_a_note(mha, mha_grader, tmp_path):
    """Does a display_attention drawn with pyplot keep full marks, its visible check noting that Jupyter shows it twice?"""
    path = edited_reference(
        mha,
        tmp_path,
        'fig = Figure(figsize=(4 * n_cols, 4 * n_rows), layout="constrained")',
        'import matplotlib.pyplot as plt\n    fig = plt.figure(figsize=(4 * n_cols, 4 * n_rows), layout="constrained")',
    )
    report = mha_grader.grade(path)
    assert report.score == report.max_score
    noted = [c for c in report.checks if "the figure comes from pyplot" in c.message]
    assert [(c.kind, c.status) for c in noted] == [("visible", "passed")]
