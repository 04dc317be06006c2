"""A small classifier the tests train for a few seconds on data they generate, so that accuracy means something
(tests/ is on sys.path through its conftest).

The task: N points in 32 dimensions around 10 class centres (seeded); an MLP 32 → 64 → 10 trained with Adam in
torch reaches well above 90 % on held-out points, where chance is 10 %. The trained weights are written as a plain
ONNX graph (Gemm → Relu → Gemm, dynamic batch), so the model is a user's .onnx file like any other.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

FEATURES, HIDDEN, CLASSES = 32, 64, 10


@dataclass(frozen=True)
class Trained:
    onnx: str  # the trained model
    val: str  # held-out set: features (N x 32 float32) and labels (N int64)
    expected: str  # the same inputs with `expected` = the fp32 model's logits (host onnxruntime)
    calibration: str  # a directory with one .npz of 256 training samples (int8 calibration, not the held-out set)
    train_accuracy: float


def _points(rs: np.random.RandomState, centres: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    labels = rs.randint(0, CLASSES, size=n)
    x = centres[labels] + rs.normal(0.0, 1.0, size=(n, FEATURES))
    return x.astype(np.float32), labels.astype(np.int64)


def train_classifier(tmp: Path, *, seed: int = 0, n_train: int = 4000, n_val: int = 600,
                     steps: int = 300, opset: int = 13, ir_version: int = 7) -> Trained:
    """Train, write the ONNX (opset 13 / IR 7 by default: every board stack's onnxruntime loads it) and the data."""
    import torch

    rs = np.random.RandomState(seed)
    centres = rs.normal(0.0, 0.6, size=(CLASSES, FEATURES))
    x_train, y_train = _points(rs, centres, n_train)
    x_val, y_val = _points(rs, centres, n_val)
    torch.manual_seed(seed)
    net = torch.nn.Sequential(torch.nn.Linear(FEATURES, HIDDEN), torch.nn.ReLU(), torch.nn.Linear(HIDDEN, CLASSES))
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    xt, yt = torch.from_numpy(x_train), torch.from_numpy(y_train)
    for _ in range(steps):
        idx = torch.randint(0, n_train, (256,))
        loss = torch.nn.functional.cross_entropy(net(xt[idx]), yt[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        train_acc = float((net(xt).argmax(1) == yt).float().mean())
    w1, b1 = net[0].weight.detach().numpy(), net[0].bias.detach().numpy()
    w2, b2 = net[2].weight.detach().numpy(), net[2].bias.detach().numpy()
    graph = helper.make_graph(
        [helper.make_node("Gemm", ["features", "w1", "b1"], ["h"], transB=1),
         helper.make_node("Relu", ["h"], ["hr"]),
         helper.make_node("Gemm", ["hr", "w2", "b2"], ["logits"], transB=1)],
        "clusters",
        [helper.make_tensor_value_info("features", TensorProto.FLOAT, ["batch", FEATURES])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", CLASSES])],
        [numpy_helper.from_array(np.ascontiguousarray(a, dtype=np.float32), n)
         for a, n in ((w1, "w1"), (b1, "b1"), (w2, "w2"), (b2, "b2"))])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = ir_version
    onnx.checker.check_model(model)
    tmp.mkdir(parents=True, exist_ok=True)
    path = tmp / "clusters.onnx"
    onnx.save(model, str(path))
    val = tmp / "val.npz"
    np.savez(val, features=x_val, labels=y_val)
    import onnxruntime as ort

    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    logits = sess.run(None, {"features": x_val})[0]
    expected = tmp / "val-expected.npz"
    np.savez(expected, features=x_val, expected=logits)
    calib = tmp / "calibration"
    calib.mkdir(exist_ok=True)
    np.savez(calib / "train.npz", features=x_train[:256])  # 256 samples on dim 0: 256 calibration runs
    return Trained(str(path), str(val), str(expected), str(calib), train_acc)


# the same task as a builder model (`--model FILE.py:build`): trained when edgeprof builds it, so it exports to
# TFLite (and ONNX) like any user's torch model; `data(seed, n)` gives held-out points of the same classes
BUILDER = '''
import numpy as np
import torch

FEATURES, HIDDEN, CLASSES = 32, 64, 10


def data(seed, n, offset=1):
    rs = np.random.RandomState(seed)
    centres = rs.normal(0.0, 0.6, size=(CLASSES, FEATURES))
    rs = np.random.RandomState(seed + offset)
    labels = rs.randint(0, CLASSES, size=n)
    x = centres[labels] + rs.normal(0.0, 1.0, size=(n, FEATURES))
    return x.astype(np.float32), labels.astype(np.int64)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(FEATURES, HIDDEN)
        self.fc2 = torch.nn.Linear(HIDDEN, CLASSES)

    def forward(self, features):
        return self.fc2(torch.relu(self.fc1(features)))


def build(seed):
    x, y = data(seed, 4000, offset=0)
    torch.manual_seed(seed)
    net = Net()
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    for _ in range(300):
        idx = torch.randint(0, len(x), (256,))
        loss = torch.nn.functional.cross_entropy(net(xt[idx]), yt[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    return net.eval(), {"features": torch.zeros(1, FEATURES)}
'''


@dataclass(frozen=True)
class TrainedBuilder:
    model: str  # FILE.py:build
    val: str
    calibration: str


def trained_builder(tmp: Path, seed: int = 0) -> TrainedBuilder:
    """The builder file, a held-out set of 400 points and a calibration dir of 256 training points."""
    import importlib.util

    tmp.mkdir(parents=True, exist_ok=True)
    path = tmp / "clusters_builder.py"
    path.write_text(BUILDER)
    spec = importlib.util.spec_from_file_location("clusters_builder", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    x, y = mod.data(seed, 400)
    val = tmp / "val.npz"
    np.savez(val, features=x, labels=y)
    calib = tmp / "calibration"
    calib.mkdir(exist_ok=True)
    np.savez(calib / "train.npz", features=mod.data(seed, 256, offset=0)[0])
    return TrainedBuilder(f"{path}:build", str(val), str(calib))
