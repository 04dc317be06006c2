"""The per-op profile pass: a SEPARATE pass after the latency loop, never mixed into it.

Owns: asking the loaded backend for its profile (Backend.profile_ops, backends/base.py) and saying "not
available" for a backend without one (the base's NotSupported); the onnxruntime profiling session:
- onnxruntime (its profile_ops calls profile_onnxruntime): a second InferenceSession with enable_profiling
  (profiling makes runs 33-65 % slower, so the measured session never has it); the profile JSON is read here, the
  first `warmup` runs are dropped, and each node's kernel time is summed; the file is deleted.
- tflite and tensorrt profile themselves in their profile_ops.
Returned shape (the host's edgeprof.evaluation.opprofile turns it into shares, per-op-type totals and top ops):
  {"available": bool, "source": str, "reason": str?, "iterations": n, "unit": "us",
   "nodes": [[node name, op type, provider, total us over the iterations, calls]], "run_total_us": float?}
Does not own: the timed measurement (worker.py), presentation (host).
"""

import json
import os

from .backends.base import NotSupported
from .protocol import OpError


def profile(runtime, backend, iterations):
    """The per-op profile of `backend` (loaded, for `runtime`) over `iterations` runs; an OpError when the
    runtime's profiler fails."""
    iterations = max(1, int(iterations))
    try:
        return backend.profile_ops(iterations)
    except NotSupported:
        return {"available": False, "source": runtime, "reason": "%s has no per-op profiler in edgeprof" % runtime,
                "iterations": 0, "nodes": []}


def profile_onnxruntime(path, inputs, options, iterations, warmup=3, workdir="."):
    import onnxruntime as ort

    options = dict(options or {})
    so = ort.SessionOptions()
    if options.get("threads"):
        so.intra_op_num_threads = int(options["threads"])
    so.inter_op_num_threads = int(options.get("inter_op_threads") or 1)
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    level = {"disable": "ORT_DISABLE_ALL", "basic": "ORT_ENABLE_BASIC", "extended": "ORT_ENABLE_EXTENDED",
             "all": "ORT_ENABLE_ALL"}.get(options.get("graph_optimization_level") or "all", "ORT_ENABLE_ALL")
    so.graph_optimization_level = getattr(ort.GraphOptimizationLevel, level)
    so.enable_profiling = True
    so.profile_file_prefix = os.path.join(workdir, "edgeprof-ort-profile")
    providers = options.get("providers") or ["CPUExecutionProvider"]
    try:
        sess = ort.InferenceSession(path, sess_options=so, providers=providers)
    except Exception as e:
        raise OpError("profile_failed", "onnxruntime could not load the model for profiling: %s" % (
            (str(e).splitlines() or [""])[0]))
    feed = dict(inputs)
    for _ in range(warmup + iterations):
        sess.run(None, feed)
    out = sess.end_profiling()
    try:
        with open(out, "r") as f:
            events = json.load(f)
    finally:
        try:
            os.remove(out)
        except OSError:
            pass
    result = aggregate_ort_events(events, warmup)
    result["providers"] = list(sess.get_providers())
    return result


def aggregate_ort_events(events, warmup=0):
    """onnxruntime profile events -> per-node totals over the runs after the first `warmup` model_run events."""
    if isinstance(events, dict):  # some versions wrap the list
        events = events.get("traceEvents", [])
    runs = sorted((e for e in events if e.get("cat") == "Session" and e.get("name") == "model_run"),
                  key=lambda e: e.get("ts", 0))
    start_ts = None
    if warmup and len(runs) > warmup:
        start_ts = runs[warmup - 1].get("ts", 0) + runs[warmup - 1].get("dur", 0)
    kept_runs = runs[warmup:] if warmup and len(runs) > warmup else runs
    nodes = {}
    order = []
    for e in events:
        if e.get("cat") != "Node":
            continue
        name = e.get("name", "")
        if not name.endswith("_kernel_time"):
            continue
        if start_ts is not None and e.get("ts", 0) < start_ts:
            continue
        args = e.get("args") or {}
        node = name[:-len("_kernel_time")]
        if node not in nodes:
            nodes[node] = [node, args.get("op_name", "?"), args.get("provider", "?"), 0.0, 0]
            order.append(node)
        nodes[node][3] += float(e.get("dur", 0))
        nodes[node][4] += 1
    return {
        "available": bool(nodes),
        "source": "onnxruntime profiling (enable_profiling, separate session)",
        "reason": None if nodes else "the profile held no node events",
        "iterations": len(kept_runs),
        "unit": "us",
        "nodes": [nodes[n] for n in order],
        "run_total_us": float(sum(r.get("dur", 0) for r in kept_runs)),
    }
