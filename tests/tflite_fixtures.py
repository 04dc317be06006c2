"""Builds a two-input .tflite with dynamic dims (litert-torch, then shape_signature set to -1)."""

from pathlib import Path

import numpy as np

BUILDER = '''
import torch


class Two(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 4)

    def forward(self, a, b):
        return self.fc(a) + b.float()


def build(seed):
    torch.manual_seed(seed)
    return Two().eval(), {"a": torch.rand(1, 5, 3), "b": torch.ones(1, 5, 4, dtype=torch.int32)}
'''


def export_two_inputs(tmp: Path, dynamic: bool = True) -> Path:
    """A two-input .tflite from litert-torch; with `dynamic`, dim 1 of both inputs marked -1 in the file."""
    from ai_edge_litert.tools import flatbuffer_utils as fu

    from edgeprof.export.resolve import resolve_model
    from edgeprof.export.tflite_export import prepare_tflite

    (tmp / "two.py").write_text(BUILDER)
    art = prepare_tflite(resolve_model(f"{tmp / 'two.py'}:build"), cache_dir=tmp / "cache", batch=1)
    model = fu.read_model(art.path)
    if dynamic:
        sg = model.subgraphs[0]
        for i in sg.inputs:
            sig = list(sg.tensors[i].shape)
            sig[1] = -1
            sg.tensors[i].shapeSignature = np.array(sig, dtype=np.int32)
    out = tmp / "two_dyn.tflite"
    fu.write_model(model, str(out))
    return out
