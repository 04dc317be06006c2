"""A BERT-tiny style transformer encoder: 2 layers, hidden 128, 2 heads, FFN 512, sequence 128, vocab 30522.

Written with plain MatMul/Softmax/LayerNorm (no fused attention kernels) so that both ONNX exporters and
old onnxruntime versions handle it. Inputs `input_ids` and `attention_mask` (1 = attend) are [batch, 128];
outputs are `last_hidden_state` [batch, 128, 128] and `pooled_output` [batch, 128] (tanh of a dense layer on
the first token, as BERT's pooler). Weights ~ N(0, 0.02) as BERT initialises them.

Owns: the architecture and its seeded random initialisation. Imported only by `BundledModel.build()`.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from ._common import seeded

VOCAB, SEQ, HIDDEN, HEADS, FFN, LAYERS = 30522, 128, 128, 2, 512, 2


class SelfAttention(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.qkv = nn.Linear(HIDDEN, 3 * HIDDEN)
        self.out = nn.Linear(HIDDEN, HIDDEN)
        self.head_dim = HIDDEN // HEADS

    def forward(self, x: torch.Tensor, mask_bias: torch.Tensor) -> torch.Tensor:
        # x [B, S, H]; mask_bias [B, 1, 1, S]
        q, k, v = self.qkv(x).reshape(-1, SEQ, 3, HEADS, self.head_dim).permute(2, 0, 3, 1, 4).unbind(0)
        scores = torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(self.head_dim)) + mask_bias
        ctx = torch.matmul(torch.softmax(scores, dim=-1), v)  # [B, heads, S, d]
        return self.out(ctx.transpose(1, 2).reshape(-1, SEQ, HIDDEN))


class EncoderLayer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.attention = SelfAttention()
        self.norm1 = nn.LayerNorm(HIDDEN, eps=1e-12)
        self.ffn = nn.Sequential(nn.Linear(HIDDEN, FFN), nn.GELU(), nn.Linear(FFN, HIDDEN))
        self.norm2 = nn.LayerNorm(HIDDEN, eps=1e-12)

    def forward(self, x: torch.Tensor, mask_bias: torch.Tensor) -> torch.Tensor:
        x = self.norm1(x + self.attention(x, mask_bias))
        return self.norm2(x + self.ffn(x))


class BertTiny(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.word_embeddings = nn.Embedding(VOCAB, HIDDEN)
        self.position_embeddings = nn.Parameter(torch.zeros(1, SEQ, HIDDEN))
        self.embedding_norm = nn.LayerNorm(HIDDEN, eps=1e-12)
        self.layers = nn.ModuleList(EncoderLayer() for _ in range(LAYERS))
        self.pooler = nn.Linear(HIDDEN, HIDDEN)
        for m in self.modules():
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, 0, 0.02)
            if isinstance(m, nn.Linear):
                nn.init.zeros_(m.bias)
        nn.init.normal_(self.position_embeddings, 0, 0.02)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = self.embedding_norm(self.word_embeddings(input_ids) + self.position_embeddings)
        mask_bias = (1.0 - attention_mask.to(x.dtype))[:, None, None, :] * -10000.0
        for layer in self.layers:
            x = layer(x, mask_bias)
        pooled = torch.tanh(self.pooler(x[:, 0]))
        return x, pooled


def build(seed: int) -> nn.Module:
    return seeded(seed, BertTiny)
