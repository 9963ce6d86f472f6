# Source: cybershiptrooper/CV_bootcamp_SWB, bonus_exercises/attention/soln/attention.py
#   (multihead_attention_soln: einsum projections, heads by reshape, einsum scores and values).
# Adapted: names and signatures of the contract; the module-level sizes (b, wps, dm, nh, set by
#   set_params) become the shapes of x and n_heads; one sequence, no batch axis; the heads are split
#   with reshape (n, n_heads, -1) and moved first with transpose (1, 0, 2) (the source reshapes
#   (b, n, dm) straight to (b, nh, wps, -1)); the causal mask and the residual `attn + res_stream` are
#   left out and the heads are projected with W_o, as the contract asks; the softmax subtracts the
#   row's largest score (the source's exp(qk) is not shifted).
# From the reference (no counterpart in the source): softmax, basic_self_attention, qkv_attention,
#   positional_encoding (written with exp and log, as many tutorials do).
# Mistake kept: the weights over a global sum (a slip of the family: softmax over a global sum); one edit of correct_swb.py.
import numpy as np

dm = 128  # dimension of model
nh = 8  # number of heads


def softmax(x, axis=-1):
    shifted = x - np.max(x, axis=axis, keepdims=True)
    exps = np.exp(shifted)
    return exps / np.sum(exps, axis=axis, keepdims=True)


def basic_self_attention(x):
    weights = softmax(np.einsum("nd,md->nm", x, x), axis=-1)
    return np.einsum("nm,md->nd", weights, x)


def qkv_attention(x, W_q, W_k, W_v, scale=True):
    q = np.einsum("nm,mo->no", x, W_q)
    k = np.einsum("nm,mo->no", x, W_k)
    v = np.einsum("nm,mo->no", x, W_v)
    scores = np.einsum("nd,od->no", q, k)
    if scale:
        scores = scores / np.sqrt(k.shape[1])
    return np.einsum("no,od->nd", softmax(scores, axis=-1), v)


def multi_head_attention(x, W_q, W_k, W_v, W_o, n_heads):
    n, d_model = x.shape
    dh = d_model / n_heads
    qs = np.einsum("wm, mo -> wo", x, W_q).reshape((n, n_heads, -1)).transpose(1, 0, 2)
    vs = np.einsum("wm, mo -> wo", x, W_v).reshape((n, n_heads, -1)).transpose(1, 0, 2)
    ks = np.einsum("wm, mo -> wo", x, W_k).reshape((n, n_heads, -1)).transpose(1, 0, 2)
    qk = np.einsum("...nd, ...od->...no", qs, ks) / np.sqrt(dh)
    exp_qk = np.exp(qk - qk.max(axis=-1, keepdims=True))
    exp_qk /= np.sum(exp_qk)
    attn = np.einsum("...ij, ...jk->...ik", exp_qk, vs).transpose(1, 0, 2).reshape((n, -1))
    return attn @ W_o


def positional_encoding(seq_len, d_model):
    position = np.arange(seq_len)[:, np.newaxis]
    div_term = np.exp(np.arange(0, d_model, 2) * -(np.log(10000.0) / d_model))
    pe = np.zeros((seq_len, d_model))
    pe[:, 0::2] = np.sin(position * div_term)
    pe[:, 1::2] = np.cos(position * div_term)
    return pe
