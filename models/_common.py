"""Helpers shared by the bundled model builders: seeded construction and BatchNorm calibration.

Owns: making weights a pure function of the seed without touching the caller's global RNG state.
Does not own: any particular architecture.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from torch import nn


def seeded(seed: int, factory: Callable[[], nn.Module]) -> nn.Module:
    """Call `factory()` with torch's RNG seeded by `seed`; the caller's RNG state is left as it was."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return factory()


def calibrate_batchnorm(model: nn.Module, shape: Sequence[int], seed: int, low: float = -1.0,
                        high: float = 1.0) -> nn.Module:
    """Set every BatchNorm's running statistics from one seeded random batch, as a trained network has them.

    With random weights and the default statistics (mean 0, var 1) activations grow or vanish layer by layer,
    which makes numerical checks and quantization meaningless. One forward in train mode with cumulative
    averaging (momentum=None) of the BatchNorm layers gives each layer unit-scale outputs. It runs in float64 so that the float32
    statistics do not depend on the thread count's summation order.
    """
    bns = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    gen = torch.Generator().manual_seed(seed + 1)
    x = torch.rand(tuple(shape), generator=gen, dtype=torch.float64) * (high - low) + low
    saved = [bn.momentum for bn in bns]
    model.double().eval()
    for bn in bns:  # only BatchNorm in train mode: dropout stays off and draws nothing from the RNG
        bn.train()
        bn.reset_running_stats()
        bn.momentum = None
    with torch.no_grad(), torch.random.fork_rng(devices=[]):
        model(x)
    for bn, momentum in zip(bns, saved, strict=True):
        bn.momentum = momentum
    return model.float().eval()
