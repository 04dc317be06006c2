"""A generation spec's settings (prompt tokens, generated tokens, depth, repetitions), each as given or llama-bench's
default (the agent's vocab.GEN_DEFAULTS: 512 / 128 / 0, 5 repetitions).

Owns: reading them off a RunSpec. Does not own: declaring them (vocab.RunSettings, group "generation"), checking them
(session/generation.check), the device's own refusals (session/, phone/litertlm.py).
"""

from __future__ import annotations

from edgeprof_agent.vocab import GEN_DEFAULTS

from ..records import RunSpec

__all__ = ["GEN_SETTINGS", "settings_of"]

GEN_SETTINGS = ("prompt_tokens", "gen_tokens", "depth", "repetitions")


def settings_of(spec: RunSpec) -> dict[str, int]:
    """The generation settings of `spec`, each given or llama-bench's default."""
    out: dict[str, int] = {}
    for name in GEN_SETTINGS:
        value = getattr(spec, name)
        out[name] = int(GEN_DEFAULTS[name] if value is None else value)
    return out
