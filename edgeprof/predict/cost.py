"""A kernel key's cost model: a power law in FLOPs and bytes corrected by its nearest samples' residuals, grown
linearly past its largest samples; the options a fit is made with (FitOptions) and the shape-range tests.

Owns: CostModel and _fit_cost (one key's or family's samples → its model), FitOptions, _beyond/_above (where a
kernel lies against the range a model was fitted on). Does not own: which model a kernel takes, the model level,
the interval (fit.py: Predictor).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .graph import Kernel

_OOD_SPAN = 4.0

_KNN = 7
_MAX_EXP = 1.0  # µs grows at most linearly in FLOPs and bytes (a bigger kernel is never less efficient)
_GROWS = 0.2  # a law whose exponents sum to less does not depend on size: not grown past its samples
COMPUTE = ("conv", "matmul")  # families whose FLOP/s rises with a kernel's size (CostModel, fit.Predictor._cost)
_RATE_PCT = 90  # past its samples a kernel runs no faster per FLOP or byte than this percentile of its key's
_RATE_TOP = 1 / 3  # ... samples, per FLOP over their largest third in FLOPs (_rates)
SMALL_FLOPS, SMALL_BYTES = 1e4, 1e5  # a "small" kernel: the fallback's base cost, a tiny model's one op
# a small kernel's neighbours are also found in its context (contexts(): the log bytes of the largest of the kernels
# run just before it), a unit of it counting this much against a unit of log FLOPs or bytes (round 23: after a
# convolution that swept the caches the 170-FLOP classifier Gemm of a 42 ms CNN ran 4-11 µs, one of a head model 0.6;
# a 4.6 µs MLP whose Gemms took the CNNs' price was predicted at twice its time)
_CTX_W = 0.5
_CTX_BEFORE = 3
# ... and, since round 23's run, a kernel that reads more than it computes (at most this many FLOPs a byte) of less
# than _CTX_BYTES: whether its weights are still in the cache from the kernels before (holosoma's policy MLP, whose
# 0.5 MB Gemm at M = 1 ran 6 µs among small kernels, was priced 15 by samples that ran after megabytes: +87 %)
_CTX_FLOPS_PER_BYTE = 2.0
_CTX_BYTES = 4e6
# ... and, from round 24 on, in the bytes its whole model moves in a run (contexts()' second part, weighed as the
# first): a small model's weights and activations are still in the caches when the next run reaches them, a large
# model's are not, whatever ran just before (holosoma's two policy MLPs, ~1 MB a run, whose Gemms had been priced by
# samples of the same size and neighbours in models of megabytes: +85 and +69 % at 1 thread; with it +38 and +22)
Context = tuple[float, float]


@dataclass(frozen=True)
class FitOptions:
    """The knobs of the per-kernel cost model that were compared on the tables' folds (docs/predict.md lists every
    variant tried with its figures); the defaults are the method. knn: how many nearest samples correct the power
    law; shape: whether the neighbours are found in (log FLOPs, log bytes) only or also in log output elements (a
    shape feature: for a convolution, FLOPs per output element is 2·Cin/groups·k², so the three together
    separate a deep reduction over few outputs from a shallow one over many, which run at very different FLOP/s)."""

    knn: int = _KNN
    shape: bool = False
    # how a profiled model's node times are made timed (_timed_us): run_overhead takes the per-run overhead (the
    # quickest tiny model's p50: _profile_corrections) off the p50 before it is shared among the kernels; excess
    # caps the per-node profiler excess δ taken off each node at `excess` × the table's median per-node excess
    # (0: scaling alone, the method up to the third round; docs/predict.md, fourth round)
    run_overhead: bool = True
    excess: float = 1.0
    # divide each calibration model's times by the speed probe's speed at its time (no probe in the table: nothing
    # to divide by); False: the method up to the fourth round, which took the times as measured
    pace: bool = True
    # read which kernels this host's "all" level fused and the bytes its reorders move (layout.py's marks, where the
    # table's kernels carry them): a run rate per key and mark, and reorder bytes in the model level; False: the
    # method up to the fifth round (one rate per key, no reorder term)
    layout: bool = True
    # find a small or memory-bound kernel's neighbours in its context too (contextual(), contexts(), _CTX_W); False:
    # the method up to the twenty-second round
    context: bool = True
    # ... its context holding its model's bytes a run too (contexts()' second part); False: round 23's method
    footprint: bool = True
    # multiply a fitted model level by its folds' median error (level.recentre); False: round 24's method
    recentre: bool = True


DEFAULT_OPTIONS = FitOptions()
# what fit(table, CANDIDATES) chooses between by the table's own folds (benchmarks/prediction_folds.py): on this VM's
# tables the three-feature neighbours (4 of them) predicted onnxruntime's 1-thread folds better and its 2-thread and
# LiteRT folds no better, but the held-out models worse; so not the default (docs/predict.md, third round)
CANDIDATES = (DEFAULT_OPTIONS, FitOptions(knn=4, shape=True))


# a recurrent key's neighbours (round 11): 4, in log FLOPs, bytes and output elements. FLOPs and bytes alone do not
# tell a long sequence of small steps from a short one of large steps (the outputs, sequence × batch × directions
# × hidden, do): LAC's BiGRU over 64 tokens had been priced +69 %, the Arabic romaniser's encoder +92 %, by
# neighbours of other step counts; with the outputs, +33 % and +29 % (docs/predict.md, eleventh round)
RECURRENT = FitOptions(knn=4, shape=True)


def key_options(k: Kernel, options: FitOptions) -> FitOptions:
    """The options a key's model is fitted with: a recurrent key's neighbours (RECURRENT) take their output
    elements too, a 1-D grouped convolution's its calls (_calls_beside); any other key's are `options`'."""
    return dataclasses.replace(options, knn=RECURRENT.knn, shape=True) if k.family == "rnn" or _calls_beside(k) \
        else options


def _calls_beside(k: Kernel) -> bool:
    """A 1-D grouped convolution that counts its calls (graph.Kernel.spans, from round 15 on): its law stays in FLOPs
    and bytes and its calls are the neighbours' third feature (4 of them, as a recurrent key's output elements).
    onnxruntime pays ≈ 0.09 µs a call besides the FLOPs (variants.group_calls), which FLOPs and bytes cannot tell
    apart: pulsevad's depthwise kernels over 64-128 channels of 21 frames had been priced by samples of their FLOPs
    over fewer, longer channels, at a third of their time. The calls in place of FLOPs (as a grouped convolution
    whose weight is a graph input has them) priced flashvad's and wakeforge's 8-13 points dearer (round 15)."""
    return bool(k.spans) and "/1d/" in k.key and "winput" not in k.key


def _nearest(d: np.ndarray, k: int) -> np.ndarray:
    """The indices of the k smallest of d, ordered by (distance, index): what a stable argsort's first k are,
    without sorting all of d."""
    if len(d) <= k:
        return np.argsort(d, kind="stable")
    cand = np.flatnonzero(d <= np.partition(d, k - 1)[k - 1])
    return cand[np.argsort(d[cand], kind="stable")][:k]


def _features(k: Kernel, shape: bool) -> list[float]:
    # a kernel that costs per call stands by its calls where FLOPs stand (graph.Kernel.spans): a binary op broadcast
    # row by row (its rows), a grouped convolution whose weight is a graph input (its GEMM calls); a 1-D grouped
    # one keeps its FLOPs and takes its calls as the third feature (_calls_beside: not read by a model of two)
    beside = _calls_beside(k)
    f = [math.log1p(k.spans if k.spans and not beside else k.flops), math.log1p(k.bytes)]
    return [*f, math.log1p(k.spans if beside else k.out_elems)] if shape else f


@dataclass(frozen=True)
class CostModel:
    """log µs = a + b·log FLOPs + c·log bytes (a power law, which extrapolates), corrected by the weighted mean
    residual of the `knn` samples nearest in (log FLOPs, log bytes[, log output elements]) (which follows the
    kernel's own bends: cache sizes, tiling, the shapes that a power law in two totals cannot tell apart)."""

    coef: tuple[float, float, float]
    n: int
    flops_range: tuple[float, float]
    bytes_range: tuple[float, float]
    log_spread: float  # RMS of log(measured / fitted) over its samples
    points: np.ndarray  # n × d: the neighbour features (log1p FLOPs, log1p bytes[, log1p output elements])
    residuals: np.ndarray  # n: log measured − power law
    scale: np.ndarray | None = None  # d: the features' spread (None: raw log distances, two features)
    knn: int = _KNN
    ctx: np.ndarray | None = None  # n × 2: each sample's context (contexts(); None: not read)
    # its samples' speed per FLOP and per byte at their _RATE_PCT-th percentile (a key fitted on its calls: per call,
    # its fastest): past the samples a kernel runs no faster than that (round 12: a 7.5 GFLOP convolution of low bytes
    # per FLOP was priced at 272 GFLOP/s, where its key's samples ran 113-121 at their 50th-90th); 0: no floor
    rates: tuple[float, float] = (0.0, 0.0)

    def _law(self, lf: float, lb: float) -> float:
        a, b, c = self.coef
        return a + b * lf + c * lb

    def __call__(self, k: Kernel, ctx: Context | None = None) -> float:
        """µs of kernel `k`; `ctx`: its context (contexts()), by which a contextual() kernel's neighbours are also
        found."""
        x = np.array(_features(k, self.points.shape[1] == 3))
        # past the largest sample the law is not extrapolated at its own (sublinear: small samples carry a fixed
        # cost) exponents: the kernel costs a kernel of its own FLOPs-to-bytes ratio at the edge of the samples
        # costs, grown linearly by as much as the further past of its FLOPs and bytes lies (a kernel runs no faster
        # per FLOP, nor per byte, than the largest measured). Until round 11 the kernel was clamped to the edge in
        # each feature and grown by the exponents' mix: a convolution of 5× the samples' FLOPs at their bytes grew
        # 5^0.55×, and YOLO11s-seg's 640×640 convolutions were priced at 1.45× the samples' FLOP/s (round 12). A
        # law that barely grows (a view, a Shape) stays flat at the edge.
        top = self.points.max(axis=0)
        past = np.maximum(x[:2] - top[:2], 0.0)
        at = x.copy()
        grow = 0.0
        if past.any() and self.coef[1] + self.coef[2] >= _GROWS:
            grow = float(past.max())
            at = np.maximum(x - grow, 0.0)  # its output elements too, where the neighbours are found in them
        else:
            at[:2] -= past
        diff = self.points - at if self.scale is None else (self.points - at) / self.scale
        d2 = (diff * diff).sum(axis=1)
        if ctx is not None and self.ctx is not None and contextual(k):
            d2 = d2 + ((_CTX_W * (self.ctx - np.asarray(ctx))) ** 2).sum(axis=1)
        d = np.sqrt(d2)
        near = _nearest(d, self.knn)
        w = 1.0 / (d[near] + 0.05)
        us = math.exp(self._law(float(at[0]), float(at[1])) + grow + float((w * self.residuals[near]).sum() / w.sum()))
        if grow > 0.0:
            work = (k.flops if _calls_beside(k) else k.spans or k.flops, k.bytes)
            us = max(us, *(v / r for v, r in zip(work, self.rates, strict=True) if r > 0.0))
        elif past[0] > 0.0 and k.family.startswith(COMPUTE) and self.rates[0] > 0.0:
            # a convolution's or matmul's law that barely grows, fitted on small samples whose time is their
            # overhead, is not left flat at the edge: past them in FLOPs it runs no faster than they did (round 22:
            # hibari-tts's integer matmuls of ~100 MFLOP at the 37 µs of 8 MFLOP samples, a quarter of their time;
            # not other ops', whose FLOPs stand for little: an L2 normalisation's reduction went +8 → +17 %)
            us = max(us, (k.flops if _calls_beside(k) else k.spans or k.flops) / self.rates[0])
        return us

    def fitted_log(self, chunk: int = 256) -> np.ndarray:
        """log µs of its own samples as __call__ gives them, computed for all at once (rows of `chunk`)."""
        out = np.empty(len(self.points))
        law = self.coef[0] + self.points[:, :2] @ np.array(self.coef[1:])
        for lo in range(0, len(self.points), chunk):
            diff = self.points[None, :, :] - self.points[lo:lo + chunk, None, :]
            if self.scale is not None:
                diff = diff / self.scale
            d = np.sqrt(np.sum(diff ** 2, axis=2))
            near = np.argsort(d, axis=1, kind="stable")[:, : self.knn]
            w = 1.0 / (np.take_along_axis(d, near, axis=1) + 0.05)
            out[lo:lo + chunk] = law[lo:lo + chunk] + np.sum(w * self.residuals[near], axis=1) / np.sum(w, axis=1)
        return out


def small(k: Kernel) -> bool:
    """Whether `k` is a small kernel (SMALL_FLOPS, SMALL_BYTES): one whose time is mostly its call."""
    return k.flops < SMALL_FLOPS and k.bytes < SMALL_BYTES


def contextual(k: Kernel) -> bool:
    """Whether `k`'s neighbours are also found in its context: a small kernel, or one that moves more bytes than it
    computes FLOPs (×_CTX_FLOPS_PER_BYTE) and few enough of them to stay in a cache (_CTX_BYTES); a convolution's
    or a large matmul's are found as before (a context for every kernel worsened 2 threads, rounds 14, 20 and 23)."""
    return small(k) or (k.flops <= _CTX_FLOPS_PER_BYTE * k.bytes and k.bytes < _CTX_BYTES)


def contexts(ks: Sequence[Kernel], footprint: bool = True) -> list[Context]:
    """Each kernel's context, in the order the graph runs them: log1p of the most bytes one of the _CTX_BEFORE
    kernels before it moved — whether the caches were just swept (a CNN's classifier Gemm after its last
    convolution and pool) or not (an MLP's Gemms; a voice's small quantise and elementwise ops between each other,
    whose model also has convolutions of megabytes elsewhere, which a model-wide context alone priced 10 points
    dearer in round 23) — and log1p of the bytes all of `ks` move (0 without `footprint`): whether what the kernel
    reads is still cached from the run before."""
    whole = math.log1p(sum(k.bytes for k in ks)) if footprint else 0.0
    out, recent = [], [0.0] * _CTX_BEFORE
    for k in ks:
        out.append((math.log1p(max(recent)), whole))
        recent = [*recent[1:], k.bytes]
    return out


def _fit_cost(samples: Sequence[tuple[Kernel, float]], options: FitOptions = DEFAULT_OPTIONS,
              ctx: Sequence[Context] | None = None) -> CostModel:
    pts = np.array([_features(k, options.shape) for k, _ in samples])
    ly = np.log(np.array([us for _, us in samples]))
    x = np.column_stack([np.ones(len(ly)), pts[:, :2]])
    coef, *_ = np.linalg.lstsq(x, ly, rcond=None)
    if not (0.0 <= coef[1] <= _MAX_EXP and 0.0 <= coef[2] <= _MAX_EXP and coef[1] + coef[2] <= _MAX_EXP):
        # few or collinear samples: one exponent on log(FLOPs + bytes), clipped, so extrapolation stays sane
        lt = np.log1p(np.array([k.flops + k.bytes for k, _ in samples]))
        e = float(np.clip(np.polyfit(lt, ly, 1)[0], 0.0, _MAX_EXP)) if np.ptp(lt) > 0 else 0.0
        both = pts[:, 0] + pts[:, 1]
        share = np.where(both > 0, pts[:, 0] / np.maximum(both, 1e-12), 0.5)
        wf = float(np.clip(np.mean(share), 0.0, 1.0))
        coef = np.array([0.0, e * wf, e * (1.0 - wf)])
        coef[0] = float(np.mean(ly - x[:, 1:] @ coef[1:]))
    res = ly - x @ coef
    fl = [k.flops for k, _ in samples]
    by = [k.bytes for k, _ in samples]
    work = np.array([(k.flops if _calls_beside(k) else k.spans or k.flops, k.bytes) for k, _ in samples])
    # the 90th percentile, not the largest: a profile that gave a node part of another's time makes a sample
    # impossibly fast (a 19 MFLOP convolution "at" 529 GFLOP/s beside its key's 113-121 at the 50th-90th); a key
    # fitted on its calls (graph.Kernel.spans) keeps its fastest, which CenterFace's 9600-call convolutions needed
    pct = 100 if any(k.spans and not _calls_beside(k) for k, _ in samples) else _RATE_PCT
    rates = _rates(work, np.exp(ly), pct)
    model = CostModel(coef=(float(coef[0]), float(coef[1]), float(coef[2])), n=len(samples),
                      flops_range=(min(fl), max(fl)), bytes_range=(min(by), max(by)), log_spread=0.0,
                      points=pts, residuals=res, knn=options.knn, rates=(float(rates[0]), float(rates[1])),
                      ctx=np.array(ctx, dtype=float) if ctx is not None else None,
                      scale=np.maximum(pts.std(axis=0), 1e-6) if options.shape else None)
    return dataclasses.replace(model, log_spread=float(np.sqrt(np.mean((ly - model.fitted_log()) ** 2))))


def _rates(work: np.ndarray, us: np.ndarray, pct: float) -> np.ndarray:
    """(FLOPs, bytes) per µs a kernel past the samples runs no faster than: the `pct`-th percentile of each over the
    samples — per FLOP over the largest _RATE_TOP of them in FLOPs, per byte over all (from the largest in bytes it
    priced chars2vec's in-loop recurrent MatMuls, whose weights stay in the cache, at DRAM speed); a key fitted on
    its calls (pct 100) keeps its fastest sample of all in both. Not per FLOP over all samples: a small sample's
    time is mostly the profiler's per-node excess taken off (_timed_us), and what is left can be a few per cent of
    what was profiled — at 2 threads on a 2-core AVX2 host the 1x1 1-D convolutions' 90th percentile over all was
    218 GFLOP/s, past what two cores compute, set by samples of 1-4 MFLOP timed at a fifth of their profile, while the
    key's samples of 12-100 MFLOP ran 58-130 (Conv-TasNet, round 17: −44 %)."""
    out = np.percentile(work / us[:, None], pct, axis=0)
    if pct >= 100:
        return out
    big = work[:, 0] >= np.quantile(work[:, 0], 1.0 - _RATE_TOP)
    out[0] = np.percentile(work[big, 0] / us[big], pct)
    return out


def _above(m: CostModel, k: Kernel) -> bool:
    """Whether the kernel's FLOPs or bytes lie above ×_OOD_SPAN of the range `m` was fitted on, neither below."""
    lo_f, hi_f = m.flops_range
    lo_b, hi_b = m.bytes_range
    return (k.flops > hi_f * _OOD_SPAN or k.bytes > hi_b * _OOD_SPAN) and k.flops >= lo_f and k.bytes >= lo_b


def _beyond(m: CostModel, k: Kernel) -> bool:
    """Whether the kernel's FLOPs or bytes lie beyond ×_OOD_SPAN of the range `m` was fitted on."""
    lo_f, hi_f = m.flops_range
    lo_b, hi_b = m.bytes_range
    return (k.flops > hi_f * _OOD_SPAN or (lo_f > 0 and k.flops < lo_f / _OOD_SPAN)
            or k.bytes > hi_b * _OOD_SPAN or (lo_b > 0 and k.bytes < lo_b / _OOD_SPAN))
