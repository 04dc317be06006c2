"""LiteRT (TFLite) with XNNPACK, fp32: a .tflite file → the kernels LiteRT runs, and the generated calibration models.

Owns:
- `tflite_kernels(path, threads)`: this host's LiteRT interpreter reads the file twice: without the default
  delegates (the builtin operators, each with its tensors' shapes and dtypes: FLOPs by the operator's own layout,
  bytes of inputs, weights and outputs) and with XNNPACK applied as deploy runs it (the AUTO resolver): each
  DELEGATE node's partition is found by walking back from its outputs to its inputs through the builtin
  operators. A kernel inside an XNNPACK partition keeps its key (e.g. "CONV_2D/kxk"); one LiteRT runs itself
  gets "@builtin" appended, so the two are never fitted together. A WHILE's body (a subgraph LiteRT's op list does
  not show) is read by tflite_loops.py and follows the WHILE as many times as its condition says. Files reach here after deploy's prepare has
  load-checked them in a child process (export/tflite_export.py), so a native crash cannot happen here first.
- `calibration_modules(seed)`: generated torch modules in NHWC (the permutes around each convolution cancel in
  litert-torch's layout passes, so the file holds the one operator and no TRANSPOSE), each ONE compute operator
  (with its fused activation; a stride-2 convolution gets the explicit PAD litert-torch writes before it) at a
  random shape, and tiny ones that pin the per-run overhead;
  `calibration_files(seed, cache_dir)` converts them with litert-torch (cached by content); `probe_file` is the
  speed probe (kernels.probe_model's network) converted the same way.
Timing: LiteRT's Python interpreter exposes no per-op profiler (agents/edgeprof_agent/backends/tflite.py
profile_ops says so), so a LiteRT table holds each model's timed p50 only; fit.py takes a one-operator model's
p50 less the table's per-run overhead as that kernel's time (nn-Meter's single-kernel measurement) and splits a
model of several kernels by a roofline share.
Does not own: measuring (calibrate.py through deploy), fitting (fit.py), int8/fp16 (not built: refused upstream).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import ModelError
from .graph import Kernel
from .tflite_loops import while_loops

__all__ = ["tflite_kernels", "calibration_modules", "calibration_files", "probe_file", "host_litert_version",
           "GRAPH_LEVEL"]

GRAPH_LEVEL = "xnnpack"  # a LiteRT table's graph level: XNNPACK applied, as deploy's default
MAX_FLOPS = 2e8

# builtin operator → cost family (graph._FAMILY's names, so the vocabulary is one)
_FAMILY = {
    "ADD": "binary", "SUB": "binary", "MUL": "binary", "DIV": "binary", "MAXIMUM": "binary", "MINIMUM": "binary",
    "SQUARED_DIFFERENCE": "binary", "POW": "binary",
    "RELU": "unary", "RELU6": "unary", "LOGISTIC": "unary", "TANH": "unary", "HARD_SWISH": "unary",
    "GELU": "unary", "EXP": "unary", "SQRT": "unary", "RSQRT": "unary", "ABS": "unary", "NEG": "unary",
    "LEAKY_RELU": "unary", "PRELU": "unary", "ELU": "unary", "LOG": "unary", "SIN": "unary", "COS": "unary",
    "SQUARE": "unary", "FLOOR": "unary", "CEIL": "unary",
    "TRANSPOSE": "copy", "CONCATENATION": "copy", "SLICE": "copy", "STRIDED_SLICE": "copy", "PAD": "copy",
    "RESIZE_BILINEAR": "copy", "RESIZE_NEAREST_NEIGHBOR": "copy", "GATHER": "copy", "SPLIT": "copy",
    "RESHAPE": "view", "SQUEEZE": "view", "EXPAND_DIMS": "view",
    "MEAN": "reduce", "SUM": "reduce", "REDUCE_MAX": "reduce",
    "AVERAGE_POOL_2D": "pool", "MAX_POOL_2D": "pool",
    "SOFTMAX": "norm", "LOG_SOFTMAX": "norm", "L2_NORMALIZATION": "norm",
    "FULLY_CONNECTED": "matmul/w", "BATCH_MATMUL": "matmul/a",
    "CONV_2D": "conv", "DEPTHWISE_CONV_2D": "conv/dw", "TRANSPOSE_CONV": "conv/t",
}
# MediaPipe's transposed convolution with bias: a custom operator that XNNPACK's delegate runs (its
# tensorflow/lite/delegates/xnnpack/xnnpack_delegate.cc handles custom code "Convolution2DTransposeBias"), the same
# kernel family as TRANSPOSE_CONV
_CONV_T_BIAS = "Convolution2DTransposeBias"
_FAMILY[_CONV_T_BIAS] = "conv/t"
_NO_FLOPS = frozenset({"RESHAPE", "SQUEEZE", "EXPAND_DIMS", "TRANSPOSE", "CONCATENATION", "SLICE", "STRIDED_SLICE",
                       "PAD", "GATHER", "SPLIT", "DELEGATE"})


def host_litert_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"ai-edge-litert {version('ai-edge-litert')}"
    except PackageNotFoundError:
        return ""


def _interpreter(path: str | Path, threads: int, delegates: bool) -> Any:
    from ..hostrun.reference import interpreter_class as cls

    kind = cls()
    kwargs: dict[str, Any] = {"model_path": str(path), "num_threads": max(int(threads), 1)}
    if not delegates:
        from ai_edge_litert.interpreter import OpResolverType

        kwargs["experimental_op_resolver_type"] = OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES
    from ..export.artifact_cache import default_cache_dir
    from ..export.capture import capture

    it = None
    try:
        # LiteRT writes "INFO: Created TensorFlow Lite XNNPACK delegate" to fd 2: into the cache's log, not the terminal
        with capture(default_cache_dir() / "predict-litert.log", f"reading {Path(path).name} for predict"):
            it = kind(**kwargs)
            it.allocate_tensors()
    except Exception as e:  # noqa: BLE001 - LiteRT raises ValueError / RuntimeError with its own text
        # without the default delegates, a custom operator that only XNNPACK runs (MediaPipe's
        # Convolution2DTransposeBias: XNNPACK's delegate implements it, the builtin resolver has no kernel for it)
        # fails to prepare; the operators and the tensors' shapes and dtypes are the file's own, read without
        # allocating, and the delegated interpreter (which deploy runs) is what says what XNNPACK took
        if it is None or delegates or "unresolved custom op" not in str(e):
            raise ModelError(f"{path}: this host's LiteRT could not read the model to predict it: "
                             f"{(str(e).splitlines() or [''])[0][:200]}",
                             hint="check the file with deploy first") from None
    return it


def fp16_weights_note(given: str, precision: str, runtime: str) -> str | None:
    """A .tflite file whose weights are stored as float16 (MediaPipe's, the converter's fp16 option) runs in float32
    on LiteRT's CPU path: each float16 constant is DEQUANTIZEd once, when XNNPACK is built (tflite_kernels folds those
    DEQUANTIZE operators), so an fp32 LiteRT table predicts it; the warning says so. None otherwise."""
    if given == "fp16" and precision == "fp32" and runtime == "tflite":
        return ("the file's weights are float16, dequantised to float32 when XNNPACK is built (LiteRT computes in "
                "float32 on the CPU): predicted from the fp32 table")
    return None


def _flops(op: str, ins: list[tuple[int, ...]], outs: list[tuple[int, ...]]) -> float | None:
    out = math.prod(outs[0]) if outs else 0
    try:
        if op == "CONV_2D":  # weights [Cout, kh, kw, Cin]
            return 2.0 * out * math.prod(ins[1][1:])
        if op == "DEPTHWISE_CONV_2D":  # weights [1, kh, kw, C·mult]
            return 2.0 * out * ins[1][1] * ins[1][2]
        if op == "TRANSPOSE_CONV":  # inputs (output_shape, weights [Cout, kh, kw, Cin], x)
            return 2.0 * math.prod(ins[2]) * ins[1][0] * ins[1][1] * ins[1][2]
        if op == _CONV_T_BIAS:  # MediaPipe's custom op, inputs (x, weights [Cout, kh, kw, Cin], bias)
            return 2.0 * math.prod(ins[0]) * ins[1][0] * ins[1][1] * ins[1][2]
        if op == "FULLY_CONNECTED":  # weights [Cout, Cin]
            return 2.0 * out * ins[1][-1]
        if op == "BATCH_MATMUL":
            return 2.0 * out * ins[0][-1]
    except (IndexError, TypeError):
        return None
    if op in _NO_FLOPS:
        return 0.0
    if op in ("AVERAGE_POOL_2D", "MAX_POOL_2D", "MEAN", "SUM", "REDUCE_MAX", "SOFTMAX"):
        return float(math.prod(ins[0])) if ins else 0.0
    return float(out)


def _variant(op: str, ins: list[tuple[int, ...]]) -> str:
    """CONV_2D's filter is [Cout, kh, kw, Cin]: at most 4 output channels is "n" (as variants.variant's), else by k."""
    if op == "CONV_2D" and len(ins) > 1 and len(ins[1]) == 4:
        return "n" if ins[1][0] <= 4 else "1x1" if ins[1][1] * ins[1][2] == 1 else "kxk"
    return ""


def tflite_kernels(path: str | Path, threads: int = 1) -> list[Kernel]:
    """The kernels LiteRT runs for the .tflite file at `path` with XNNPACK (deploy's default), in operator
    order; DELEGATE nodes are not kernels (their operators are)."""
    plain = _interpreter(path, threads, delegates=False)
    tensors = {d["index"]: d for d in plain.get_tensor_details()}
    ops = [o for o in plain._get_ops_details() if o["op_name"] != "DELEGATE"]  # noqa: SLF001 - the one op list LiteRT gives
    delegated = _delegated(path, threads, ops)
    produced = {int(t) for o in ops for t in o["outputs"]} | {int(d["index"]) for d in plain.get_input_details()}
    # a DEQUANTIZE of constant weights (float16 files) is folded by XNNPACK when the delegate is built: no kernel
    ops = [o for o in ops if not (o["op_name"] == "DEQUANTIZE" and int(o["index"]) in delegated
                                  and all(int(t) not in produced for t in o["inputs"] if int(t) >= 0))]

    def spec(i: int) -> tuple[tuple[int, ...], Any]:
        return tuple(int(d) for d in tensors[i]["shape"]), tensors[i]["dtype"]

    out: list[Kernel] = []
    for o in ops:
        ins = [int(i) for i in o["inputs"] if int(i) >= 0]
        outs = [int(i) for i in o["outputs"] if int(i) >= 0]
        out.append(_kernel(str(o["op_name"]), f"{o['op_name']}:{o['index']}", [spec(i) for i in ins],
                           [spec(i) for i in outs], builtin=int(o["index"]) not in delegated,
                           outputs=tuple(str(tensors[i]["name"]) for i in outs)))
    return _with_loop_bodies(path, out)


def _kernel(op: str, name: str, ins: list[tuple[tuple[int, ...], Any]], outs: list[tuple[tuple[int, ...], Any]],
            builtin: bool, outputs: tuple[str, ...] = ()) -> Kernel:
    """One operator as a kernel, from its inputs' and outputs' (shape, numpy dtype): keyed by op and variant, with
    "@builtin" when LiteRT runs it itself rather than XNNPACK."""
    import numpy as np

    shapes_in, shapes_out = [sh for sh, _ in ins], [sh for sh, _ in outs]
    f = _flops(op, shapes_in, shapes_out)
    variant = _variant(op, shapes_in)
    key = f"{op}/{variant}" if variant else op
    family = f"conv/{variant or 'kxk'}" if op == "CONV_2D" else _FAMILY.get(op, op)
    if builtin:
        key, family = f"{key}@builtin", f"{family}@builtin"
    # a GATHER reads the rows it gathers, not its whole table, as graph.py reads an ONNX Gather (round 24: PyIng's
    # lookup of 60 rows in a 73 MB GloVe table, counted whole, was priced 1.3 ms; it runs in microseconds)
    moved = [*ins[1:], *outs, *outs] if op in ("GATHER", "GATHER_ND") and ins else [*ins, *outs]
    return Kernel(name=name, op=op, key=key, family=family, dtype=np.dtype(ins[0][1]).type.__name__ if ins else "float32",
                  flops=float(f or 0.0), bytes=float(sum(math.prod(sh) * np.dtype(dt).itemsize for sh, dt in moved)),
                  out_elems=float(sum(math.prod(sh) for sh in shapes_out)), flops_known=f is not None,
                  outputs=outputs)


def _with_loop_bodies(path: str | Path, ks: list[Kernel]) -> list[Kernel]:
    """`ks` with each WHILE's body operators after it, as many times as it runs (tflite_loops.py), the WHILE
    noting what was counted. A body's operators are keyed as LiteRT's own ("@builtin"): which of them XNNPACK
    takes inside a loop body is not read here."""
    import dataclasses

    if not any(k.op == "WHILE" for k in ks):  # the file is read again only for a loop's body
        return ks
    loops = {f"WHILE:{lp.index}": lp for lp in while_loops(path)}
    out: list[Kernel] = []
    for k in ks:
        lp = loops.get(k.name) if k.op == "WHILE" else None
        if lp is None:
            out.append(k)
            continue
        body = [_kernel(b.op, f"{b.op}:{lp.index}.{j}", b.ins, b.outs, builtin=True) for j, b in enumerate(lp.body)]
        times = lp.trips if lp.trips is not None else 1
        note = (f"a TFLite WHILE ({lp.how}): its body's {len(body)} operators counted {times} times, as LiteRT's "
                f"own operators" if lp.trips is not None else
                f"a TFLite WHILE ({lp.how}): its body's {len(body)} operators counted once — a lower bound")
        out.append(dataclasses.replace(k, note=note))
        out.extend(body * times)
    return out


def _delegated(path: str | Path, threads: int, ops: list[dict[str, Any]]) -> set[int]:
    """The indices of the builtin operators XNNPACK took: each DELEGATE node's partition, walked back from its
    outputs to its inputs through the operators that produce them."""
    try:
        auto = _interpreter(path, threads, delegates=True)
        nodes = auto._get_ops_details()  # noqa: SLF001 - as above
    except ModelError:
        return set()
    producer = {int(t): int(o["index"]) for o in ops for t in o["outputs"]}
    by_index = {int(o["index"]): o for o in ops}
    taken: set[int] = set()
    for d in (n for n in nodes if n["op_name"] == "DELEGATE"):
        stop = {int(t) for t in d["inputs"]}
        todo = [int(t) for t in d["outputs"]]
        while todo:
            t = todo.pop()
            i = producer.get(t)
            if t in stop or i is None or i in taken:
                continue
            taken.add(i)
            todo += [int(x) for x in by_index[i]["inputs"] if int(x) >= 0]
    return taken


def _ch(rng: Any, lo: int, hi: int) -> int:
    """A channel count: mostly multiples of 8 (as real models), some any."""
    c = int(rng.integers(lo, hi + 1))
    return c if rng.random() < 0.25 else max(8, c // 8 * 8)


def calibration_modules(seed: int = 0, count: int | None = None) -> Iterator[tuple[str, Any, tuple[int, ...]]]:
    """(name, torch module, NHWC input shape) — one compute operator each, at random shapes, FLOPs ≤ MAX_FLOPS."""
    import numpy as np
    import torch

    rng = np.random.default_rng(seed)
    # "tiny" first: the per-run overhead is pinned even by a short budget; the convolutions (where real models
    # spend their time) three times as often as the rest, so each of their keys reaches MIN_SAMPLES soonest
    kinds = ("tiny", "conv", "pointwise", "depthwise", "linear", "binary", "conv", "pointwise", "depthwise",
             "linear", "pool", "pad", "conv", "pointwise", "depthwise", "unary", "mean", "softmax", "concat", "bmm",
             "linear")
    i = 0
    while count is None or i < count:
        kind = kinds[i % len(kinds)]
        i += 1
        torch.manual_seed(seed * 100003 + i)  # the weights, so a seed makes the same files
        hw = int(rng.choice([7, 14, 16, 28, 32, 56, 64]))
        act = str(rng.choice(["none", "relu", "relu6"]))

        def activation(t: Any, act: str = act) -> Any:
            return torch.relu(t) if act == "relu" else torch.clamp(t, 0, 6) if act == "relu6" else t

        if kind in ("conv", "pointwise", "depthwise"):
            # a spectrogram's one input channel, and a mask or pitch head's 1-4 output channels, now and then
            cin = 1 if kind == "conv" and rng.random() < 0.12 else _ch(rng, 8, 160)
            k = 1 if kind == "pointwise" else int(rng.choice([3, 5]))
            s = int(rng.choice([1, 1, 2]))
            cout = cin if kind == "depthwise" else int(rng.integers(1, 5)) if rng.random() < 0.2 else \
                _ch(rng, 8, 192)
            groups = cin if kind == "depthwise" else 1
            while hw > 4 and 2 * (hw // s) ** 2 * cout * k * k * cin / groups > MAX_FLOPS:
                hw //= 2
            conv = torch.nn.Conv2d(cin, cout, k, stride=s, padding=k // 2, groups=groups)

            class Conv(torch.nn.Module):
                def __init__(self, conv: Any = conv) -> None:
                    super().__init__()
                    self.conv = conv

                def forward(self, x: Any) -> Any:
                    return activation(self.conv(x.permute(0, 3, 1, 2))).permute(0, 2, 3, 1)

            yield f"{kind}{i}", Conv(), (1, hw, hw, cin)
        elif kind == "linear":
            tokens, cin, cout = int(rng.choice([1, 4, 16, 64, 128])), _ch(rng, 16, 768), _ch(rng, 16, 768)
            lin = torch.nn.Linear(cin, cout)

            class Linear(torch.nn.Module):
                def __init__(self, lin: Any = lin) -> None:
                    super().__init__()
                    self.lin = lin

                def forward(self, x: Any) -> Any:
                    return activation(self.lin(x))

            yield f"linear{i}", Linear(), (1, tokens, cin)
        elif kind == "bmm":
            heads, n, d = int(rng.choice([1, 2, 4])), int(rng.choice([16, 32, 64, 128])), int(rng.choice([16, 32, 64]))

            class Bmm(torch.nn.Module):
                def forward(self, x: Any) -> Any:
                    return torch.matmul(x, x.transpose(-1, -2))

            yield f"bmm{i}", Bmm(), (heads, n, d)
        elif kind in ("binary", "unary", "softmax", "concat", "tiny", "mean", "pool", "pad"):
            c = _ch(rng, 8, 256)
            shape: tuple[int, ...] = (1, 2, 4) if kind == "tiny" else (1, hw, hw, c)
            if kind in ("binary", "unary") and rng.random() < 0.35:  # a vector of an MLP's width (round 19: a gesture
                # embedder's 59 ADD and MUL of 64-256 floats were priced between an 8-element ADD and 10 k-element maps)
                shape = (1, int(rng.choice([32, 128, 512, 2048])))
            op = str(rng.choice(["add", "mul"])) if kind == "binary" else \
                str(rng.choice(["sigmoid", "hardswish", "tanh", "log", "sin"])) if kind == "unary" else kind

            class Single(torch.nn.Module):
                def forward(self, x: Any, op: str = op) -> Any:
                    if op == "add" or op == "tiny":
                        return x + x
                    if op == "mul":
                        return x * x
                    if op == "sigmoid":
                        return torch.sigmoid(x)
                    if op == "hardswish":
                        return torch.nn.functional.hardswish(x)
                    if op == "tanh":
                        return torch.tanh(x)
                    if op == "log":  # an audio front end's LOG and SIN (XNNPACK takes SIN here)
                        return torch.log(x)
                    if op == "sin":
                        return torch.sin(x)
                    if op == "softmax":
                        return torch.softmax(x, dim=-1)
                    if op == "concat":
                        return torch.cat([x, x], dim=-1)
                    if op == "pad":
                        return torch.nn.functional.pad(x, (0, 0, 1, 1, 1, 1))
                    if op == "mean":
                        return x.mean(dim=(1, 2))
                    return torch.nn.functional.max_pool2d(x.permute(0, 3, 1, 2), 2).permute(0, 2, 3, 1)

            yield f"{op}{i}", Single(), shape


def _converted(name: str, module: Any, shape: tuple[int, ...], cache_dir: Path) -> Path:
    """`module` converted to .tflite with litert-torch, cached under cache_dir by its weights and code."""
    import io

    import torch

    from ..export.capture import capture

    module = module.eval()
    buf = io.BytesIO()
    torch.save((type(module).__name__, module.state_dict(), shape, name), buf)
    digest = hashlib.sha256(buf.getvalue() + repr(module).encode()).hexdigest()[:12]
    path = cache_dir / f"{name}-{digest}.tflite"
    if not path.exists():
        tmp = path.with_name(path.name + ".tmp")
        with capture(cache_dir / "convert.log", f"converting calibration model {name} to TFLite"):
            import litert_torch

            litert_torch.convert(module, (torch.rand(*shape),)).export(str(tmp))
        tmp.replace(path)
    return path


def calibration_files(seed: int, cache_dir: Path, count: int | None = None) -> Iterator[tuple[str, Path]]:
    """The calibration modules converted to .tflite with litert-torch, cached under cache_dir by content."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    for name, module, shape in calibration_modules(seed, count):
        yield name, _converted(name, module, shape, cache_dir)


def probe_file(cache_dir: Path) -> Path:
    """The speed probe (kernels.probe_model's network, in NHWC: a dense convolution, two depthwise-pointwise blocks
    with a residual add, a pool and two fully connected layers) as a .tflite file, converted once and cached."""
    import torch

    torch.manual_seed(20261205)

    class Probe(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = torch.nn.Conv2d(16, 32, 3, padding=1)
            self.dw1 = torch.nn.Conv2d(32, 32, 3, stride=2, padding=1, groups=32)
            self.pw1 = torch.nn.Conv2d(32, 64, 1)
            self.dw2 = torch.nn.Conv2d(64, 64, 3, padding=1, groups=64)
            self.pw2 = torch.nn.Conv2d(64, 64, 1)
            self.fc1 = torch.nn.Linear(64, 256)
            self.fc2 = torch.nn.Linear(256, 128)

        def forward(self, x: Any) -> Any:
            t = torch.relu(self.conv(x.permute(0, 3, 1, 2)))
            t = torch.relu(self.pw1(torch.relu(self.dw1(t))))
            d = torch.relu(self.dw2(t))
            t = self.pw2(d) + d
            return self.fc2(torch.relu(self.fc1(t.mean(dim=(2, 3)))))

    cache_dir.mkdir(parents=True, exist_ok=True)
    return _converted("edgeprof-probe-1", Probe(), (1, 96, 96, 16), cache_dir)
