# Source: a public adaptation of bentrevett/pytorch-seq2seq's "6 - Attention is All You Need"
#   EncoderLayer that comments out self_attn_layer_norm and ff_layer_norm and uses one
#   `self.layer_norm = nn.LayerNorm(hid_dim)` for both: `src = self.layer_norm(src + self.dropout(_src))`
#   after the attention and again after the feed-forward layer.
# Adapted: as correct_bentrevett.py (Wq/Wk/Wv/Wo, w_1/w_2, the contract's names and
#   constructor); the one norm and the one dropout become one SublayerConnection, listed
#   twice as sublayer[0] and sublayer[1].
# From the reference: LayerNorm, a subclass of nn.LayerNorm with the contract's signature.
# Mistake kept: one norm shared by the attention and the feed-forward sublayers, where the
#   contract asks for two, each with weights of its own.
import torch
import torch.nn as nn


class MultiHeadAttention(nn.Module):
    def __init__(self, hid_dim=512, n_heads=8, dropout=0.1):
        super().__init__()
        assert hid_dim % n_heads == 0
        self.hid_dim = hid_dim
        self.n_heads = n_heads
        self.head_dim = hid_dim // n_heads
        self.Wq = nn.Linear(hid_dim, hid_dim)
        self.Wk = nn.Linear(hid_dim, hid_dim)
        self.Wv = nn.Linear(hid_dim, hid_dim)
        self.Wo = nn.Linear(hid_dim, hid_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key, value, mask=None):
        batch_size = query.shape[0]
        scale = torch.sqrt(torch.tensor([float(self.head_dim)], device=query.device, dtype=query.dtype))
        # query = [batch size, query len, hid dim]
        Q = self.Wq(query)
        K = self.Wk(key)
        V = self.Wv(value)
        Q = Q.view(batch_size, -1, self.n_heads, self.head_dim).permute(0, 2, 1, 3)
        K = K.view(batch_size, -1, self.n_heads, self.head_dim).permute(0, 2, 1, 3)
        V = V.view(batch_size, -1, self.n_heads, self.head_dim).permute(0, 2, 1, 3)
        # Q = [batch size, n heads, query len, head dim]
        energy = torch.matmul(Q, K.permute(0, 1, 3, 2)) / scale
        # energy = [batch size, n heads, query len, key len]
        if mask is not None:
            energy = energy.masked_fill(mask == 0, -1e10)
        attention = torch.softmax(energy, dim=-1)
        x = torch.matmul(self.dropout(attention), V)
        # x = [batch size, n heads, query len, head dim]
        x = x.permute(0, 2, 1, 3).contiguous()
        x = x.view(batch_size, -1, self.hid_dim)
        x = self.Wo(x)
        return x, attention


class LayerNorm(nn.LayerNorm):
    def __init__(self, d_model, eps=1e-5):
        super().__init__(d_model, eps=eps)


class PositionwiseFeedForward(nn.Module):
    def __init__(self, hid_dim, pf_dim, dropout=0.1):
        super().__init__()
        self.w_1 = nn.Linear(hid_dim, pf_dim)
        self.w_2 = nn.Linear(pf_dim, hid_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        # x = [batch size, seq len, hid dim]
        x = self.dropout(torch.relu(self.w_1(x)))
        # x = [batch size, seq len, pf dim]
        x = self.w_2(x)
        # x = [batch size, seq len, hid dim]
        return x


class SublayerConnection(nn.Module):
    def __init__(self, hid_dim, dropout=0.1):
        super().__init__()
        self.norm = nn.LayerNorm(hid_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, src, sublayer):
        _src = sublayer(src)
        # dropout, residual connection and layer norm
        return self.norm(src + self.dropout(_src))


class EncoderLayer(nn.Module):
    def __init__(self, hid_dim=512, n_heads=8, pf_dim=2048, dropout=0.1):
        super().__init__()
        self.self_attn = MultiHeadAttention(hid_dim, n_heads, dropout)
        self.feed_forward = PositionwiseFeedForward(hid_dim, pf_dim, dropout)
        self.layer_norm = SublayerConnection(hid_dim, dropout)  # one norm for both sublayers
        self.sublayer = nn.ModuleList([self.layer_norm, self.layer_norm])

    def forward(self, src, src_mask=None):
        # src = [batch size, src len, hid dim]
        # src_mask = [batch size, 1, 1, src len]
        src = self.sublayer[0](src, lambda s: self.self_attn(s, s, s, src_mask)[0])
        src = self.sublayer[1](src, self.feed_forward)
        return src
