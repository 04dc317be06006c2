"""Generative models (issue 36): time to first token, tokens per second and joules per token on boards and phones.

Owns, in modules that do not depend on how a device session is opened:
  records.py      the `generation` section's typed records (Generation, Spread, PhaseEnergy), re-exported from
                  edgeprof/records/generation.py (Result.generation, schema 10)
  stats.py        pure statistics from the agent's raw per-token times and a power trace
  reply.py        the agent's generate reply (protocol 11) → the Generation section, energy per phase included
  settings.py     a spec's generation settings, each given or llama-bench's default
  limits.py       how long a generate request may take: the silence per repetition, the whole request's deadline
  table.py        the llama-bench-like table (pp / tg rows, t/s mean ± sd) and the section's text lines
  detect.py       what kind of generative model a user's path is (Hugging Face folder, GGUF, onnxruntime-genai
                  folder, .litertlm), validated with one-line errors, and its dimensions (KV cache size, context)
  gguf_writer.py  a llama GGUF (f16, Q8_0, Q4_0) from a Hugging Face folder
  build.py        the bundled generative models' folders and their conversions, cached by content
Does not own: the device-side loop (agents/edgeprof_agent/generation/), the bundled shapes
(edgeprof_models.generative), wiring into deploy / sweep / report (after the device seam lands).
"""
