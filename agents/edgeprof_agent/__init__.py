"""edgeprof device agent.

Owns: everything that runs on a device — the JSON-lines protocol server, the measurement loop, runtime backends,
sensor probes and the sampler. Runs on Python >= 3.6 with the standard library only, plus the board's runtime
(onnxruntime, LiteRT, TensorRT) and numpy. Never imports the host package `edgeprof` or torch.
Does not own: statistics, storage or reports (the host does those from the raw samples sent back).
"""

AGENT_VERSION = "0.1.0"
# Protocol history: 1 — hello/facts/run/shutdown requests, progress/log events, JSON lines.
PROTOCOL_VERSION = 1
