"""Do the graders judge what the contract says, and say so in words a student can act on?"""
import json
import subprocess
import sys

import numpy as np
import pytest

from autograder import KIT_ROOT, build
from autograder.core.compare import differences
from autograder.core.probing import EXACT, Tolerance

from .conftest import lost_names

SDPA_BODY = '''    d_k = query.size(-1)
    scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)  # (..., q_len, k_len)'''

BUILTIN_SDPA = '''    import torch.nn.functional as F
    d_k = query.size(-1)
    output = F.scaled_dot_product_attention(query, key, value, attn_mask=None if mask is None else mask != 0)
    scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)  # (..., q_len, k_len)'''


def edited_reference(mha, tmp_path, old, new, name="edited.py"):
    source = mha.reference_path.read_text()
    assert source.count(old) == 1
    path = tmp_path / name
    path.write_text(source.replace(old, new))
    return path


@pytest.mark.slow
def test_builtin_attention_in_the_exercise_scores_zero(mha, mha_grader, tmp_path):
    """Does calling F.scaled_dot_product_attention cost that exercise all its points, and only it?"""
    path = edited_reference(mha, tmp_path, SDPA_BODY, BUILTIN_SDPA)
    report = mha_grader.grade(path)
    assert report.by_name()["scaled_dot_product_attention"][0] == 0
    assert lost_names(report) == ["scaled_dot_product_attention"]  # MultiHeadAttention only calls the student's own function
    messages = [c.message for c in report.checks if c.name == "scaled_dot_product_attention" and c.gate]
    assert "torch.nn.functional.scaled_dot_product_attention" in messages[0]


@pytest.mark.slow
def test_torch_multihead_attention_scores_zero(mha, mha_grader, tmp_path):
    """Does building nn.MultiheadAttention inside MultiHeadAttention cost it all its points?"""
    old = "        self.dropout = nn.Dropout(p=dropout)\n        ### END SOLUTION"
    new = "        self.dropout = nn.Dropout(p=dropout)\n        self.shortcut = nn.MultiheadAttention(d_model, n_heads)\n        ### END SOLUTION"
    report = mha_grader.grade(edited_reference(mha, tmp_path, old, new))
    assert lost_names(report) == ["MultiHeadAttention"]
    assert report.by_name()["MultiHeadAttention"][0] == 0


def test_first_difference_names_index_and_both_values():
    """Does a value mismatch say where, with both values, and how many differ?"""
    want = {"out": np.zeros((2, 3), dtype=np.float32)}
    got = {"out": np.array([[0, 0, 0], [0, 0.5, 0]], dtype=np.float32)}
    message = differences(got, want, {"out": Tolerance(1e-4, 1e-5, "")})[0]
    assert "index (1, 1)" in message and "got 0.5" in message and "expected 0" in message and "1 of 6" in message


def test_shape_mismatch_comes_first():
    want = {"out": np.zeros((2, 4, 5, 3))}
    got = {"out": np.zeros((2, 5, 4, 3))}
    assert differences(got, want, {"out": EXACT}) == ["out has shape (2, 5, 4, 3); expected (2, 4, 5, 3)"]


def test_dtype_and_device_are_checked():
    want = {"ids": np.zeros(3), "ids@dtype": np.array("int64")}
    assert "dtype float32" in differences({"ids": np.zeros(3), "ids@dtype": np.array("float32")}, want, {"ids": EXACT})[0]
    on_cpu = {"ids": np.zeros(3), "ids@dtype": np.array("int64"), "ids@device": np.array("cpu")}
    assert "expected it on cuda" in differences(on_cpu, want, {"ids": EXACT}, device="cuda")[0]


@pytest.mark.slow
def test_plain_pytest_runs_the_graders(mha, tmp_path):
    """Can an instructor run the hidden graders with plain pytest against a submission?"""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "autograder", "-q", "-p", "no:cacheprovider",
         "--submission", str(build.sample_path(mha)), "--results", str(tmp_path), "--allow-unsandboxed"],
        capture_output=True, text=True, cwd=KIT_ROOT, env={"PYTHONDONTWRITEBYTECODE": "1", "PATH": ""},
    )
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]  # the sample's PositionalEncoding fails
    assert "test_positional_encoding.py::test_table" in done.stdout and "PositionalEncoding" in done.stdout
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["extra_data"]["by_name"]["tokenize"]["score"] == 2


def test_plain_pytest_without_a_submission_says_what_to_pass():
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "autograder", "-q", "-p", "no:cacheprovider"],
        capture_output=True, text=True, cwd=KIT_ROOT, env={"PYTHONDONTWRITEBYTECODE": "1", "PATH": ""},
    )
    assert done.returncode != 0 and "--submission PATH" in done.stderr
