"""MobileNetV2 (Sandler et al. 2018), width multiplier 1.0, written from the paper (torchvision's layout).

Owns: the architecture and its seeded random initialisation. Imported only by `BundledModel.build()`.
"""

from __future__ import annotations

import torch
from torch import nn

from ._common import calibrate_batchnorm, seeded

# t (expansion), c (output channels), n (repeats), s (first stride)
_SETTINGS = ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
             (6, 320, 1, 1))


def _conv_bn(cin: int, cout: int, kernel: int, stride: int, groups: int = 1, act: bool = True) -> nn.Sequential:
    layers: list[nn.Module] = [
        nn.Conv2d(cin, cout, kernel, stride, (kernel - 1) // 2, groups=groups, bias=False),
        nn.BatchNorm2d(cout),
    ]
    if act:
        layers.append(nn.ReLU6(inplace=True))
    return nn.Sequential(*layers)


class InvertedResidual(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int, expand: int) -> None:
        super().__init__()
        hidden = cin * expand
        self.use_residual = stride == 1 and cin == cout
        layers: list[nn.Module] = []
        if expand != 1:
            layers.append(_conv_bn(cin, hidden, 1, 1))
        layers += [_conv_bn(hidden, hidden, 3, stride, groups=hidden), _conv_bn(hidden, cout, 1, 1, act=False)]
        self.conv = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.conv(x) if self.use_residual else self.conv(x)


class MobileNetV2(nn.Module):
    def __init__(self, num_classes: int = 1000) -> None:
        super().__init__()
        cin = 32
        layers: list[nn.Module] = [_conv_bn(3, cin, 3, 2)]
        for t, c, n, s in _SETTINGS:
            for i in range(n):
                layers.append(InvertedResidual(cin, c, s if i == 0 else 1, t))
                cin = c
        layers.append(_conv_bn(cin, 1280, 1, 1))
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(1280, num_classes))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out")
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0, 0.01)
                nn.init.zeros_(m.bias)

    def forward(self, input: torch.Tensor) -> torch.Tensor:  # noqa: A002 - the ONNX input name
        x = self.features(input)
        x = torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1)
        return self.classifier(x)


def build(seed: int) -> nn.Module:
    model = seeded(seed, MobileNetV2)
    return calibrate_batchnorm(model, (2, 3, 224, 224), seed)
