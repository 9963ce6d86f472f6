import string
from typing import Dict, List, Optional

import torch
import torch.nn.functional as F
from torch.nn.utils.rnn import pad_sequence

_DELETE_PUNCT = str.maketrans(dict.fromkeys(string.punctuation))


def tokenize(text: str) -> List[str]:
    return text.lower().translate(_DELETE_PUNCT).split()


def build_vocab(texts: List[str]) -> Dict[str, int]:
    unique = sorted({tok for text in texts for tok in tokenize(text)})
    stoi = {"<pad>": 0, "<unk>": 1}
    stoi.update({tok: i for i, tok in enumerate(unique, start=len(stoi))})
    return stoi


def _lookup(tokens: List[str], stoi: Dict[str, int]) -> torch.Tensor:
    unk = stoi["<unk>"]
    return torch.tensor([stoi.get(t, unk) for t in tokens], dtype=torch.long)


def encode(texts: List[str], stoi: Dict[str, int], max_length: Optional[int] = None) -> torch.Tensor:
    pad = stoi["<pad>"]
    seqs = [_lookup(tokenize(t), stoi) for t in texts]
    if max_length is not None:
        seqs = [s[:max_length] for s in seqs]
    batch = pad_sequence(seqs, batch_first=True, padding_value=pad)
    if max_length is not None and batch.size(1) < max_length:
        batch = F.pad(batch, (0, max_length - batch.size(1)), value=pad)
    return batch.long()
