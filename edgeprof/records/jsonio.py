"""The one way edgeprof writes JSON (valid JSON only: a non-finite number becomes null).

Owns: finite_or_null, dumps_json. Does not own: any record.
"""

from __future__ import annotations

import json
from typing import Any


def finite_or_null(obj: Any) -> Any:
    """`obj` with every NaN / ±Infinity float replaced by None (JSON null), recursively."""
    if isinstance(obj, float):
        return obj if obj == obj and obj not in (float("inf"), float("-inf")) else None
    if isinstance(obj, dict):
        return {k: finite_or_null(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [finite_or_null(v) for v in obj]
    return obj


def dumps_json(obj: Any, indent: int | None = None, sort_keys: bool = False) -> str:
    """The one way edgeprof writes JSON: valid JSON only (allow_nan=False), a non-finite number becomes null."""
    return json.dumps(finite_or_null(obj), indent=indent, sort_keys=sort_keys, allow_nan=False)
