"""Op microbenchmarks in DeepBench's spirit: one GEMM or one convolution, shapes from the model name.

Owns: the two single-op modules. Shapes are parsed and validated in `edgeprof_models.get()`.
"""

from __future__ import annotations

import torch
from torch import nn

from ._common import seeded


class Gemm(nn.Module):
    """[batch, N, K] × constant [K, M] → [batch, N, M]: one MatMul node in ONNX."""

    def __init__(self, m: int, k: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.empty(k, m).uniform_(-1.0 / k**0.5, 1.0 / k**0.5))

    def forward(self, input: torch.Tensor) -> torch.Tensor:  # noqa: A002 - the ONNX input name
        return torch.matmul(input, self.weight)


class Conv(nn.Module):
    """[batch, C, H, W] → [batch, K, H, W]: one Conv node (R×R, stride 1, pad R//2, with bias)."""

    def __init__(self, c: int, k: int, r: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(c, k, r, 1, r // 2)

    def forward(self, input: torch.Tensor) -> torch.Tensor:  # noqa: A002 - the ONNX input name
        return self.conv(input)


def build_gemm(seed: int, *, M: int, N: int, K: int) -> nn.Module:  # noqa: N803 - DeepBench's names
    return seeded(seed, lambda: Gemm(M, K))


def build_conv(seed: int, *, H: int, W: int, C: int, K: int, R: int) -> nn.Module:  # noqa: N803
    return seeded(seed, lambda: Conv(C, K, R))
