"""Model preparation on the host, one way: model reference → source → one exporter per format → the cache → artifact.

Modules, in that order: resolve.py (what --model names → ModelSource; the torch module of a source),
onnx_export.py and tflite_export.py (one exporter per format: the fp32 Artifact of a source, each calling the cache
once), quantize.py (fp16 / int8 of an fp32 Artifact; calibration), artifact_cache.py (the cache directory, its
entries and key helpers), capture.py (library output to the cache's logs), flops.py (FLOPs on an ONNX graph),
inputs.py (seeded inputs and the input plan, same algorithm as the agent; batch.py: which dim is the batch),
external_data.py (ONNX external data), catalog.py (bundled models with
parameters and FLOPs, for `edgeprof models`). The order of these steps for one run is run/prepare.py's; the
exporters' load checks and their check against torch run on the host with edgeprof/hostrun/.
Heavy imports (torch, onnx, onnxruntime) happen inside functions; importing this package is cheap.
Does not own: the bundled model definitions (`edgeprof_models`), running models on devices.
"""
