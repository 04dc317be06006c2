"""Model preparation on the host: torch → ONNX export, the artifact cache, FLOP counting, seeded inputs.

Modules: resolve.py (what --model names), onnx_export.py (Artifact for a ModelSource, cache),
flops.py (FLOPs on an ONNX graph), inputs.py (seeded inputs, same algorithm as the agent),
catalog.py (bundled models with parameters and FLOPs, for `edgeprof models`).
Heavy imports (torch, onnx, onnxruntime) happen inside functions; importing this package is cheap.
Does not own: the bundled model definitions (`edgeprof_models`), running models, TFLite conversion.
"""
