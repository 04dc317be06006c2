"""Accuracy mode: the model's answers on a labelled data set, next to its latency (docs/accuracy.md).

Owns: reading and checking an accuracy file against the run's input plan before anything is pushed (which
arrays feed which inputs, how many samples an inference takes, labels or expected outputs: every problem one
line naming the file and the array), the data file the agent reads (inputs cast to the dtypes fed, in the cache),
the agent's AccuracySpec, and the scores from the agent's raw per-sample reply (top-1 / top-5 against the labels,
which never leave the host; MAE, RMSE, max error and cosine similarity against expected outputs).
Does not own: running the samples (the agent's accuracy.py, after the timed loop, on the measured artifact),
storing (records.Accuracy), showing (cli/ui.py, report/).

The file (an .npz, as numpy.savez writes it):
  NAME              one array per model input that varies by sample: N samples along axis 0, each sample the
                    input's shape without its batch dim (fed `--batch` at a time), or the whole input's shape
                    (one sample an inference). Inputs not in the file keep the run's feed (--input-value,
                    --input-data); a generated (random) input must be in the file.
  labels            N integer class indices, scored on the first output (top-1, top-5) ...
  labels:OUTPUT     ... or on the output named OUTPUT
  expected          N expected values of the first output (per-sample errors) ...
  expected:OUTPUT   ... or of the output named OUTPUT (several allowed)
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from edgeprof_agent.messages import AccuracyReply, AccuracySpec, ArtifactRef

from ..errors import ConfigError
from ..export.artifact_cache import sha256_file
from ..export.inputs import InputPlan, cached_npz, read_npz
from ..files import datafiles
from ..files.config import did_you_mean
from ..records import Accuracy, OutputError

TOPK = 5
MAX_SAMPLES = 100_000  # ImageNet's validation set is 50 000; the reply carries 5 class indices a sample


@dataclass(frozen=True)
class AccuracyData:
    """A checked accuracy file: what the agent feeds (push_path, its sha256) and what the host keeps (labels)."""

    given: str
    sha256: str
    samples: int
    inputs: tuple[str, ...]
    per_inference: int
    stacked: bool
    labels: np.ndarray | None
    label_output: tuple[int, str] | None
    expected: tuple[tuple[int, str], ...]
    push_path: str
    push_sha256: str


def _dims(shape: Sequence[int]) -> str:
    return "x".join(str(d) for d in shape) if len(shape) else "(scalar)"


def _output_index(key: str, target: str | None, outputs: Sequence[str], flag: str) -> tuple[int, str]:
    if not outputs:
        raise ConfigError(f"{flag}: array {key!r}: the model declares no outputs to score")
    if target is None:
        return 0, outputs[0]
    if target not in outputs:
        raise ConfigError(f"{flag}: array {key!r}: the model has no output named {target!r}"
                          f"{did_you_mean(target, outputs)}", hint=f"its outputs are {', '.join(outputs)}")
    return list(outputs).index(target), target


# an expected output larger than this cannot be scored: its squared error overflows float64
MAX_EXPECTED_ABS = 1e150


def _cast(arr: np.ndarray, dtype: str, where: str) -> np.ndarray:
    """`arr` as `dtype` when no value changes (datafiles.cast_exact: no wrap-around, no overflow to inf), else one
    line."""
    return datafiles.cast_exact(arr, dtype, where)


def require_file(given: str) -> Path:
    """The accuracy file's path, or one line saying it is missing, a directory or not a regular file (a FIFO,
    a device: checked before connecting, never opened)."""
    path = Path(given).expanduser()
    if not path.is_file():
        if path.is_dir():
            what = "a directory, not a file"
        elif path.exists():
            with datafiles.open_regular(path, f"--accuracy {given}"):  # raises: not a regular file (…)
                pass
            what = "not a regular file"
        else:
            what = "no such file"
        raise ConfigError(f"--accuracy {given}: {what}", hint="give an .npz with arrays by input name and `labels` "
                          "or `expected` (docs/accuracy.md)")
    return path


def load_accuracy(given: str, plan: InputPlan, outputs: Sequence[str],
                  cache_dir: Path | None = None) -> AccuracyData:
    """Read and check `--accuracy FILE` against the run's input plan and the model's outputs; write the data file
    the agent reads. Every problem is a ConfigError naming the file and the array, raised before any push."""
    flag = f"--accuracy {given}"
    path = require_file(given)
    try:
        arrays = read_npz(path)
    except ValueError as e:
        raise ConfigError(f"{flag}: not a readable .npz archive ({e})",
                          hint="save it with numpy.savez(path, NAME=inputs, labels=labels)") from None
    by_name = {p.spec.name: p for p in plan.inputs}
    listing = ", ".join(f"{n} ({_dims(p.shape)} {p.spec.dtype})" for n, p in by_name.items())
    labels_key, expected_keys, input_keys = _sort_arrays(list(arrays), by_name, flag, listing)

    # how many samples, and how they are fed: dim 0 rows `batch` at a time, or one whole input an inference
    n: int | None = None
    modes: dict[str, bool] = {}
    for key in input_keys:
        arr, p = arrays[key], by_name[key]
        where = f"{flag}: array {key!r}"
        if arr.ndim < 1 or arr.shape[0] < 1:
            raise ConfigError(f"{where} holds no samples (axis 0 is the sample)")
        if n is None:
            n = int(arr.shape[0])
        elif arr.shape[0] != n:
            raise ConfigError(f"{where} has {arr.shape[0]} samples, {input_keys[0]!r} has {n}",
                              hint="every array holds the same samples along axis 0")
        shape, rest = tuple(p.shape), tuple(arr.shape[1:])
        if len(shape) >= 1 and rest == shape[1:] and shape[0] == plan.batch:
            modes[key] = True
        elif rest == shape:
            modes[key] = False
        else:
            each = _dims(shape[1:]) if len(shape) >= 1 else "(scalar)"
            raise ConfigError(f"{where} is {_dims(arr.shape)}: input {key!r} is fed as {_dims(shape)}, so a "
                              f"sample is {each} (the array N x {each})",
                              hint="give --batch / --input for the shape the samples have")
    assert n is not None
    if n > MAX_SAMPLES:
        raise ConfigError(f"{flag}: {n} samples; at most {MAX_SAMPLES} are scored in one run",
                          hint="score a subset")
    stacked = all(modes.values())
    if not stacked and plan.batch != 1:
        whole = [k for k, m in modes.items() if not m]
        raise ConfigError(f"{flag}: array {whole[0]!r} holds whole inputs (one sample an inference) but the run "
                          f"feeds a batch of {plan.batch}", hint="run the accuracy pass with --batch 1")
    random = [name for name, p in by_name.items() if name not in input_keys and p.feed == "generated"]
    if random:
        raise ConfigError(f"{flag}: no array for input {random[0]!r}, which the run would fill with random values",
                          hint=f"add {random[0]}=<N samples> to the file, or fix it with --input-value / "
                               "--input-data")
    labels, label_output = None, None
    if labels_key is not None:
        labels, label_output = _labels(arrays[labels_key], labels_key, n, outputs, flag)
    expected: list[tuple[int, str]] = []
    normal: dict[str, np.ndarray] = {}
    for key in expected_keys:
        arr = arrays[key]
        where = f"{flag}: array {key!r}"
        idx, name = _output_index(key, key.partition(":")[2] or None, outputs, flag)
        if any(i == idx for i, _ in expected):
            raise ConfigError(f"{where}: output {name!r} is expected twice")
        if arr.ndim < 1 or arr.shape[0] != n:
            raise ConfigError(f"{where} has {arr.shape[0] if arr.ndim else 'no'} samples for {n}",
                              hint="expected outputs hold the same samples along axis 0")
        if arr.dtype.kind not in "fiub":
            raise ConfigError(f"{where} is {arr.dtype}: expected outputs are numbers")
        datafiles.require_finite(arr, where, "expected outputs", max_abs=MAX_EXPECTED_ABS)
        expected.append((idx, name))
        normal[f"expected:{idx}"] = arr if arr.dtype.kind == "f" else arr.astype(np.float64)
    for key in input_keys:
        arr = _cast(arrays[key], by_name[key].spec.dtype, f"{flag}: array {key!r}")
        if not stacked and modes[key]:  # one sample an inference: a row of a batch-1 input is its whole input
            arr = arr.reshape((n,) + tuple(by_name[key].shape))
        normal[f"in:{key}"] = np.ascontiguousarray(arr)

    sha = sha256_file(path)
    layout = ";".join(f"{k}={v.dtype}{list(v.shape)}" for k, v in sorted(normal.items()))
    digest = hashlib.sha256(f"{sha}\n{layout}".encode()).hexdigest()[:32]
    push = cached_npz(cache_dir or _default_cache(), "accuracy", digest, normal)
    return AccuracyData(given=given, sha256=sha, samples=n, inputs=tuple(input_keys),
                        per_inference=plan.batch if stacked else 1, stacked=stacked, labels=labels,
                        label_output=label_output, expected=tuple(expected), push_path=str(push),
                        push_sha256=sha256_file(push))


def _sort_arrays(keys: list[str], by_name: Mapping[str, Any], flag: str,
                 listing: str) -> tuple[str | None, list[str], list[str]]:
    """The file's arrays by role: (the labels array, the expected arrays, the input arrays)."""
    labels_key: str | None = None
    expected_keys: list[str] = []
    input_keys: list[str] = []
    for key in keys:
        head, _, target = key.partition(":")
        if head == "labels" and (target or key == "labels"):
            if labels_key is not None:
                raise ConfigError(f"{flag}: two label arrays ({labels_key!r}, {key!r})",
                                  hint="score one output against labels; give others as expected:OUTPUT")
            labels_key = key
        elif head == "expected" and (target or key == "expected"):
            expected_keys.append(key)
        elif key in by_name:
            input_keys.append(key)
        else:
            raise ConfigError(f"{flag}: array {key!r} is not an input of the model, `labels` or `expected`"
                              f"{did_you_mean(key, list(by_name) + ['labels', 'expected'])}",
                              hint=f"the model's inputs: {listing}")
    if labels_key is None and not expected_keys:
        raise ConfigError(f"{flag}: no `labels` and no `expected` array: nothing to score",
                          hint="add labels=<N class indices> (top-1/top-5) or expected=<N outputs> (errors)")
    if not input_keys:
        raise ConfigError(f"{flag}: no array for any model input", hint=f"name arrays by input: {listing}")
    return labels_key, expected_keys, input_keys


def _labels(lab: np.ndarray, labels_key: str, n: int, outputs: Sequence[str],
            flag: str) -> tuple[np.ndarray, tuple[int, str]]:
    """The labels as N int64 class indices, and the output they score."""
    where = f"{flag}: array {labels_key!r}"
    if lab.ndim == 2 and lab.shape[1] == 1:
        lab = lab[:, 0]
    if lab.ndim != 1 or lab.dtype.kind not in "iu":
        raise ConfigError(f"{where} is {lab.dtype}, shape {_dims(lab.shape)}: labels are N integer class indices",
                          hint="save labels as an int array of shape (N,)")
    if lab.shape[0] != n:
        raise ConfigError(f"{where} has {lab.shape[0]} labels for {n} samples")
    return datafiles.as_labels(lab, where), _output_index(labels_key, labels_key.partition(":")[2] or None, outputs, flag)


def _default_cache() -> Path:
    from ..export.onnx_export import default_cache_dir

    return default_cache_dir() / "accuracy"


def request(data: AccuracyData, remote_path: str) -> AccuracySpec:
    """The agent's run.accuracy for a pushed data file."""
    return AccuracySpec(data=ArtifactRef(path=remote_path, format="npz", sha256=data.push_sha256),
                        samples=data.samples, inputs=list(data.inputs), per_inference=data.per_inference,
                        stacked=data.stacked, topk_output=data.label_output[0] if data.label_output else None,
                        k=TOPK, expected=[i for i, _ in data.expected])


def _mean(values: Sequence[float]) -> float | None:
    return float(np.mean(values)) if values else None


def score(data: AccuracyData, reply: AccuracyReply) -> tuple[Accuracy | None, str | None]:
    """(the Accuracy section, None) from the agent's raw per-sample reply, or (None, why there is none)."""
    if reply.error:
        return None, f"the accuracy pass stopped: {reply.error}"
    if reply.samples != data.samples:
        return None, f"the accuracy pass scored {reply.samples} of {data.samples} samples"
    acc = Accuracy(data=data.given, sha256=data.sha256, samples=data.samples, inferences=reply.inferences,
                   per_inference=data.per_inference, padded=reply.padded, duration_s=reply.duration_s,
                   nonfinite=reply.nonfinite)
    if data.labels is not None and data.label_output is not None:
        classes = reply.classes
        if len(reply.topk) != data.samples or classes is None:
            return None, "the agent returned no top-k classes for every sample"
        top = int(data.labels.max()) if data.labels.size else 0
        if top >= classes:
            return None, (f"label {top} is not a class of output {data.label_output[1]!r}, which has {classes} "
                          "values per sample (labels are indices from 0)")
        predicted: list[int | None] = []
        ranks: list[int | None] = []
        for label, row in zip(data.labels.tolist(), reply.topk, strict=True):
            predicted.append(int(row[0]) if row else None)
            ranks.append(row.index(label) if label in row else None)
        n = data.samples
        top1 = 100.0 * sum(1 for r in ranks if r == 0) / n
        top5 = 100.0 * sum(1 for r in ranks if r is not None and r < TOPK) / n if classes >= TOPK else None
        acc = dataclasses.replace(acc, output=data.label_output[1], classes=classes, top1=top1, top5=top5,
                                  predicted=predicted, label_rank=ranks)
    names = dict(data.expected)
    errors = []
    for e in reply.errors:
        mean_abs = [v for v in e.mean_abs if v is not None]
        mse = [v for v in e.mse if v is not None]
        cos = [v for v in e.cosine if v is not None]
        mx = [v for v in e.max_abs if v is not None]
        rmse = _mean(mse)
        errors.append(OutputError(output=names.get(e.output, f"#{e.output}"), samples=len(mean_abs),
                                  mean_abs_error=_mean(mean_abs), rmse=None if rmse is None else math.sqrt(rmse),
                                  max_abs_error=max(mx) if mx else None, cosine_similarity=_mean(cos),
                                  per_sample_mean_abs=list(e.mean_abs)))
    if errors:
        acc = dataclasses.replace(acc, errors=errors)
    return acc, None
