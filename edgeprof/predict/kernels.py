"""The generated calibration models: small ONNX graphs that, profiled per node, give many kernel samples per run.

Owns: `calibration_models(seed, count)`: a deterministic sequence of (name, onnx.ModelProto) of eight kinds,
mixed so that one budget covers the kernels real models spend their time in (and "rnn", recurrent.py's):
- "cnn": a chain of convolution blocks (dense k×k, pointwise, depthwise, grouped; strides 1 and 2; BN, ReLU,
  Clip, HardSwish, Sigmoid, since round 19 PRelu after a dense convolution; inverted residuals with squeeze-excite;
  pools; residual adds; resize+concat) on maps of 14² to 768²; one in four lists its weights as graph inputs too;
- "transformer": layers of LayerNorm, weight and activation MatMuls, Softmax, GELU (the Erf form onnxruntime
  fuses), transposes and reshapes, at several sequence lengths and widths;
- "misc": independent single ops on their own inputs (elementwise, copies, scatters, reductions, pools, LSTM / GRU,
  ConvTranspose, STFT) at random shapes; its Einsums drawn and dropped since round 16 (measured in the head models);
  since round 22 a projection whose input another node reads too (projections.py: int8's per-channel dequantising);
  since round 27 two reductions of 16 B to 32 MB, over the last axis or a strided one (reductions.py);
- "tiny": one to three ops on a few hundred elements, whose run is a few µs: they pin the per-run overhead;
- "act": activations and elementwise blocks written out as exporters write them (HardSwish as Add, Clip, Div,
  Mul; squeeze-excite gates; a batch norm as Mul and Add), chained on one feature map between depthwise
  convolutions, each op reading what the one before wrote (_written says why);
- "cnn1d": a 1-D CNN over a batch of sequences (dense, dilated and depthwise-separable convolutions, pools; an STFT
  front end, as a strided convolution or as the STFT op: spectral.py);
- "head" (heads.py): a small MLP head (Flatten, one to four Gemms against weights of 2 kB to 3 MB, activations), a model
  small enough that its weights stay in the cache from one run to the next — which no kernel of the larger models
  shows (the fourth accuracy round: openWakeWord's Gemm heads, 11-55 µs, were over-predicted 3-9× from the
  weight-reading MatMuls of 5-45 MB models); since round 16 one to three Einsums beside it (einsums.py): beside the
  misc kind's STFTs and Resizes of milliseconds onnxruntime's Einsum ran 2-6× slower than in a model of its own
  size (a 1 MB grouped linear: 115 µs in a misc model's profile, 44 µs alone), and DeepFilterNet's streaming
  stages, whose Einsums stay in the cache, were over-predicted 1.8-3.4×; since round 18 none, one or two ai.onnx.ml
  tree ensembles beside those (trees.py: no kind had measured one, and a forest was priced by the roofline) and one
  PRelu (onnxruntime's runs ~20× an Add per element; no kind had measured one, and it was priced as a Relu).
`probe_model()`: the speed probe calibrate.py times between the models (a fixed small network: a dense
convolution, two depthwise-pointwise blocks with a residual add, a pool and two Gemms; ≈ 120 MFLOP, about a
millisecond at one thread here): compute-bound and memory-bound kernels both, so a board slowed by its clocks or by
its memory shows in it. Chains, not isolated ops, so onnxruntime fuses and lays out as in real models. FLOPs per
model are bounded (MAX_FLOPS) so a model's timed loop stays short on a 2-core board.
Does not own: measuring them (calibrate.py).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from .einsums import einsum_op
from .heads import head
from .projections import projection_op
from .recurrent import recurrent
from .reductions import reduce_op
from .resamples import conv_transpose_op, resize_op
from .scatters import gather_pow_op, scatter_op
from .spectral import STFT_OPSET, conv_front, stft_front, stft_op

__all__ = ["calibration_models", "probe_model", "MAX_FLOPS", "KINDS", "OPSET", "MIN_OPSET"]

MAX_FLOPS = 4e8
MAP_ELEMS = 1 << 24  # the largest feature map a generated CNN makes (64 MB of float32)
KINDS = ("cnn", "transformer", "misc", "tiny", "head", "act", "cnn1d", "rnn")
OPSET = 17
MIN_OPSET = 14  # HardSwish; the oldest onnxruntime edgeprof exports for (1.10) loads opset 15


class _G:
    """A graph under construction."""

    def __init__(self, rng: np.random.Generator, opset: int = OPSET) -> None:
        self.rng = rng
        self.opset = opset
        self.nodes: list[Any] = []
        self.inits: list[Any] = []
        self.inputs: list[Any] = []
        self.outputs: list[Any] = []
        self.n = 0
        self.flops = 0.0
        self.weights_as_inputs = False  # list the initializers as graph inputs too, as old exporters did

    def name(self, p: str) -> str:
        self.n += 1
        return f"{p}{self.n}"

    def input(self, shape: list[int]) -> str:
        from onnx import TensorProto, helper

        n = self.name("x")
        self.inputs.append(helper.make_tensor_value_info(n, TensorProto.FLOAT, shape))
        return n

    def output(self, t: str, shape: list[int]) -> None:
        from onnx import TensorProto, helper

        self.outputs.append(helper.make_tensor_value_info(t, TensorProto.FLOAT, shape))

    def const(self, shape: list[int], dtype: Any = np.float32, value: Any = None) -> str:
        from onnx import numpy_helper

        n = self.name("w")
        arr = (np.asarray(value, dtype=dtype) if value is not None
               else (self.rng.standard_normal(shape) * 0.1).astype(dtype))
        self.inits.append(numpy_helper.from_array(arr, n))
        return n

    def node(self, op: str, inputs: list[str], **attrs: Any) -> str:
        from onnx import helper

        out = self.name("t")
        self.nodes.append(helper.make_node(op, inputs, [out], name=self.name(op.lower() + "_"), **attrs))
        return out

    def layer_norm(self, x: str, d: int) -> str:
        """LayerNormalization over the last axis: the op from opset 17, written out below it as exporters write it
        (ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add: onnxruntime fuses it back into one
        LayerNormalization kernel); the same random draws either way, so a seed makes the same model otherwise."""
        gamma, beta = self.const([d], value=np.ones(d)), self.const([d])
        if self.opset >= 17:
            return self.node("LayerNormalization", [x, gamma, beta], axis=-1)
        centred = self.node("Sub", [x, self.node("ReduceMean", [x], axes=[-1], keepdims=1)])
        var = self.node("ReduceMean", [self.node("Pow", [centred, self.const([], value=2.0)])], axes=[-1], keepdims=1)
        normed = self.node("Div", [centred, self.node("Sqrt", [self.node("Add", [var, self.const([], value=1e-5)])])])
        return self.node("Add", [self.node("Mul", [normed, gamma]), beta])

    def model(self, name: str) -> Any:
        from onnx import helper

        inputs = self.inputs + ([helper.make_tensor_value_info(i.name, i.data_type, list(i.dims)) for i in self.inits]
                                if self.weights_as_inputs else [])
        g = helper.make_graph(self.nodes, name, inputs, self.outputs, self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", self.opset)]
                              + ([helper.make_opsetid("ai.onnx.ml", 1)]  # a forest's (trees.py)
                                 if any(n.domain == "ai.onnx.ml" for n in self.nodes) else []),
                              producer_name="edgeprof-calibrate")
        m.ir_version = 8
        return m


def _ch(rng: np.random.Generator, lo: int, hi: int) -> int:
    """A channel count: as in real networks mostly a multiple of 16 (60 %), else of 8 (20 %), else any (20 %);
    onnxruntime's blocked kernels run aligned channels about twice as fast, so all three must be measured."""
    c = int(math.exp(rng.uniform(math.log(lo), math.log(hi))))
    r = rng.random()
    step = 16 if r < 0.6 else 8 if r < 0.8 else 1
    return max(lo, c - c % step if c >= step else c)


def _act(g: _G, t: str, slope: list[int] | None = None) -> str:
    """An activation after a convolution; with `slope` (a per-channel PRelu slope's shape) a PRelu one time in ten:
    onnxruntime runs it apart (no fusion takes it) at a price per element that rests on how well the CPU guesses its
    input's signs, a convolution's output of both signs as in MTCNN's and Conv-TasNet's (heads._prelu has the all
    mixed case). An ELU one time in twenty: no fusion takes it either, and its exp costs ≈ 1.8 ns an element where
    a Relu costs a tenth of that (madmom's TCN: 15 ELUs, half its time at int8, priced by the unary family's Relus and
    Sigmoids at a ninth of it, round 19, when the misc models' 3 ELUs a table were too few for a key of its own)."""
    kinds, p = ["relu", "clip", "hswish", "sigmoid", "leaky", "elu", "none"], [0.25, 0.2, 0.2, 0.1, 0.08, 0.05, 0.12]
    if slope is not None:
        kinds, p = [*kinds, "prelu"], [0.21, 0.18, 0.18, 0.1, 0.07, 0.05, 0.11, 0.1]
    kind = g.rng.choice(kinds, p=p)
    if kind == "prelu" and slope is not None:
        return g.node("PRelu", [t, g.const(slope, value=g.rng.uniform(0.05, 0.3, slope))])
    if kind == "elu":
        return g.node("Elu", [t], alpha=1.0)
    if kind == "relu":
        return g.node("Relu", [t])
    if kind == "leaky":  # fused into the convolution at fp32; its own QLinearLeakyRelu kernel at int8
        return g.node("LeakyRelu", [t], alpha=0.1)
    if kind == "clip":
        return g.node("Clip", [t, g.const([], value=0.0), g.const([], value=6.0)])
    if kind == "hswish":
        return g.node("HardSwish", [t])
    if kind == "sigmoid":
        return g.node("Mul", [t, g.node("Sigmoid", [t])])
    return t


def _bn(g: _G, y: str, c: int) -> str:
    """A BatchNormalization over `c` channels (scale 1, random shift and mean, variance 1)."""
    return g.node("BatchNormalization", [y, g.const([c], value=np.ones(c)), g.const([c]), g.const([c]),
                                         g.const([c], value=np.ones(c))])


def _conv(g: _G, t: str, c: int, h: int, cout: int, k: int, s: int, group: int = 1,
          bn: bool = False) -> tuple[str, int, int]:
    ho = (h + 2 * (k // 2) - k) // s + 1
    if group == 1 and cout > 8:  # one kernel at most MAX_FLOPS / 4
        cout = max(8, min(cout, int(MAX_FLOPS / 4 / (2.0 * ho * ho * c * k * k))))
    while group == 1 and k > 1 and 2.0 * cout * ho * ho * c * k * k > MAX_FLOPS:  # a smaller odd k: the same ho
        k -= 2
    w = g.const([cout, c // group, k, k])
    y = g.node("Conv", [t, w, g.const([cout])], kernel_shape=[k, k], strides=[s, s], pads=[k // 2] * 4, group=group)
    g.flops += 2.0 * cout * ho * ho * (c // group) * k * k
    if bn:
        y = _bn(g, y, cout)
    return y, ho, cout


def _cnn(g: _G) -> None:
    rng = g.rng
    # maps of 320² and more (a page, a document, a high-resolution detector's input: trueocr's 1024 × 768 page ran
    # its convolutions at half the FLOP/s of the table's ≤ 224² maps, round 7), their channels bounded by MAP_ELEMS
    h = int(rng.choice([14, 28, 32, 56, 64, 96, 112, 128, 160, 224, 320, 512, 768],
                       p=[0.085] * 10 + [0.06, 0.05, 0.04]))
    c = min(int(rng.choice([1, 3, 8, 16, 24, 32, 64])), max(1, MAP_ELEMS // (h * h)))  # 1: a spectrogram's

    def ch(lo: int, hi: int) -> int:  # a channel count whose map stays within MAP_ELEMS, aligned as real ones are
        cap = MAP_ELEMS // (h * h)
        return _ch(rng, lo, max(lo, min(hi, cap - cap % 8 if cap >= 16 else cap)))

    t = g.input([1, c, h, h])
    for _ in range(int(rng.integers(4, 14))):
        if g.flops > MAX_FLOPS or h < 2:
            break
        kind = rng.choice(["dense", "ir", "pool", "branch", "se"], p=[0.35, 0.35, 0.1, 0.1, 0.1])
        if kind == "dense":
            k = int(rng.choice([1, 3, 3, 5, 7] if c > 3 else [3, 5, 7]))
            s = int(rng.choice([1, 1, 2])) if h > 8 else 1
            cout = ch(8, 512)
            y, h, cout = _conv(g, t, c, h, cout, k, s, bn=bool(rng.random() < 0.4))
            t, c = _act(g, y, [cout, 1, 1]), cout
        elif kind == "ir":
            e = ch(max(8, c), min(960, max(16, c * 6)))
            k = int(rng.choice([3, 5]))
            s = int(rng.choice([1, 1, 2])) if h > 8 else 1
            y, _, e = _conv(g, t, c, h, e, 1, 1)
            y = _act(g, y)
            y, h2, _ = _conv(g, y, e, h, e, k, s, group=e)
            y = _act(g, y)
            cout = c if s == 1 and rng.random() < 0.6 else ch(8, 320)
            y, h2, cout = _conv(g, y, e, h2, cout, 1, 1)
            if s == 1 and cout == c:
                y = g.node("Add", [y, t])
            t, c, h = y, cout, h2
        elif kind == "pool":
            op = rng.choice(["MaxPool", "AveragePool"])
            k = int(rng.choice([2, 3]))
            t = g.node(str(op), [t], kernel_shape=[k, k], strides=[2, 2], pads=[k // 2] * 4 if k == 3 else [0] * 4)
            h = (h + (2 * (k // 2) if k == 3 else 0) - k) // 2 + 1
        elif kind == "branch":
            a, _, ca = _conv(g, t, c, h, c, 1, 1)
            b, _, cb = _conv(g, t, c, h, c, 3, 1)
            if rng.random() < 0.5 or ca != c or cb != c:
                t, c = g.node("Concat", [_act(g, a), _act(g, b)], axis=1), ca + cb
            else:
                t = g.node("Add", [a, b])
                if h <= 56 and rng.random() < 0.5:
                    t = g.node("Resize", [t, "", g.const([4], value=[1.0, 1.0, 2.0, 2.0])], mode="nearest")
                    h *= 2
        else:  # squeeze-excite
            r = max(8, c // 4)
            p = g.node("GlobalAveragePool", [t])
            p, _, r = _conv(g, p, c, 1, r, 1, 1)
            p = g.node("Relu", [p])
            p, _, _ = _conv(g, p, r, 1, c, 1, 1)
            t = g.node("Mul", [t, g.node("HardSigmoid", [p])])
    k, narrow = int(rng.choice([1, 3, 5])), int(rng.integers(1, 5))
    # a narrow head besides the classifier: a mask or pitch map of 1-4 channels (within the model's FLOPs bound)
    if rng.random() < 0.35 and g.flops + 2.0 * narrow * h * h * c * k * k <= 2 * MAX_FLOPS:
        y, _, cout = _conv(g, t, c, h, narrow, k, 1)
        if rng.random() < 0.5:
            y = g.node("Sigmoid", [y])
        g.output(y, [1, cout, h, h])
    p = g.node("GlobalAveragePool", [t])
    f = g.node("Flatten", [p])
    classes = int(rng.choice([10, 100, 1000]))
    y = g.node("Gemm", [f, g.const([classes, c]), g.const([classes])], transB=1)
    g.flops += 2.0 * c * classes
    g.output(y, [1, classes])


def _cnn1d(g: _G) -> None:
    """A 1-D CNN over a sequence (audio frames, sensor series, text): dense k-wide convolutions, dilated ones,
    depthwise-separable blocks with residual adds (TCN / QuartzNet style), max pools, BN and activations; a batch of
    1 to 64 sequences; 30 % start from raw samples through an STFT (spectral.py: a wide strided convolution or
    onnxruntime's STFT op). onnxruntime blocks only 2-D convolutions as NCHWc (variants.variant: "1d/..."), so a
    1-D convolution costs what no 2-D one shows (round 7: atspm's batch-64 1-D CNN at half the 2-D FLOP/s)."""
    rng = g.rng
    n = int(rng.choice([1, 1, 1, 4, 16, 64]))
    c = int(rng.choice([1, 8, 15, 40, 64, 80]))
    length = max(8, int(int(rng.choice([16, 32, 128, 256, 512, 1024, 2048, 4096])) / math.sqrt(n)))
    if rng.random() < 0.3:  # an audio front end over raw samples: a wide strided convolution or the STFT op
        n = 1
        t, c, length = stft_front(g, MAX_FLOPS) if g.opset >= STFT_OPSET and rng.random() < 0.5 else conv_front(g)
    else:
        t = g.input([n, c, length])

    def conv(t: str, c: int, cout: int, k: int, s: int = 1, group: int = 1, dil: int = 1) -> tuple[str, int]:
        nonlocal length
        if group == 1:  # one kernel at most MAX_FLOPS / 4
            cout = max(min(cout, 8), min(cout, int(MAX_FLOPS / 4 / (2.0 * n * length / s * c * k))))
        w = g.const([cout, c // group, k])
        y = g.node("Conv", [t, w, g.const([cout])], kernel_shape=[k], strides=[s], dilations=[dil],
                   pads=[dil * (k // 2)] * 2, group=group)
        length = (length - 1) // s + 1
        g.flops += 2.0 * n * cout * length * (c // group) * k
        return y, cout

    for _ in range(int(rng.integers(3, 10))):
        if g.flops > MAX_FLOPS or length < 4:
            break
        kind = rng.choice(["dense", "sep", "pool"], p=[0.5, 0.35, 0.15])
        if kind == "dense":
            k, dil = int(rng.choice([1, 3, 3, 5, 7, 9])), int(rng.choice([1, 1, 2, 4]))
            y, cout = conv(t, c, _ch(rng, 8, 256), k, int(rng.choice([1, 1, 2])) if dil == 1 else 1, dil=dil)
            if rng.random() < 0.4:
                y = _bn(g, y, cout)
            t, c = _act(g, y, [cout, 1]), cout
        elif kind == "sep":
            y, _ = conv(t, c, c, int(rng.choice([3, 5, 9, 11])), group=c)
            y, cout = conv(y, c, c if rng.random() < 0.5 else _ch(rng, 8, 256), 1)
            y = _act(g, y)
            t, c = (g.node("Add", [y, t]) if cout == c else y), cout
        else:
            t = g.node("MaxPool", [t], kernel_shape=[2], strides=[2])
            length //= 2
    if rng.random() < 0.35:  # a narrow per-frame head (a mask, a voice-activity score)
        y, cout = conv(t, c, int(rng.integers(1, 5)), 1)
        g.output(y, [n, cout, length])
    f = g.node("Flatten", [g.node("GlobalAveragePool", [t])])
    y = g.node("Gemm", [f, g.const([16, c]), g.const([16])], transB=1)
    g.output(y, [n, 16])


def _transformer(g: _G) -> None:
    rng = g.rng
    t_len = int(rng.choice([8, 16, 32, 49, 64, 128, 197, 256]))
    d = int(rng.choice([64, 128, 192, 256, 384, 512]))
    heads = int(rng.choice([h for h in (1, 2, 4, 8) if d % h == 0]))
    ff = d * int(rng.choice([2, 4]))
    while t_len > 8 and 8.0 * t_len * d * d + 4.0 * t_len * t_len * d + 4.0 * t_len * d * ff > 2.5 * MAX_FLOPS:
        t_len //= 2  # one layer within the model's FLOPs bound
    x = g.input([1, t_len, d])
    dh = d // heads
    for _ in range(int(rng.integers(1, 4))):
        if g.flops > MAX_FLOPS:
            break
        n = g.layer_norm(x, d)

        def proj(src: str, din: int, dout: int) -> str:
            g.flops += 2.0 * t_len * din * dout
            return g.node("Add", [g.node("MatMul", [src, g.const([din, dout])]), g.const([dout])])

        def heads_of(src: str) -> str:
            r = g.node("Reshape", [src, g.const([4], np.int64, [1, t_len, heads, dh])])
            return g.node("Transpose", [r], perm=[0, 2, 1, 3])

        q, k, v = (heads_of(proj(n, d, d)) for _ in range(3))
        kt = g.node("Transpose", [k], perm=[0, 1, 3, 2])
        s = g.node("Div", [g.node("MatMul", [q, kt]), g.const([], value=math.sqrt(dh))])
        g.flops += 4.0 * heads * t_len * t_len * dh
        a = g.node("MatMul", [g.node("Softmax", [s], axis=-1), v])
        a = g.node("Reshape", [g.node("Transpose", [a], perm=[0, 2, 1, 3]), g.const([3], np.int64, [1, t_len, d])])
        x = g.node("Add", [x, proj(a, d, d)])
        n = g.layer_norm(x, d)
        h = proj(n, d, ff)
        if rng.random() < 0.7:  # GELU, Erf form (onnxruntime fuses it)
            e = g.node("Erf", [g.node("Div", [h, g.const([], value=math.sqrt(2.0))])])
            h = g.node("Mul", [g.node("Mul", [h, g.node("Add", [e, g.const([], value=1.0)])]),
                               g.const([], value=0.5)])
        else:
            h = g.node("Relu", [h])
        x = g.node("Add", [x, proj(h, ff, d)])
    g.output(x, [1, t_len, d])


def _misc_binary(g: _G, rank4: list[int]) -> None:
    """One Add / Mul / Sub / Div: row by row (variants.row_spans) about half the time, else per channel or whole."""
    rng = g.rng
    op = str(rng.choice(["Add", "Mul", "Sub", "Div"]))
    r = rng.random()
    if r < 0.55:  # row by row (variants.row_spans): a vector along a short last axis, or a scalar against 1
        c = int(rng.choice([1, 2, 4, 8, 16, 32, 64]))
        shape = [1, max(1, int(rng.choice([4096, 16384, 65536, 262144])) // c), c]
        x = g.input(shape)
        other = g.const([] if c == 1 and rng.random() < 0.5 else [c], value=None)
        g.output(g.node(op, [x, other]), shape)
    else:
        x = g.input(rank4)
        other = g.const([1, rank4[1], 1, 1] if r < 0.75 else rank4, value=None)
        g.output(g.node(op, [x, other]), rank4)


def _misc_layout(g: _G, kind: str, rank4: list[int]) -> None:
    """A reduction (a global pool, over the last axis or a strided one), a Transpose of one of onnxruntime's
    paths, or a OneHot."""
    rng = g.rng
    if kind == "reduce":
        r, op = rng.random(), str(rng.choice(["ReduceMean", "ReduceMax", "ReduceSum"]))

        def reduce(x: str, axis: int, op: str = op) -> str:  # ReduceSum's axes are an input from opset 13 on
            if op == "ReduceSum":
                return g.node(op, [x, g.const([1], np.int64, [axis])], keepdims=1)
            return g.node(op, [x], axes=[axis], keepdims=1)

        if r < 0.3:
            x = g.input(rank4)
            g.output(g.node("GlobalAveragePool", [x]), [1, rank4[1], 1, 1])
        elif r < 0.55:
            x = g.input(rank4)
            g.output(reduce(x, -1), [*rank4[:3], 1])
        else:  # over a sequence's or a map's channels: strided reads (variants._reduce_variant)
            t_len, d = int(rng.choice([16, 64, 256, 1024, 2048])), _ch(rng, 8, 512)
            x = g.input([1, t_len, d])
            g.output(reduce(x, 1), [1, 1, d])
    elif kind == "transpose":  # each of onnxruntime's Transpose paths (variants._transpose_variant)
        perms = [[0, 2, 3, 1], [0, 3, 1, 2], [0, 1, 3, 2],  # one axis moved (the table's other kinds have many)
                 [0, 3, 2, 1], [3, 2, 1, 0], [1, 0, 3, 2],  # element by element
                 [2, 1, 0, 3]]  # the last axis kept: blocks
        perm = perms[int(rng.choice(7, p=[0.1, 0.1, 0.1, 0.12, 0.12, 0.11, 0.35]))]
        shape = [int(rng.choice([1, 2, 4])), *rank4[1:]]
        x = g.input(shape)
        g.output(g.node("Transpose", [x], perm=perm), [shape[a] for a in perm])
    elif kind == "onehot":  # indices from a Cast, so that onnxruntime cannot fold it as a constant
        n, depth = int(rng.choice([64, 256, 1024, 2048])), int(rng.choice([16, 64, 257, 512]))
        x = g.input([1, n])
        idx = g.node("Cast", [x], to=7)  # int64
        y = g.node("OneHot", [idx, g.const([], np.int64, depth), g.const([2], value=[0.0, 1.0])], axis=-1)
        g.output(y, [1, n, depth])


def _misc(g: _G) -> None:
    rng = g.rng
    for _ in range(int(rng.integers(7, 16))):  # 6-13 until round 12, which added Resize as a kind of its own
        kind = rng.choice(["unary", "binary", "copy", "reduce", "pool", "rnn", "convT", "softmax", "onehot",
                           "transpose", "stft", "scatter", "einsum", "resize"],
                          p=[0.07, 0.08, 0.07, 0.07, 0.05, 0.06, 0.09, 0.08, 0.04, 0.07, 0.08, 0.09, 0.07, 0.08])
        rank4 = [1, _ch(rng, 4, 256), int(rng.choice([7, 14, 28, 56, 112])), 0]
        rank4[3] = rank4[2]
        if kind == "unary":
            # Softplus, Log, Elu: transcendental, each several ns an element (trueocr's Softplus: 23× the unary
            # family's price, round 7)
            op = str(rng.choice(["Relu", "Sigmoid", "Tanh", "HardSwish", "Exp", "Sqrt", "Erf", "Neg", "Softplus",
                                 "Log", "Elu", "Reciprocal"]))
            x = g.input(rank4)
            y = g.node(op, [g.node("Abs", [x])] if op in ("Sqrt", "Log") else [x])
            g.output(y, rank4)
        elif kind == "binary":
            _misc_binary(g, rank4)
        elif kind == "scatter":
            scatter_op(g, rank4)
        elif kind == "einsum":  # drawn and dropped, so the other ops stay as they were: head models measure them
            einsum_op(_G(rng, g.opset))
        elif kind == "copy":
            x = g.input(rank4)
            op = str(rng.choice(["Transpose", "Concat", "Slice", "Pad"]))  # Resize: its own kind (resamples.py)
            if op == "Transpose":
                g.output(g.node("Transpose", [x], perm=[0, 2, 3, 1]), [rank4[0], rank4[2], rank4[3], rank4[1]])
            elif op == "Concat":
                g.output(g.node("Concat", [x, x], axis=1), [1, 2 * rank4[1], rank4[2], rank4[3]])
            elif op == "Slice":
                half = max(1, rank4[1] // 2)
                y = g.node("Slice", [x, g.const([1], np.int64, [0]), g.const([1], np.int64, [half]),
                                     g.const([1], np.int64, [1])])
                g.output(y, [1, half, rank4[2], rank4[3]])
            else:
                y = g.node("Pad", [x, g.const([8], np.int64, [0, 0, 1, 1, 0, 0, 1, 1])])
                g.output(y, [1, rank4[1], rank4[2] + 2, rank4[3] + 2])
        elif kind == "resize":
            resize_op(g, rank4)
        elif kind == "stft":  # the op exists from opset 17: below it the draw writes nothing
            if g.opset >= STFT_OPSET:
                stft_op(g, MAX_FLOPS / 8)
        elif kind in ("reduce", "transpose", "onehot"):
            _misc_layout(g, str(kind), rank4)
        elif kind == "pool":
            x = g.input(rank4)
            y = g.node(str(rng.choice(["MaxPool", "AveragePool"])), [x], kernel_shape=[3, 3], strides=[2, 2],
                       pads=[1, 1, 1, 1])
            g.output(y, [1, rank4[1], (rank4[2] - 1) // 2 + 1, (rank4[3] - 1) // 2 + 1])
        elif kind == "softmax":  # half over axis 1 (variants.py: a detector's DFL bins, a segmenter's classes)
            t_len, d = int(rng.choice([16, 64, 128, 256])), int(rng.choice([16, 64, 128, 256, 512]))
            if rng.random() < 0.3:  # rows of 2-8 (variants._softmax_rows: a detector's two-class scores)
                t_len, d = int(rng.choice([512, 4096, 16384, 65536])), int(rng.choice([2, 3, 4, 8]))
            dims = [1, t_len, d] if d < 16 or rng.random() < 0.5 else \
                [1, 16, 4, int(rng.choice([400, 2100, 8400]))] if rng.random() < 0.5 else [1, _ch(rng, 2, 32), d, d]
            g.output(g.node("Softmax", [g.input(dims)], axis=-1 if len(dims) == 3 else 1), dims)
        elif kind == "rnn":
            op = str(rng.choice(["LSTM", "GRU"]))
            gates = 4 if op == "LSTM" else 3
            seq, inp, hid = int(rng.choice([1, 4, 16, 64])), _ch(rng, 8, 256), _ch(rng, 8, 256)
            dirs = int(rng.choice([1, 1, 2]))  # bidirectional: a text encoder's (round 7's romanizer, tashkeel)
            x = g.input([seq, 1, inp])
            out = g.node(op, [x, g.const([dirs, gates * hid, inp]), g.const([dirs, gates * hid, hid])],
                         hidden_size=hid, direction="bidirectional" if dirs == 2 else "forward")
            g.flops += 2.0 * seq * dirs * gates * hid * (inp + hid)
            g.output(out, [seq, dirs, 1, hid])
        else:
            conv_transpose_op(g, MAX_FLOPS)
    # after the drawn kinds, so that their draws stay as they were: an inner Gather or a general Pow, a projection
    gather_pow_op(g, "gather" if rng.random() < 0.5 else "pow",
                  [1, _ch(rng, 4, 256), *[int(rng.choice([7, 14, 28, 56, 112]))] * 2])
    projection_op(g)
    reduce_op(g, 2)  # and two reductions of up to 32 MB (round 27: reductions.py)


def _tiny(g: _G) -> None:
    """One to three small ops: models whose whole run is a few µs pin the per-run overhead of the model level."""
    rng = g.rng
    for _ in range(int(rng.integers(1, 4))):
        n = int(rng.choice([4, 16, 64, 256, 1024]))
        kind = rng.choice(["unary", "binary", "matmul", "conv"])
        if kind == "unary":
            x = g.input([1, n])
            g.output(g.node(str(rng.choice(["Relu", "Sigmoid", "Tanh", "Identity"])), [x]), [1, n])
        elif kind == "binary":
            x = g.input([1, n])
            g.output(g.node(str(rng.choice(["Add", "Mul"])), [x, g.const([1, n])]), [1, n])
        elif kind == "matmul":
            m = int(rng.choice([4, 8, 16, 32]))
            x = g.input([1, m])
            g.flops += 2.0 * m * m
            g.output(g.node("MatMul", [x, g.const([m, m])]), [1, m])
        else:
            c, h = int(rng.choice([1, 2, 4])), int(rng.choice([3, 4, 8]))
            x = g.input([1, c, h, h])
            y, _, cout = _conv(g, x, c, h, c, 3, 1)
            g.output(y, [1, cout, h, h])


def _written(g: _G) -> None:
    """Activations and elementwise blocks written out as exporters write them, in one chain on one feature map
    (paddle2onnx and older torch exports: HardSwish as x·Clip(x + 3, 0, 6) / 6, HardSigmoid likewise, squeeze-
    excite's channel gate, a batch norm as Mul and Add, residual adds), between depthwise convolutions as in a
    mobile backbone. Each op reads what the op before it wrote, still in the cache: the misc kind's ops each read
    their own input, and at a few hundred kB each a model of a dozen of them no longer fits the cache (onnxruntime,
    1 thread here: ten chained Divs of 295 kB ran 1.5× faster than ten on their own inputs), which left the
    elementwise kernels of real networks over-predicted 1.7-3.3× (the fifth round: PaddleOCR's classifier and
    detector, docs/predict.md)."""
    rng = g.rng
    c, h = _ch(rng, 8, 256), int(rng.choice([7, 14, 24, 28, 48, 56, 96]))
    while c * h * h > 1 << 18 and h > 7:  # a feature map of at most 1 MB
        h //= 2
    t = g.input([1, c, h, h])
    shape = [1, c, h, h]
    scalars: dict[float, str] = {}

    def scalar(v: float) -> str:  # each constant once, and only when used
        if v not in scalars:
            scalars[v] = g.const([], value=v)
        return scalars[v]

    for _ in range(int(rng.integers(3, 9))):
        kind = rng.choice(["hswish", "hsigmoid", "se", "bn", "residual", "dw"], p=[0.3, 0.1, 0.15, 0.15, 0.1, 0.2])
        if kind in ("hswish", "hsigmoid"):
            clipped = g.node("Clip", [g.node("Add", [t, scalar(3.0)]), scalar(0.0), scalar(6.0)])
            gate = g.node("Div", [clipped, scalar(6.0)])
            t = g.node("Mul", [t, gate]) if kind == "hswish" else gate
        elif kind == "se":
            pooled = g.node("GlobalAveragePool", [t])
            gate = g.node(str(rng.choice(["Sigmoid", "HardSigmoid"])), [pooled])
            t = g.node("Mul", [t, gate])
        elif kind == "bn":
            t = g.node("Add", [g.node("Mul", [t, g.const([1, c, 1, 1])]), g.const([1, c, 1, 1])])
        elif kind == "residual":
            t = g.node("Add", [t, g.node("Relu", [t])])
        else:
            t, _, _ = _conv(g, t, c, h, c, 3, 1, group=c)
    g.output(t, shape)


def calibration_models(seed: int = 0, count: int | None = None, opset: int = OPSET) -> Iterator[tuple[str, Any]]:
    """(name, onnx.ModelProto) calibration models, deterministic for `seed`; endless when count is None. `opset`:
    the default-domain opset they are written at (OPSET, or lower for a board whose onnxruntime loads no more:
    MIN_OPSET at least, where every op used exists; LayerNormalization is then written out)."""
    if not MIN_OPSET <= opset <= OPSET:
        raise ValueError(f"calibration models are written at opset {MIN_OPSET} to {OPSET}, not {opset}")
    rng = np.random.default_rng(seed)
    i = 0
    order = ["cnn", "transformer", "misc", "cnn", "act", "transformer", "cnn", "tiny", "head", "cnn1d", "rnn"]
    while count is None or i < count:
        kind = order[i % len(order)]
        # each model draws from its own generator, so a model that differs by opset (an STFT from 17 on, a
        # LayerNormalization written out below it) leaves every other model as it is
        g = _G(np.random.default_rng(int(rng.integers(2**63))), opset)
        # one CNN in four with its weights listed as graph inputs (keep_initializers_as_inputs, the default of older
        # exporters): onnxruntime then keeps them overridable, and its convolutions run unfolded, unpacked, unblocked
        g.weights_as_inputs = kind == "cnn" and rng.random() < 1 / 4
        {"cnn": _cnn, "transformer": _transformer, "misc": _misc, "tiny": _tiny, "head": head, "act": _written,
         "cnn1d": _cnn1d, "rnn": lambda g: recurrent(g, MAX_FLOPS)}[kind](g)
        yield f"cal-{seed}-{i:03d}-{kind}", g.model(f"cal_{i}")
        i += 1


PROBE_NAME = "edgeprof-probe-1"  # the speed probe's name in a table; a new probe network gets a new number


def probe_model(opset: int = OPSET) -> Any:
    """The speed probe as an ONNX model (fixed weights, the same file every time: see the module docstring)."""
    g = _G(np.random.default_rng(20261205), opset)
    x = g.input([1, 16, 96, 96])
    t, h, c = _conv(g, x, 16, 96, 32, 3, 1)
    t = g.node("Relu", [t])
    for cout in (64, 64):
        t, h, _ = _conv(g, t, c, h, c, 3, 2 if c == 32 else 1, group=c)  # depthwise
        t = g.node("Relu", [t])
        y, h, cout = _conv(g, t, c, h, cout, 1, 1)  # pointwise
        t = g.node("Add", [y, t]) if cout == c else g.node("Relu", [y])
        c = cout
    t = g.node("Flatten", [g.node("GlobalAveragePool", [t])], axis=1)
    t = g.node("Relu", [g.node("Gemm", [t, g.const([256, c]), g.const([256])], transB=1)])
    t = g.node("Gemm", [t, g.const([128, 256]), g.const([128])], transB=1)
    g.flops += 2.0 * (c * 256 + 256 * 128)
    g.output(t, [1, 128])
    return g.model("edgeprof_probe")
