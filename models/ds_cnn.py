"""DS-CNN keyword spotting as in MLPerf Tiny (Zhang et al. 2017, "Hello Edge"), on 49×10 MFCC features.

Layout (MLPerf Tiny `kws_ref_model`): Conv 64×(10×4) stride 2 + BN + ReLU, then 4 × [depthwise 3×3 + BN +
ReLU, pointwise 64 + BN + ReLU], average pool, dense 12. TensorFlow's asymmetric "same" padding of the first
conv is replaced by symmetric padding (5, 1), which gives the same 25×5 output. The model returns logits
(MLPerf's final softmax is left out, as in the image classifiers).

Owns: the architecture and its seeded random initialisation. Imported only by `BundledModel.build()`.
"""

from __future__ import annotations

import torch
from torch import nn

from ._common import calibrate_batchnorm, seeded


def _bn_relu(conv: nn.Conv2d) -> nn.Sequential:
    return nn.Sequential(conv, nn.BatchNorm2d(conv.out_channels), nn.ReLU(inplace=True))


class DSCNN(nn.Module):
    def __init__(self, num_classes: int = 12, filters: int = 64, blocks: int = 4) -> None:
        super().__init__()
        layers: list[nn.Module] = [_bn_relu(nn.Conv2d(1, filters, (10, 4), (2, 2), (5, 1)))]
        for _ in range(blocks):
            layers.append(_bn_relu(nn.Conv2d(filters, filters, 3, 1, 1, groups=filters)))
            layers.append(_bn_relu(nn.Conv2d(filters, filters, 1)))
        self.features = nn.Sequential(*layers)
        self.dropout = nn.Dropout(0.4)
        self.fc = nn.Linear(filters, num_classes)

    def forward(self, input: torch.Tensor) -> torch.Tensor:  # noqa: A002 - the ONNX input name
        x = self.features(input)
        x = torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1)
        return self.fc(self.dropout(x))


def build(seed: int) -> nn.Module:
    model = seeded(seed, DSCNN)
    return calibrate_batchnorm(model, (8, 1, 49, 10), seed)
