"""Latency prediction from a per-board calibration table (issue 37): calibrate a board once, predict any model.

Owns the pieces below; the CLI (cli/calibrate.py, cli/predict.py) only parses and prints.

  graph.py      an ONNX file → the kernels onnxruntime really runs (its own fused graph, read from
                SessionOptions.optimized_model_filepath on this host) with per-kernel features (op, FLOPs, bytes),
                If/Loop/Scan bodies included
  tflite.py     a .tflite file → the kernels LiteRT runs with XNNPACK (its partitions); the one-operator LiteRT
                calibration models (torch → litert-torch)
  table.py      the calibration table: a typed, versioned JSON record keyed by device facts, runtime name and
                version, precision, threads and graph level; export/import as a file; refusal of a mismatch
  fit.py        per-kernel cost models fitted on a table, the model-level term, coverage, fallback, interval
  kernels.py    the generated calibration models (many small kernels at many shapes, one ONNX file each)
  calibrate.py  measuring those models on a device through run.deploy with --profile-ops, under a time budget
                (onnxruntime int8: each quantised by deploy's own path first)

Does not own: measuring (run/, the agent), storing runs (store/), export (export/).
"""
