"""Typed export and runtime options (schema 12): what made an artifact, and what the runtime ran it with.

Artifact.export_options (and its copy, Environment.export_options) is one record per kind of artifact, named by
`kind` (the artifact's format): OnnxExportOptions (torch.onnx.export, a user's file, the fp16 / int8 conversions
of export/quantize.py, the external data of export/external_data.py), TfliteExportOptions (litert_torch.convert,
a user's file, ai_edge_quantizer's int8 and fp16) and GenerativeBuild (generative/build.py: a Hugging Face folder,
a GGUF file, an onnxruntime-genai folder; a user's file as it is). Environment.runtime is RuntimeFacts: what the
backend said about itself (the agent's run reply.runtime, payloads.RuntimeInfo; a phone's benchmark_model), with
the GPU a run named (RunGpu), the phone's tool (PhoneTool) and the options it ran with (RuntimeOptions).

Every field is named: a key no field names is refused by the loader (Section.from_dict), naming it. Where a value
is data with its own shape (a calibration fingerprint, a weight census, TensorRT's engine cache entry), it stays
plain JSON inside a named field, as a probe's snapshot does.

Owns: these records, export_options_from_dict (picks the record by `kind`) and upgrade_export_options (an export
options mapping as schema 11 and the export cache's older entries wrote it: no kind, library versions under their
distribution names). Does not own: what each exporter records (export/, generative/build.py), the migration step
(schema.py _migrate_11_to_12), the agent's description of its backend (agents/edgeprof_agent/backends/).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from ..errors import StoreError
from .section import Section, _opt, by_kind

# keys schema 11 wrote under a library's distribution name (not a field name), and what schema 12 calls them
RENAMED = {"litert-torch": "litert_torch", "ai-edge-quantizer": "ai_edge_quantizer",
           "onnxconverter-common": "onnxconverter_common"}
_GENERATIVE = ("hf", "gguf", "ortgenai", "litertlm")


@dataclass(frozen=True)
class ExternalData(Section):
    """An ONNX model past 2 GiB, or exported with its tensors beside it (export/external_data.py): the data files
    by name (their sha256), the content digest of the model with its data, and how it is pushed."""

    SECTION: ClassVar[str] = "artifact.export_options.external_data"
    files: dict[str, str]
    content_sha256: str
    layout: str


@dataclass(frozen=True)
class _ExportBase(Section):
    """What every kind of artifact may record: how it was made from its source (the exporter, its seed and time,
    torch's version), and, for a conversion edgeprof made of the fp32 artifact (fp16, int8), that artifact's
    sha256, the precision and the tool."""

    SECTION: ClassVar[str] = "artifact.export_options"
    OMIT_NONE: ClassVar[bool] = True  # a key the exporter did not record stays absent
    kind: str = ""
    exporter: str | None = None
    torch: str | None = None
    seed: int | None = None
    export_seconds: float | None = None
    fp32_sha256: str | None = None  # the fp32 artifact a conversion started from (the identity's content)
    precision: str | None = None
    quantizer: str | None = None


@dataclass(frozen=True)
class OnnxExportOptions(_ExportBase):
    """An ONNX artifact: torch.onnx.export's call and versions (export/onnx_export.py; none for a user's file),
    the opset and IR version, the data kept beside it; the fp16 conversion (onnxconverter-common: `converter`,
    the ops kept in fp32, what it fixed) or the int8 one (onnxruntime.quantization: `quantizer`, the calibration's
    fingerprint, samples and shapes, an opset upgrade, opset imports dropped, the graph repairs made for the
    quantizer and the nodes it left in float: export/onnx_repair.py); a user's file already quantised, run
    as given (`precision_as_given`, `quantized_by`: export/quantize.onnx_given_precision)."""

    kind: str = "onnx"
    exporter_call: str | None = None
    opset: int | None = None
    max_ir: int | None = None  # the IR version the board's onnxruntime loads (None: no cap)
    dynamic_batch: bool | None = None
    example_batch: int | None = None
    onnx: str | None = None
    onnxscript: str | None = None
    ir_version: int | None = None
    external_data_file: str | None = None
    external_data: ExternalData | None = None
    converter: str | None = None
    onnxconverter_common: str | None = None
    ops_kept_fp32: list[str] | None = None
    initializer_inputs_dropped: int | None = None
    ir_version_raised_to: int | None = None
    casts_retargeted_to_fp16: list[str] | None = None
    onnxruntime: str | None = None
    calibration: dict[str, Any] | None = None  # the calibration data's fingerprint (quantize.calibration_fingerprint)
    calibration_samples: int | None = None
    calibration_shapes: dict[str, list[int]] | None = None
    opset_upgraded: str | None = None
    dropped_opset_imports: list[str] | None = None
    opset_imports_deduplicated: list[str] | None = None  # imports listed twice, kept once before int8
    biases_unshared: list[str] | None = None  # nodes given their own bias copy before int8 (export/onnx_repair.py)
    gemm_biases_flattened: list[str] | None = None  # Gemm nodes whose [1, N] bias became [N] before int8
    nodes_not_quantized: dict[str, str] | None = None  # node → why int8 left it in float
    precision_as_given: bool | None = None
    quantized_by: str | None = None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> OnnxExportOptions:
        flat = super().from_dict(d)
        return dataclasses.replace(flat, external_data=_opt(ExternalData, flat.external_data))


@dataclass(frozen=True)
class TfliteExportOptions(_ExportBase):
    """A TFLite artifact: litert_torch.convert's versions, shapes and layout, the inputs narrowed to what LiteRT
    takes, the graph's ops by type (export/tflite_export.py); ai_edge_quantizer's int8 (calibration) or fp16 (the
    weight census) conversion (tflite_fp16.py); a user's file as given (its quantised inputs and tensors, its
    float16 weights: `weights`)."""

    kind: str = "tflite"
    litert_torch: str | None = None
    shapes: dict[str, list[int]] | None = None
    static_shapes: bool | None = None
    layout: str | None = None
    narrowed_inputs: dict[str, str] | None = None
    op_counts: dict[str, int] | None = None
    quantized_inputs: dict[str, dict[str, Any]] | None = None  # input → its scale and zero point
    quantized_tensors: int | None = None
    precision_as_given: bool | None = None
    weights: str | None = None
    ai_edge_quantizer: str | None = None
    calibration: dict[str, Any] | None = None
    calibration_samples: int | None = None
    quantize_seconds: float | None = None
    signature_added: str | None = None
    weight_census: dict[str, Any] | None = None  # tflite_fp16.WeightCensus as data


@dataclass(frozen=True)
class GenerativeBuild(_ExportBase):
    """A generative model's artifact (generative/build.py): `kind` "hf" (a bundled model's Hugging Face folder:
    its seed, the real model whose shape it has), "gguf" (the GGUF writer's file type, tensor types, fallbacks),
    "ortgenai" (onnxruntime-genai's model builder and provider), "litertlm" (a user's .litertlm run as it is on a
    phone: the weights its header names, when it names them; one edgeprof built: litert-torch's exporter, its
    quantisation recipe in `quantizer`, the KV cache length and prefill lengths its graphs were exported with); a
    user's file as it is records none."""

    kind: str = "gguf"
    weights: str | None = None
    shape_of: str | None = None
    file_type: str | None = None
    tensor_types: dict[str, int] | None = None
    fallbacks: list[str] | None = None
    pure: bool | None = None
    builder: str | None = None
    execution_provider: str | None = None
    cache_length: int | None = None
    prefill_lengths: list[int] | None = None


ExportOptions = OnnxExportOptions | TfliteExportOptions | GenerativeBuild
_E = TypeVar("_E", OnnxExportOptions, TfliteExportOptions, GenerativeBuild)
EXPORT_KINDS: dict[str, type[OnnxExportOptions] | type[TfliteExportOptions] | type[GenerativeBuild]] = {
    "onnx": OnnxExportOptions, "tflite": TfliteExportOptions, **{k: GenerativeBuild for k in _GENERATIVE}}


def export_options_from_dict(d: Any) -> ExportOptions | None:
    """Export options from their JSON (schema 12): null, or an object whose `kind` names its record."""
    return by_kind(d, "artifact.export_options", EXPORT_KINDS)


def upgrade_export_options(d: Mapping[str, Any], fmt: str | None) -> dict[str, Any]:
    """Export options as schema 11 wrote them (an open mapping) as schema 12's: `kind` the artifact's format
    (`fmt`; without one, "tflite" when a TFLite exporter's key is there, else "onnx"), a library's version under
    its field name (RENAMED). Nothing is dropped: a key no field names is refused when loaded."""
    if "kind" in d:
        return dict(d)
    if fmt is None:
        fmt = "tflite" if {"litert-torch", "op_counts", "ai-edge-quantizer"} & set(d) else "onnx"
    return {"kind": fmt, **{RENAMED.get(k, k): v for k, v in d.items()}}


# -- runtime ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunGpu(Section):
    """The GPU a run named (--gpu; the agent's gpus.choose): NVML's index, its name, UUID and PCI bus id where
    read, discrete or integrated, where it was found (NVML, the driver's list, the Tegra device tree), and the
    variables that pinned CUDA to it."""

    SECTION: ClassVar[str] = "environment.runtime.gpu"
    OMIT_NONE: ClassVar[bool] = True
    index: int
    name: str | None = None
    uuid: str | None = None
    pci_bus_id: str | None = None
    kind: str | None = None
    source: str | None = None
    cuda_env: dict[str, str] | None = None  # what pinned CUDA to it in the agent's process (gpus.pin_cuda)


@dataclass(frozen=True)
class PhoneTool(Section):
    """A phone's runtime: LiteRT's benchmark_model (phone/), the binary on the phone and the delegate it ran."""

    SECTION: ClassVar[str] = "environment.runtime.phone"
    tool: str
    binary: str | None = None
    delegate: str | None = None


Scalar = str | int | float | bool


@dataclass(frozen=True)
class RuntimeOptions(Section):
    """The options a backend ran with, as it reported them (the agent's backends' describe(): onnxruntime,
    tflite, tensorrt, null; llama.cpp and onnxruntime-genai for a generative model). Each is a named field.

    `passthrough` holds the options the user gave that the backend reported back without reading them (the null
    runtime echoes every runtime option it was given; a sweep's `runtime_options` may name any key): they are the
    user's words, not the runtime's, so no field can name them in advance. They are kept as given where plain
    (text, number, true/false) and as their JSON text otherwise, so a result never holds an open structure there.
    An external delegate's options (--delegate-option KEY=VALUE) are the named `delegate_options`: text by key,
    the vendor library's keys, handed to it unread."""

    SECTION: ClassVar[str] = "environment.runtime.options"
    OMIT_NONE: ClassVar[bool] = True
    threads: int | None = None
    # onnxruntime (backends/ort.py)
    inter_op_threads: int | None = None
    graph_optimization_level: str | None = None
    providers_requested: list[str] | None = None
    allow_spinning: bool | None = None
    # tflite (backends/tflite.py)
    xnnpack: bool | None = None
    delegate: str | None = None
    delegate_options: dict[str, str] | None = None
    resized_inputs: list[str] | dict[str, Any] | None = None
    quantized_inputs: list[str] | dict[str, Any] | None = None
    # tensorrt (backends/tensorrt.py)
    precision: str | None = None
    transfers: bool | None = None
    io_api: str | None = None
    cuda: str | None = None
    typing: str | None = None
    engine_cache: dict[str, Any] | None = None  # the engine cache entry: hit, key, builder, GPU
    build_notes: list[str] | None = None
    timing: str | None = None
    # llama.cpp (generation/llamacpp.py) and onnxruntime-genai (generation/ortgenai.py)
    threads_batch: int | None = None
    n_batch: int | None = None
    n_ubatch: int | None = None
    use_mmap: bool | None = None
    extra_buffers: bool | None = None
    n_ctx: int | None = None
    n_ctx_allocated: int | None = None
    n_batch_used: int | None = None
    threads_source: str | None = None
    system_info: str | None = None
    device_type: str | None = None  # onnxruntime-genai: og.Model.device_type as it ran (CPU, CUDA)
    provider: str | None = None  # onnxruntime-genai: the execution provider asked (cpu, cuda; None: genai_config.json's)
    device_id: int | None = None  # onnxruntime-genai: the CUDA provider's device_id set (0: the GPU CUDA was pinned to)
    model_type: str | None = None
    max_length: int | None = None
    provider_options: Any = None  # onnxruntime-genai's genai_config.json decoder provider options, as it holds them
    past_present_share_buffer: bool | None = None
    # the null runtime's own (backends/null.py): the service time it spins or sleeps per query
    service_ms: float | None = None
    service: str | None = None
    passthrough: dict[str, Scalar] | None = None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> RuntimeOptions:
        flat = super().from_dict(d)
        bad = [k for k, v in (flat.passthrough or {}).items()
               if not isinstance(k, str) or not isinstance(v, str | int | float | bool)]
        if bad:
            raise StoreError(f"result section 'environment.runtime.options.passthrough' holds {bad[0]!r}, not a "
                             "plain value (text, number, true/false)",
                             hint="the result JSON is damaged; rerun the measurement")
        return flat

    @classmethod
    def of_backend(cls, options: Mapping[str, Any]) -> RuntimeOptions:
        """A backend's reported options (the agent's RuntimeInfo.options), a key no field names in passthrough."""
        return cls.from_dict(_with_passthrough(options))


def _with_passthrough(options: Mapping[str, Any]) -> dict[str, Any]:
    """`options` with the keys RuntimeOptions does not name moved into `passthrough` (plain values as they are,
    any other as its JSON text)."""
    import json

    names = {f.name for f in dataclasses.fields(RuntimeOptions)} - {"passthrough"}
    out = {k: v for k, v in options.items() if k in names}
    rest = {str(k): v if isinstance(v, str | int | float | bool) else json.dumps(v, sort_keys=True, default=str)
            for k, v in options.items() if k not in names and k != "passthrough"}
    if rest or options.get("passthrough"):
        out["passthrough"] = {**(options.get("passthrough") or {}), **rest}
    return out


@dataclass(frozen=True)
class RuntimeFacts(Section):
    """Environment.runtime (schema 12): the runtime the run used as its backend described itself (the agent's
    run reply.runtime, payloads.RuntimeInfo; a generate reply's), its version, the providers (execution providers,
    delegates) in use and those available (onnxruntime), the device and module it reports, the options it ran
    with, the GPU a run named, and on a phone the tool that ran it."""

    SECTION: ClassVar[str] = "environment.runtime"
    OMIT_NONE: ClassVar[bool] = True
    runtime: str
    version: str | None = None
    providers: list[str] | None = None
    providers_available: list[str] | None = None
    device: str | None = None
    module: str | None = None
    options: RuntimeOptions | None = None
    gpu: RunGpu | None = None
    phone: PhoneTool | None = None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> RuntimeFacts:
        flat = super().from_dict(d)
        return dataclasses.replace(flat, options=_opt(RuntimeOptions, flat.options), gpu=_opt(RunGpu, flat.gpu),
                                   phone=_opt(PhoneTool, flat.phone))

    @classmethod
    def of_backend(cls, described: Mapping[str, Any]) -> RuntimeFacts:
        """The agent's description of its backend (RuntimeInfo.to_dict()) as a result keeps it."""
        d = dict(described)
        options = d.pop("options", None)
        out = cls.from_dict(d)
        return dataclasses.replace(out, options=RuntimeOptions.of_backend(options) if options is not None else None)


def upgrade_runtime(d: Any) -> dict[str, Any] | None:
    """Environment.runtime as schema 11 wrote it (an open mapping) as schema 12's: {} → null; a phone's
    {name, tool, binary, delegate, version} → {runtime, version, phone: {tool, binary, delegate}}; an option
    RuntimeOptions does not name → options.passthrough (of_backend's rule: what the null runtime echoed of a
    sweep's runtime_options)."""
    if not d:
        return None
    if not isinstance(d, Mapping):
        return d  # refused when loaded, as it is
    out = dict(d)
    if "tool" in out and "runtime" not in out:
        out["runtime"] = out.pop("name", None)
        out["phone"] = {k: out.pop(k) for k in ("tool", "binary", "delegate") if k in out}
    options = out.get("options")
    if isinstance(options, Mapping):
        out["options"] = _with_passthrough(options)
    return out


def extended(opts: ExportOptions | None, kind: type[_E], **fields: Any) -> _E:
    """`opts` (a conversion's input: the fp32 artifact's export options, of the record `kind`) with `fields` added
    or replaced; a new `kind` record when there were none."""
    if opts is None:
        return kind(**fields)
    if not isinstance(opts, kind):
        raise TypeError(f"export options of kind {opts.kind!r} extended as {kind.__name__}")  # a bug, not an input
    return dataclasses.replace(opts, **fields)
