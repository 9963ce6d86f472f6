import torch


def make_padding_mask(token_ids: torch.Tensor, pad_id: int = 0) -> torch.Tensor:
    """(batch, seq) -> (batch, 1, 1, seq), True for real tokens."""
    return (token_ids != pad_id).view(token_ids.size(0), 1, 1, token_ids.size(1))


def make_causal_mask(size: int) -> torch.Tensor:
    """(1, 1, size, size), True where a query may look (itself and the past)."""
    row = torch.arange(size).unsqueeze(1)
    col = torch.arange(size).unsqueeze(0)
    return (col <= row).unsqueeze(0).unsqueeze(0)
