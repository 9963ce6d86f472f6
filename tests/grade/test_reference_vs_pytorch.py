"""Is the reference itself right? Checked against PyTorch's own attention and encoder layer."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from autograder import assignments
from autograder.grade.reference import Reference


@pytest.fixture(scope="module")
def ref(mha):
    return Reference.of(mha).impl


@pytest.mark.parametrize("q_len, k_len", [(5, 5), (3, 7), (1, 1)])
@pytest.mark.parametrize("masked", [False, True])
def test_attention_matches_torch(ref, q_len, k_len, masked):
    """Does the reference's attention equal F.scaled_dot_product_attention, masks included?"""
    generator = torch.Generator().manual_seed(q_len * 10 + k_len)
    q, k, v = (torch.randn(2, 3, n, 8, generator=generator) for n in (q_len, k_len, k_len))
    mask = torch.rand(2, 1, q_len, k_len, generator=generator) > 0.3 if masked else None
    if mask is not None:
        mask[..., 0] = True  # every query sees at least one key
    ours, probs = ref.scaled_dot_product_attention(q, k, v, mask=mask)
    theirs = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    # Both sum the same float32 products in a different order: a few ulp of values of order 1.
    torch.testing.assert_close(ours, theirs, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(probs.sum(-1), torch.ones(2, 3, q_len), rtol=0, atol=1e-6)


@pytest.mark.parametrize("d_model, n_heads, q_len, k_len", [(8, 4, 6, 6), (12, 3, 3, 7), (64, 8, 5, 5)])
def test_multi_head_attention_matches_torch(ref, d_model, n_heads, q_len, k_len):
    """Does the reference's layer equal nn.MultiheadAttention with the same weights?"""
    torch.manual_seed(d_model + n_heads)
    theirs = torch.nn.MultiheadAttention(d_model, n_heads, dropout=0.0, batch_first=True).eval()
    ours = ref.MultiHeadAttention(d_model, n_heads, dropout=0.0).eval()
    with torch.no_grad():  # torch keeps Wq, Wk, Wv stacked in in_proj_weight
        for i, layer in enumerate((ours.Wq, ours.Wk, ours.Wv)):
            layer.weight.copy_(theirs.in_proj_weight[i * d_model : (i + 1) * d_model])
            layer.bias.copy_(theirs.in_proj_bias[i * d_model : (i + 1) * d_model])
        ours.Wo.weight.copy_(theirs.out_proj.weight)
        ours.Wo.bias.copy_(theirs.out_proj.bias)
    query, key = torch.randn(2, q_len, d_model), torch.randn(2, k_len, d_model)
    causal = ref.make_causal_mask(q_len) if q_len == k_len else None
    out, probs = ours(query, key, key, mask=causal)
    expected, expected_probs = theirs(
        query, key, key, attn_mask=None if causal is None else ~causal[0, 0], average_attn_weights=False
    )
    torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(probs, expected_probs, rtol=1e-5, atol=1e-6)


def test_positional_table_matches_the_formula(ref):
    """Is the reference's table the paper's formula, computed independently in float64?"""
    d_model, length = 10, 50
    pe = ref.PositionalEncoding(d_model, dropout=0.0, max_length=length).pe[0].double().numpy()
    pos = np.arange(length)[:, None]
    for i in range(d_model // 2):
        angle = pos[:, 0] / 10000 ** (2 * i / d_model)
        np.testing.assert_allclose(pe[:, 2 * i], np.sin(angle), atol=1e-7)  # float32 storage of values <= 1
        np.testing.assert_allclose(pe[:, 2 * i + 1], np.cos(angle), atol=1e-7)


def test_tokenize_example(ref):
    """Does the reference give the contract's own example?"""
    assert ref.tokenize("Hello, what is a basic split?") == ["hello", "what", "is", "a", "basic", "split"]


@pytest.fixture(scope="module")
def encoder_ref():
    return Reference.of(assignments.get("encoder_block")).impl


@pytest.mark.parametrize(
    "d_model, n_heads, d_ff, lengths", [(8, 2, 32, (5, 3)), (12, 3, 24, (4, 4, 2)), (64, 8, 256, (7, 1))]
)
def test_encoder_layer_matches_torch(encoder_ref, d_model, n_heads, d_ff, lengths):
    """Does the reference's layer equal nn.TransformerEncoderLayer (post-norm, ReLU) with the same weights and padding?"""
    torch.manual_seed(d_model + d_ff)
    theirs = torch.nn.TransformerEncoderLayer(d_model, n_heads, d_ff, dropout=0.0, batch_first=True).eval()
    assert not theirs.norm_first  # torch's default is the paper's post-norm, as the exercise's
    ours = encoder_ref.EncoderLayer(d_model, n_heads, d_ff, dropout=0.0).eval()
    with torch.no_grad():
        for norm in (theirs.norm1, theirs.norm2):  # away from 1 and 0, so that each norm's weights count
            norm.weight.normal_(1.0, 0.3)
            norm.bias.normal_(0.0, 0.3)
        attention = ours.self_attn  # torch keeps Wq, Wk, Wv stacked in in_proj_weight
        for i, layer in enumerate((attention.Wq, attention.Wk, attention.Wv)):
            layer.weight.copy_(theirs.self_attn.in_proj_weight[i * d_model : (i + 1) * d_model])
            layer.bias.copy_(theirs.self_attn.in_proj_bias[i * d_model : (i + 1) * d_model])
        pairs = [
            (attention.Wo, theirs.self_attn.out_proj),
            (ours.feed_forward.w_1, theirs.linear1),
            (ours.feed_forward.w_2, theirs.linear2),
            (ours.sublayer[0].norm, theirs.norm1),
            (ours.sublayer[1].norm, theirs.norm2),
        ]
        for mine, torchs in pairs:
            mine.weight.copy_(torchs.weight)
            mine.bias.copy_(torchs.bias)
    seq = max(lengths)
    x = torch.randn(len(lengths), seq, d_model)
    real = torch.arange(seq)[None, :] < torch.tensor(lengths)[:, None]  # (batch, seq), True on real tokens
    # Gradients stay enabled, so torch takes its plain Python path, which computes the padded rows too.
    expected = theirs(x, src_key_padding_mask=~real)
    got = ours(x, real[:, None, None, :])
    # Both sum the same float32 products in another order, through two norms of tokens of std ~1.
    torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-5)
