"""Model inputs: what feeds each input (seeded values, a constant, a data file), its concrete shape, the batch.

Owns: the input plan of a run (plan_inputs: shapes from the model, --batch, --input, --input-data, --input-value,
--input-range, with every problem found before anything is pushed), reading input data files (.npz, or a
directory of .npy named by input), the I/O summary text, and the host copy of the input generator. The agent
(`edgeprof_agent.inputs`, standard library + numpy) has its own copy of the same algorithm, so host and device
build identical arrays from (specs, shapes, seed, constants, data):

    rs = numpy.random.RandomState(seed)
    for spec in specs (declaration order), skipping inputs fed by a constant or a data file:
        float dtypes: rs.uniform(low, high, size=shape).astype(dtype)
        int dtypes:   rs.randint(int(low), int(high), size=shape).astype(dtype)
        bool:         rs.randint(0, 2, size=shape).astype(bool)

Changing this algorithm changes every stored fidelity check: change both copies and say so in the commit.

Shapes: a fixed dim is the model's; dim 0 is the batch when it is unnamed or named like a batch (batch, N,
batch_size, None, unk__…, DynamicDimension.0, s6: batch.py); every other symbol must be given (by --input or a
data array), once for all inputs that share it. --batch N is the batch dim of every batched input: dim 0, or,
where no dim 0 is the batch, the first later dim named like one (a sequence-first GRU's x[5, batch, 8]: dim 1;
batch.batch_dim); a contradiction with
--input, a data array or a static model is an error. Without --batch (or with --batch 1) the batch that --input or the data feeds is the batch:
the plan's `batch` is always what was fed, and the measurement stores and counts that. A static batch (dim 0 fixed
at the same N > 1 on every input of rank 2+, `static_batch`) is the batch: fed, labelled and counted as N; --batch
other than N is refused.
Does not own: the model's declared inputs (export/), pushing the data file (agentlink), the stored record
(records.IOSummary).
"""

from __future__ import annotations

import hashlib
import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ConfigError, ModelError
from ..files import datafiles
from ..records import IOTensor, TensorSpec
from .artifact_cache import sha256_file
from .batch import batch_dim, batch_name, declared_batch_dim, is_batch_dim, static_batch

__all__ = ["InputData", "InputPlan", "PlannedInput", "batch_label", "io_summary_lines", "is_batch_dim", "load_input_data",
           "make_inputs", "parse_input_range", "parse_input_value", "plan_inputs", "static_batch"]

def make_inputs(specs: Sequence[TensorSpec], shapes: Mapping[str, tuple[int, ...]],
                seed: int, fixed: Mapping[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """One array per spec, in declaration order, from `numpy.random.RandomState(seed)`; an input in `fixed`
    (a constant or a data file's array) is taken from there and draws nothing from the generator."""
    rs = np.random.RandomState(seed)
    out: dict[str, np.ndarray] = {}
    for spec in specs:
        if fixed is not None and spec.name in fixed:
            out[spec.name] = fixed[spec.name]
            continue
        if spec.name not in shapes:
            raise ModelError(f"no concrete shape for input {spec.name!r} {spec.shape_str()}",
                             hint=f"give it with --input {spec.name}=" + "x".join(
                                 map(str, spec.example_dims(1, dim0_is_batch=is_batch_dim(spec, 0))))
                             + " (sizes of free dims are examples: use your model's)")
        shape = tuple(int(d) for d in shapes[spec.name])
        dtype = np.dtype(spec.dtype)
        if dtype == np.bool_:
            out[spec.name] = rs.randint(0, 2, size=shape).astype(bool)
        elif np.issubdtype(dtype, np.integer):
            if int(spec.high) <= int(spec.low):
                raise ModelError(f"input {spec.name!r}: empty integer range [{spec.low}, {spec.high})",
                                 hint="declare high > low for integer inputs")
            out[spec.name] = rs.randint(int(spec.low), int(spec.high), size=shape).astype(dtype)
        elif np.issubdtype(dtype, np.floating):
            out[spec.name] = rs.uniform(spec.low, spec.high, size=shape).astype(dtype)
        else:
            raise ModelError(f"input {spec.name!r} has dtype {spec.dtype}, which edgeprof cannot generate",
                             hint="use a float, integer or bool input")
    return out


# -- user input flags ------------------------------------------------------------------------------------------

_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_VALUE = re.compile(r"^([^=]+)=(.+)$")
_RANGE = re.compile(rf"^([^=]+)=({_NUMBER}):({_NUMBER})$")


def parse_input_value(text: str, flag: str = "--input-value") -> tuple[str, float | int | bool]:
    """`NAME=V` → (name, number); V is an int when written as one, true/false for bools."""
    m = _VALUE.match(text.strip())
    if not m:
        raise ConfigError(f"{flag} {text!r}: expected NAME=VALUE such as sr=16000")
    return m.group(1).strip(), _number(m.group(2).strip(), f"{flag} {text!r}")


def _number(v: Any, where: str) -> float | int | bool:
    if isinstance(v, bool):
        return v
    if isinstance(v, int | float):
        if isinstance(v, float) and not math.isfinite(v):
            raise ConfigError(f"{where}: the value must be a finite number")
        return v
    s = str(v).strip()
    if s.lower() in ("true", "false"):
        return s.lower() == "true"
    if re.fullmatch(r"[-+]?\d+", s):
        return int(s)
    if re.fullmatch(_NUMBER, s):
        return float(s)
    raise ConfigError(f"{where}: {s!r} is not a number (e.g. 16000, 0.5, true)")


def parse_input_range(text: str, flag: str = "--input-range") -> tuple[str, tuple[float, float]]:
    """`NAME=LOW:HIGH` → (name, (low, high)); checked against the model in plan_inputs."""
    m = _RANGE.match(text.strip())
    if not m:
        raise ConfigError(f"{flag} {text!r}: expected NAME=LOW:HIGH such as input_ids=0:30522")
    low, high = float(m.group(2)), float(m.group(3))
    if not (math.isfinite(low) and math.isfinite(high)) or not low < high:
        raise ConfigError(f"{flag} {text!r}: LOW must be below HIGH (values are drawn from [LOW, HIGH))")
    return m.group(1).strip(), (low, high)


# -- input data files ------------------------------------------------------------------------------------------


def read_npz(path: Path, where: str | None = None) -> dict[str, np.ndarray]:
    """Every array of an .npz archive, read by the one data-file reader (edgeprof.files.datafiles: regular files only,
    no pickles, sizes and dtypes checked before allocating); every problem is one DataFileError (a ConfigError)
    naming the file and the array."""
    return datafiles.read_npz(path, where)


def cached_npz(cache: Path, prefix: str, digest: str, arrays: Mapping[str, np.ndarray]) -> Path:
    """`arrays` written once as `<cache>/<prefix>-<digest>.npz` (atomically: a temp file renamed into place), for
    the agent to load; an existing file of that name is the same content and is reused."""
    cache.mkdir(parents=True, exist_ok=True)
    out = cache / f"{prefix}-{digest}.npz"
    if not out.exists():
        tmp = cache / f".{prefix}-{digest}.{os.getpid()}.npz"
        np.savez(tmp, **arrays)  # type: ignore[arg-type]
        os.replace(tmp, out)
    return out


@dataclass(frozen=True)
class InputData:
    """Arrays by input name from `--input-data` (an .npz file, or a directory of NAME.npy), with provenance:
    `files[name]` = (the file it came from, that file's sha256). `push_path`/`push_sha256`: the .npz the agent
    loads (the file itself, or the directory's arrays packed into one .npz in the cache)."""

    given: str
    arrays: dict[str, np.ndarray]
    files: dict[str, tuple[str, str]]
    push_path: str
    push_sha256: str


def load_input_data(given: str, cache_dir: Path | None = None) -> InputData:
    """Read `--input-data` (an .npz, or a directory of .npy files named by input), like trtexec --loadInputs and
    onnxruntime_perf_test's test-data directory. Everything is read here, on the host, before any push."""
    path = Path(given).expanduser()
    flag = f"--input-data {given}"
    if not path.exists():
        raise ConfigError(f"{flag}: no such file or directory",
                          hint="give an .npz file (arrays by input name) or a directory of NAME.npy files")
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix == ".npy")
        if not files:
            raise ConfigError(f"{flag}: no .npy files in this directory",
                              hint="name each file after the input it feeds: input_ids.npy, sr.npy, ...")
        arrays = datafiles.read_npy_dir(path, flag)
        prov = {p.stem: (str(p.resolve()), sha256_file(p)) for p in files}
        digest = hashlib.sha256("\n".join(f"{k}={v[1]}" for k, v in sorted(prov.items())).encode()).hexdigest()
        packed = cached_npz(cache_dir or _default_cache(), "inputs", digest[:32], arrays)
        return InputData(given, arrays, prov, str(packed), sha256_file(packed))
    try:
        arrays = read_npz(path, flag)
    except datafiles.NotAnArchive as e:
        if path.suffix == ".npy":
            raise ConfigError(f"{flag}: a single .npy file does not say which input it feeds",
                              hint="put it in a directory as NAME.npy, or save an .npz with numpy.savez(NAME=...)") \
                from None
        raise ConfigError(f"{e.message} (not a readable .npz archive)",
                          hint="save arrays by input name with numpy.savez(path, NAME=array, ...)") from None
    if not arrays:
        raise ConfigError(f"{flag}: the archive holds no arrays")
    sha = sha256_file(path)
    full = str(path.resolve())
    return InputData(given, arrays, {k: (full, sha) for k in arrays}, full, sha)


def _default_cache() -> Path:
    from .artifact_cache import default_cache_dir

    return default_cache_dir() / "inputs"


# -- the plan --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlannedInput:
    """One model input as it will be fed: the spec (its range after --input-range), the concrete shape and the
    feed: "generated" (seeded, spec.low..spec.high), "value" (every element = value) or "data" (from a file)."""

    spec: TensorSpec
    shape: tuple[int, ...]
    feed: str
    value: float | int | bool | None = None
    file: str | None = None
    sha256: str | None = None


@dataclass(frozen=True)
class InputPlan:
    """Every input of a run: shapes, feeds, the batch actually fed, the seed and the data file (if any)."""

    inputs: tuple[PlannedInput, ...]
    batch: int
    seed: int
    data: InputData | None = None
    batched: tuple[str, ...] = field(default_factory=tuple)  # inputs whose dim 0 is the batch

    @property
    def shapes(self) -> dict[str, tuple[int, ...]]:
        return {p.spec.name: p.shape for p in self.inputs}

    @property
    def specs(self) -> tuple[TensorSpec, ...]:
        return tuple(p.spec for p in self.inputs)

    def fixed(self) -> dict[str, np.ndarray]:
        """The arrays not drawn from the generator: constants and data."""
        out: dict[str, np.ndarray] = {}
        for p in self.inputs:
            if p.feed == "value":
                out[p.spec.name] = np.full(p.shape, p.value, dtype=np.dtype(p.spec.dtype))
            elif p.feed == "data":
                assert self.data is not None
                out[p.spec.name] = self.data.arrays[p.spec.name]
        return out

    def arrays(self) -> dict[str, np.ndarray]:
        """The arrays the device feeds (the host computes references on the same)."""
        return make_inputs(self.specs, self.shapes, self.seed, self.fixed())

    def request_inputs(self) -> list[dict[str, Any]]:
        """The agent's InputSpec fields, one per input in declaration order."""
        out = []
        for p in self.inputs:
            d: dict[str, Any] = {"name": p.spec.name, "shape": list(p.shape), "dtype": p.spec.dtype,
                                 "low": p.spec.low, "high": p.spec.high}
            if p.feed == "value":
                d["value"] = p.value
            elif p.feed == "data":
                d["data"] = p.spec.name
            out.append(d)
        return out

    def io_inputs(self) -> list[IOTensor]:
        """What fed each input, for the Result's io section."""
        rows = []
        for p in self.inputs:
            row = IOTensor(name=p.spec.name, shape=list(p.shape), dtype=p.spec.dtype, declared=p.spec.shape_str(),
                           source=p.feed)
            if p.feed == "generated":
                row = replace(row, seed=self.seed, low=p.spec.low, high=p.spec.high)
            elif p.feed == "value":
                row = replace(row, value=p.value)
            else:
                row = replace(row, file=p.file, sha256=p.sha256)
            rows.append(row)
        return rows


def _dims(shape: Sequence[int]) -> str:
    return "x".join(str(d) for d in shape) if shape else "(scalar)"


def plan_inputs(specs: Sequence[TensorSpec], *, batch: int, seed: int,
                shapes: Mapping[str, tuple[int, ...]] | None = None, data: InputData | None = None,
                values: Mapping[str, Any] | None = None,
                ranges: Mapping[str, tuple[float, float]] | None = None, batch_given: bool = False) -> InputPlan:
    """The input plan, or one ModelError/ConfigError naming every problem of one kind at once. `batch_given`:
    --batch was on the command line (then --batch 1 on a static batch N > 1 is refused as any other N is)."""
    shapes = dict(shapes or {})
    values = dict(values or {})
    ranges = dict(ranges or {})
    by_name = {s.name: s for s in specs}
    _check_feeds(specs, by_name, shapes, values, ranges, data)
    given = _given_shapes(by_name, shapes, data)
    dims = {s.name: d for s in specs if (d := batch_dim(s)) is not None}  # each batched input's batch dim
    batched = tuple(dims)
    static = None if batched else static_batch(specs)
    if static is not None:  # dim 0 fixed at N > 1 on every input of rank 2+: N is the batch, fed and counted
        if batch != static[0] and (batch != 1 or batch_given):
            _refuse_static_batch(specs, batch)
        batch, batched = static
        dims = dict.fromkeys(batched, 0)
    batch = _fed_batch(dims, given, batch)
    symbols = _symbols(specs, dims, given, batch)
    if batch > 1 and not batched:
        _refuse_static_batch(specs, batch)
    data_arrays = data.arrays if data else {}
    missing: list[str] = []
    suggest: list[str] = []
    suggested: set[str] = set()
    planned = []
    for s in specs:
        if s.name in given:
            shape = given[s.name][0]
        else:
            found, holes, example = _shape_from_model(s, batch, symbols, dims.get(s.name))
            if found is not None:
                shape = found
            else:
                missing.append(f"{s.name}{s.shape_str()} {', '.join(holes)}")
                named = {d for i, d in enumerate(s.shape) if isinstance(d, str) and f"dim {i} ({d})" in holes}
                if len(named) < len(holes) or not named <= suggested:  # a shared symbol is given once
                    suggest.append(f"--input {s.name}={'x'.join(example)}")
                    suggested |= named
                continue
        planned.append(_planned(s, shape, values, ranges, data_arrays, data))
    if missing:
        noun = "a dynamic dimension" if len(missing) == 1 and missing[0].count(" dim ") == 1 else \
            "dynamic dimensions"
        raise ModelError(f"the model's inputs have {noun} edgeprof cannot choose: " + "; ".join(missing),
                         hint="give them with " + " ".join(suggest)
                              + " (the free dims' sizes are examples: use your model's; only the batch dim "
                                "follows --batch: an unnamed or batch-named dim 0, else a dim named like a batch; "
                                "inputs sharing a symbol share its size)")
    return InputPlan(tuple(planned), batch, seed, data, batched)


def _check_feeds(specs: Sequence[TensorSpec], by_name: Mapping[str, TensorSpec], shapes: Mapping[str, Any],
                 values: Mapping[str, Any], ranges: Mapping[str, Any], data: InputData | None) -> None:
    """Every flag names an input of the model, and each input is fed one way."""
    listing = ", ".join(f"{s.name}{s.shape_str()} {s.dtype}" for s in specs)
    for flag, names in (("--input", shapes), ("--input-value", values), ("--input-range", ranges),
                        (f"--input-data {data.given}" if data else "", data.arrays if data else {})):
        unknown = [n for n in names if n not in by_name]
        if unknown:
            what = f"{flag} {unknown[0]}" if not flag.startswith("--input-data") else f"{flag}: array {unknown[0]!r}"
            raise ModelError(f"{what}: the model has no input named {unknown[0]!r}", hint=f"its inputs are {listing}")
    data_arrays = data.arrays if data else {}
    for name in values:
        if name in data_arrays:
            raise ConfigError(f"--input-value {name}: input {name!r} is also in --input-data {data.given}"
                              if data else "", hint="feed each input one way")
    for name in ranges:
        if name in values or name in data_arrays:
            raise ConfigError(f"--input-range {name}: input {name!r} is fed by "
                              f"{'--input-value' if name in values else '--input-data'}, not generated",
                              hint="a range applies to generated inputs only")


def _given_shapes(by_name: Mapping[str, TensorSpec], shapes: Mapping[str, tuple[int, ...]],
                  data: InputData | None) -> dict[str, tuple[tuple[int, ...], str]]:
    """The shape each input is given (by --input or by its data array) and who gave it, checked against the
    data's dtype and each other."""
    given: dict[str, tuple[tuple[int, ...], str]] = {n: (tuple(s), f"--input {n}={_dims(s)}")
                                                     for n, s in shapes.items()}
    for name, arr in (data.arrays if data else {}).items():
        spec = by_name[name]
        where = f"--input-data {data.given if data else ''}: array {name!r}"
        if arr.dtype != np.dtype(spec.dtype):
            raise ModelError(f"{where} is {arr.dtype}, the model's input is {spec.dtype}",
                             hint=f"save it as {spec.dtype} (array.astype('{spec.dtype}'))")
        if name in given and given[name][0] != tuple(arr.shape):
            raise ModelError(f"{where} has shape {_dims(arr.shape)} but {given[name][1]}",
                             hint="leave out --input for inputs fed by data, or make them agree")
        given[name] = (tuple(int(d) for d in arr.shape), f"{where} has shape {_dims(arr.shape)}")
    return given


def _fed_batch(dims: Mapping[str, int], given: Mapping[str, tuple[tuple[int, ...], str]], batch: int) -> int:
    """--batch left at 1: a batch that --input or the data feed is the batch (what was fed counts). `dims`: each
    batched input's batch dim."""
    if batch != 1:
        return batch
    fed = {given[n][0][i]: given[n][1] for n, i in dims.items() if n in given and len(given[n][0]) > i}
    if len(fed) > 1:
        raise ModelError("the batched inputs are given different batches: " + "; ".join(fed.values()),
                         hint="the batch dim of every batched input is the batch: make them agree (--batch N)")
    return next(iter(fed)) if fed else batch


def _symbols(specs: Sequence[TensorSpec], dims: Mapping[str, int],
             given: Mapping[str, tuple[tuple[int, ...], str]], batch: int) -> dict[str, tuple[int, str]]:
    """Each dimension symbol's size and who set it; every given shape checked against the model's rank, fixed
    dimensions, the batch (at each batched input's batch dim, `dims`) and the sizes other inputs give the same
    symbol."""
    symbols: dict[str, tuple[int, str]] = {}
    by_name = {s.name: s for s in specs}
    for s in specs:
        at = dims.get(s.name)
        if at is not None and isinstance(s.shape[at], str):
            symbols.setdefault(str(s.shape[at]), (batch, f"--batch {batch}"))
    for name, (shape, why) in given.items():
        spec = by_name[name]
        at = dims.get(name)
        if len(shape) != len(spec.shape):
            raise ModelError(f"{why}: the model's input has rank {len(spec.shape)} {spec.shape_str()}",
                             hint="give one size per dimension")
        for i, (want, got) in enumerate(zip(spec.shape, shape, strict=True)):
            if isinstance(want, int) and want >= 0 and want != got:
                raise ModelError(f"{why}: dimension {i} is fixed at {want} in the model, not {got}")
            if i == at and not (isinstance(want, int) and want >= 0) and got != batch:
                raise ModelError(f"{why}: dimension {i} is the batch ({got}) but --batch is {batch}",
                                 hint=f"give --batch {got}, or dimension {i} = {batch}")
            if isinstance(want, str) and i != at:
                if want in symbols and symbols[want][0] != got:
                    raise ModelError(f"{why}: dimension {i} ({want}) is {got}, but {symbols[want][1]} sets "
                                     f"{want} = {symbols[want][0]}",
                                     hint=f"inputs that share the symbol {want!r} share its size")
                symbols.setdefault(want, (got, why))
    return symbols


def _refuse_static_batch(specs: Sequence[TensorSpec], batch: int) -> None:
    """--batch N > 1 on a model without a batch dimension (none at dim 0, none named like one elsewhere):
    refused unless every dim 0 is fixed at N."""
    fixed0 = [s for s in specs if s.shape and isinstance(s.shape[0], int) and s.shape[0] >= 0]
    wrong = [s for s in fixed0 if s.shape[0] != batch]
    if wrong or not fixed0:
        first = wrong[0] if wrong else None
        detail = f"input {first.name!r} {first.shape_str()} has dimension 0 fixed at {first.shape[0]}" \
            if first is not None else "no input has a batch dimension"
        static = static_batch(specs)
        keep = f"leave out --batch (the run feeds and counts its static batch {static[0]})" if static \
            else "run it with --batch 1"
        raise ModelError(f"--batch {batch}: the model is static ({detail}); it cannot be fed batch {batch}",
                         hint=f"{keep}, or export the model with a dynamic batch dimension")


def _shape_from_model(s: TensorSpec, batch: int, symbols: Mapping[str, tuple[int, str]], at: int | None = None
                      ) -> tuple[tuple[int, ...] | None, list[str], list[str]]:
    """(the concrete shape of an input nobody gave one — the model's fixed dims, the batch at its batch dim `at`,
    the symbols' sizes — or None when some dims cannot be chosen, those dims, an example --input)."""
    dims: list[int] = []
    holes: list[str] = []
    for i, d in enumerate(s.shape):
        if isinstance(d, int) and d >= 0:
            dims.append(d)
        elif i == at:
            dims.append(batch)
        elif isinstance(d, str) and d in symbols:
            dims.append(symbols[d][0])
        else:
            holes.append(f"dim {i} ({d})" if isinstance(d, str) else f"dim {i} (?)")
    known = {d: batch for d in s.shape[1:] if isinstance(d, str) and batch_name(d, generated=False)}
    known.update((k, v[0]) for k, v in symbols.items())
    example = s.example_dims(batch, known, dim0_is_batch=is_batch_dim(s, 0))
    return (None if holes else tuple(dims)), holes, [str(d) for d in example]


def _planned(s: TensorSpec, shape: Sequence[int], values: Mapping[str, Any],
             ranges: Mapping[str, tuple[float, float]], data_arrays: Mapping[str, np.ndarray],
             data: InputData | None) -> PlannedInput:
    """One input's feed: a constant, its data array, or generated (in its --input-range)."""
    spec = s
    feed = "generated"
    value = None
    file = sha = None
    if s.name in values:
        feed = "value"
        value = _typed_value(s, values[s.name])
    elif s.name in data_arrays:
        feed = "data"
        assert data is not None
        file, sha = data.files[s.name]
    elif s.name in ranges:
        spec = replace(s, low=ranges[s.name][0], high=ranges[s.name][1])
        _check_range(spec)
    _check_bytes(s, shape)
    return PlannedInput(spec, tuple(int(d) for d in shape), feed, value, file, sha)


def _typed_value(spec: TensorSpec, v: Any) -> float | int | bool:
    where = f"--input-value {spec.name}={v}"
    dtype = np.dtype(spec.dtype)
    v = _number(v, where)
    if dtype == np.bool_:
        if isinstance(v, bool) or v in (0, 1):
            return bool(v)
        raise ModelError(f"{where}: input {spec.name!r} is bool; give true or false")
    if np.issubdtype(dtype, np.integer):
        if isinstance(v, bool) or (isinstance(v, float) and not v.is_integer()):
            raise ModelError(f"{where}: input {spec.name!r} is {spec.dtype}; give an integer")
        info = np.iinfo(dtype)
        if not info.min <= int(v) <= info.max:
            raise ModelError(f"{where}: out of range for {spec.dtype} ({info.min}..{info.max})")
        return int(v)
    if isinstance(v, bool):
        raise ModelError(f"{where}: input {spec.name!r} is {spec.dtype}; give a number")
    top = _float_max(dtype)
    try:
        f = float(v)
    except OverflowError:
        f = math.inf
    if top is not None and not abs(f) <= top:
        raise ModelError(f"{where}: beyond {spec.dtype}'s range (±{top:.4g}); it would be fed as inf",
                         hint=f"give a value a {spec.dtype} can hold")
    return f


def _float_max(dtype: np.dtype) -> float | None:
    return float(np.finfo(dtype).max) if np.issubdtype(dtype, np.floating) else None


def _check_bytes(spec: TensorSpec, shape: Sequence[int]) -> None:
    """An input whose concrete shape would need more than datafiles.MAX_ARRAY_BYTES is refused before any array
    is allocated (`--input x=99999999999x4`)."""
    try:
        itemsize = np.dtype(spec.dtype).itemsize or 1
    except TypeError:
        itemsize = 8
    nbytes = math.prod(int(d) for d in shape) * itemsize
    if nbytes > datafiles.MAX_ARRAY_BYTES:
        raise ModelError(f"input {spec.name!r} of shape {_dims(shape)} {spec.dtype} would take {nbytes / 2**30:.3g} "
                         f"GiB; at most {datafiles.MAX_ARRAY_BYTES / 2**30:g} GiB per input",
                         hint="give a smaller --input shape or --batch")


def _check_range(spec: TensorSpec) -> None:
    where = f"--input-range {spec.name}={spec.low:g}:{spec.high:g}"
    dtype = np.dtype(spec.dtype)
    if dtype == np.bool_:
        raise ModelError(f"{where}: input {spec.name!r} is bool (always 0..1)",
                         hint="use --input-value for a constant")
    if np.issubdtype(dtype, np.integer):
        if not (float(spec.low).is_integer() and float(spec.high).is_integer()):
            raise ModelError(f"{where}: input {spec.name!r} is {spec.dtype}; give integer bounds")
        info = np.iinfo(dtype)
        if spec.low < info.min or spec.high - 1 > info.max:
            raise ModelError(f"{where}: out of range for {spec.dtype} ({info.min}..{info.max})")
        return
    top = _float_max(dtype)
    if top is not None and not (abs(spec.low) <= top and abs(spec.high) <= top
                                and math.isfinite(float(spec.high) - float(spec.low))):
        raise ModelError(f"{where}: beyond what {spec.dtype} values can span (each bound within ±{top:.4g}, and "
                         "HIGH − LOW finite)", hint="give a narrower range")


# -- the summary people read -------------------------------------------------------------------------------------


def feed_text(t: IOTensor) -> str:
    """Where one input's values came from, in a few words."""
    if t.source == "value":
        return f"value {t.value}"
    if t.source == "data":
        return f"data {t.file} (sha256 {str(t.sha256)[:12]})"
    if t.source == "generated":
        if t.dtype == "bool":
            return f"generated random bool seed {t.seed}"
        integer = t.dtype.startswith(("int", "uint"))
        text = f"generated {'randint' if integer else 'uniform'}[{t.low:g}, {t.high:g}) seed {t.seed}"
        if integer and t.low is not None and t.high is not None and t.high - t.low == 1:
            text += f" (every value {t.low:g})"  # an index input's only safe default: say so, it may not fit
        return text
    return "-"


def io_summary_lines(inputs: Sequence[IOTensor], outputs: Sequence[IOTensor] = ()) -> list[str]:
    """The I/O summary: one line per input (name, shape fed, dtype, declared shape, source), then outputs."""
    lines = []
    for t in inputs:
        declared = f" (model {t.declared})" if t.declared and t.declared != "[" + ", ".join(map(str, t.shape)) + "]" \
            else ""
        lines.append(f"in  {t.name}: {t.dtype}[{', '.join(map(str, t.shape))}]{declared} ← {feed_text(t)}")
    for t in outputs:
        lines.append(f"out {t.name}: {t.dtype}[{', '.join(map(str, t.shape))}]")
    return lines


def batch_label(batch: int, batched: Sequence[str], inputs: Sequence[IOTensor]) -> str:
    """"batch 4: dim 1 of x" (inputs with their batch at one dim together, read from the declared shapes);
    "" when no input is batched."""
    if not batched:
        return ""
    declared = {t.name: t.declared for t in inputs}
    by_dim: dict[int, list[str]] = {}
    for name in batched:
        by_dim.setdefault(declared_batch_dim(declared.get(name)), []).append(name)
    return f"batch {batch}: " + "; ".join(f"dim {d} of {', '.join(names)}" for d, names in sorted(by_dim.items()))
