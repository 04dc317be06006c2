"""edgeprof device agent.

Owns: everything that runs on a device — the JSON-lines protocol server, the measurement loop, runtime backends,
sensor probes and the sampler. Runs on Python >= 3.6 with the standard library only, plus the board's runtime
(onnxruntime, LiteRT, TensorRT) and numpy. Never imports the host package `edgeprof` or torch.
Does not own: statistics, storage or reports (the host does those from the raw samples sent back).
"""

AGENT_VERSION = "0.1.0"
# Protocol history (the host refuses an agent of another version, and the agent a host of another version):
# 1 — JSON lines; requests hello, facts, run, ping, lease, renew, release, lease_info, sha256, shutdown; progress
#     and log events; error replies {type, message, hint?, detail?}. Params and replies were plain dicts that each
#     side read with its own defaults (the agent read a `max_duration_s` the host never sent).
# 2 — typed records (messages.py) that both sides import, one per op's request and reply, the error reply and
#     the events. Strict fields: a missing required field, an unknown field or a wrong type is an error that
#     names the field (the agent answers it with ErrorKind.PROTOCOL, the host raises "malformed reply").
#     Run defaults have one home (vocab.RUN_DEFAULTS); `max_duration_s` is gone (no time limit in the agent's
#     loop: the host's silence timeout and a sweep cell's timeout_s stop a run). New field: error.protocol (the
#     agent's version, sent with protocol_mismatch).
# 3 — load scenarios (issue 12): run.scenario {name, rate, samples_per_query, streams, latency_bound_ms, seed}
#     and run reply.scenario {what the schedule did: scheduled and issued times, misses, samples}. An agent of
#     version 2 would refuse the new field by name; the version says so first.
# 4 — accuracy mode (issue 11): run.accuracy {data, samples, inputs, per_inference, stacked, topk_output, k,
#     expected} asks for a pass over a pushed data file after the timed loop; run reply.accuracy {samples,
#     inferences, padded, duration_s, classes, topk, errors, nonfinite, error}. The agent answers progress
#     events with phase "accuracy" (n: samples done, total: samples in all; a new event field).
# 5 — wire payloads typed (issue 19): run.power is a PowerConfig {source, rail, rate_hz, command, unit, covers,
#     device, interval_s, hwmon, timeout_s} whose from_dict is the one check (known source, W or mW, rates > 0);
#     run reply.power a PowerSummary (its trace and idle_trace PowerTrace), run reply.thermal a ThermalReply
#     {before, after: ThermalSnapshot, cooldown: CooldownWait}, run reply.ops an OpsProfileReply, run
#     reply.runtime a RuntimeInfo (Backend.describe), run reply.memory.system a SystemMemory, and a new field
#     run reply.memory.baseline (what the process holds when rss_before_load is read).
# 6 — phase times (issue 22): run reply.phases, a RunPhases {cooldown_s, idle_s, load_s, streams_s, warmup_s,
#     measure_s, outputs_s, profile_s, accuracy_s, total_s}: seconds each phase of the measurement took on the
#     device (an agent of version 5 sends none: the host stores its own phases and leaves the device's null).
# 7 — the sustained scenario (issue 25): run.scenario.duration_s and sustained_window_s; run reply.scenario.sustained, a
#     SustainedReply {duration_s, window_s, read_period_s, telemetry_errors, throttle_source, power_source,
#     windows: SustainedWindow[]} (each window's query range and the board's state read during it); progress
#     events of the measure phase may carry window, windows, p50_ms, temp_c and cpu_mhz.
# 8 — NVML per window (issue 25): run reply.scenario.sustained.windows[] n_nvml, nvml_w, nvml_temp_c, nvml_sm_mhz,
#     nvml_graphics_mhz and nvml_reasons (the first NVIDIA GPU's readings inside that window), and
#     run reply.scenario.sustained.nvml_gpu (its name). An agent of version 7 sends none: the windows show no GPU.
# 9 — less per measurement (issue 22): run reply.samples_ns is packed, {"dtype": "<i8", "b64": base64 of the
#     samples as little-endian int64} (record.PackedInt64: exact, one string instead of a JSON number per
#     sample; the host still reads a plain list, as protocol 8 sent it), and run reply.phases.setup_s, the
#     seconds from the request read to the measurement's start (inside total_s, which now starts there).
#     Within 9, no bump (issue 34): what each probe reports inside a thermal snapshot is declared as records
#     (ThermalZone, CpuFreq, GpuFreq, FanState, NvpModel, JetsonClocks, RpiState, NvmlGpu); the wire shape is
#     the one every version sent (absent values absent), now checked field by field.
# 10 — issue 35: the GPU a run uses: run request.gpu (NVML's index; the agent pins CUDA to that GPU's UUID and
#     reads its NVML power, memory and sustained telemetry) and run reply.runtime.gpu (index, name, uuid,
#     pci_bus_id, source, cuda_env); an agent of version 9 reads GPU 0 and knows no gpu field. And a sustained run
#     keeps every sample: packed lists are compressed, {"dtype": "<i8", "codec": "shuffle8+zlib", "n": N, "b64":
#     ...} (record.PackedInt64: the int64 bytes regrouped by position, zlib, base64; about 2.3 bytes a latency
#     instead of 10.7), and run reply.scenario.scheduled_ns and issued_ns are packed too. The host still reads
#     protocol 9's {dtype, b64} and plain lists. A sustained run no longer stops at run.max_queries: its duration
#     rules.
# 11 — generative models (issue 36): a new op `generate` (messages.GenerateRequest: runtime onnxruntime-genai or
#     llama.cpp, the model artifact (a folder or a file), precision label, prompt_tokens, gen_tokens, depth,
#     repetitions, warmup, seed, threads, use_mmap, extra_buffers, runtime_options, and power / idle_s / cooldown as
#     a run has them), measured in a child as a run is (genworker.py, generation/loop.py), and its reply
#     (GenerateReply: per repetition the prefill's ns, every token's ns packed, the phase edges on the agent's
#     clock; load ns, memory, the KV cache's size, the runtime's description, the power summary and every power
#     reading on the same clock (PowerReadings, the times packed), thermal snapshots, phases). An agent of
#     version 10 knows no `generate` op; the version says so first.
#     Within 11, no bump (issue 36, scenarios; the host pushes the agent it was built with, and no agent of 11 was
#     released without them): generate.scenario (a ScenarioSpec: server at a rate, or sustained for a duration in
#     windows), generate.min_duration_s / min_queries / max_queries (a server's request count, as a run's), and
#     generate reply.scenario (a ScenarioReply: t0, scheduled and issued ns, a sustained run's windows) and
#     generate reply.token_windows (each sustained window's range of tokens). The scenario records moved to
#     scenmessages.py (re-exported by messages.py; same wire shape).
#     Within 11, no bump (issue 36, onnxruntime-genai on CUDA; additive, absent = unknown): facts
#     reply.runtimes.onnxruntime_genai.cuda (og.is_cuda_available(), read in the facts' child process; an agent
#     without it leaves it out, and the host then leaves the refusal to the agent, as before); generate.gpu (NVML's
#     index, as run.gpu: the agent pins CUDA to it and hands onnxruntime-genai's CUDA provider device_id 0; the
#     reply's runtime.gpu names it); generate reply.memory.gpu (GenGpuMemory: the process's GPU memory from NVML
#     after the load and after the last token, when the model ran on CUDA) and reply.memory.gpu_reason (why not).
#     Within 11, no bump (issue 37, round 21; additive, absent = one session): run.sessions (N fresh runtime
#     sessions, the first the measurement's own; sessions.py), run reply.sessions (messages.SessionRun: sessions
#     2..N, each one's load, warm-up and raw samples packed) and run reply.phases.sessions_s. An agent of 11
#     without them refuses a request naming sessions; the host pushes the agent it was built with.
PROTOCOL_VERSION = 11
