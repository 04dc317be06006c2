"""The `generation` section's records, under the generative package's name: Spread, PhaseEnergy, Generation,
GenScenario, GenWindow, DEFINITIONS and P99_RULE live in edgeprof/records/generation.py (a Result's section, schema
10) and are re-exported here.
Owns nothing of its own."""

from __future__ import annotations

from ..records.generation import (
    DEFINITIONS,
    P99_RULE,
    Generation,
    GenScenario,
    GenWindow,
    PhaseEnergy,
    Spread,
)

__all__ = ["Spread", "PhaseEnergy", "Generation", "GenScenario", "GenWindow", "DEFINITIONS", "P99_RULE"]
