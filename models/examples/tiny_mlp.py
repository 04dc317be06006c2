"""A user builder example: `edgeprof deploy --model models/examples/tiny_mlp.py:build ...`.

The contract (docs/models.md): `build(seed)` returns `(module, {input name: example tensor})`. Dim 0 of each
example is the batch (exported as dynamic); the names are forward()'s parameter names.
"""

import torch
from torch import nn


class TinyMLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        return self.net(features)


def build(seed: int):
    torch.manual_seed(seed)
    return TinyMLP().eval(), {"features": torch.rand(1, 16)}
