"""Seeded model inputs, generated exactly as the device agent generates them.

Owns: the host copy of the input generator. The agent (`edgeprof_agent`, standard library + numpy) has its
own copy of the same algorithm, so host and device build identical arrays from (specs, shapes, seed):

    rs = numpy.random.RandomState(seed)
    for spec in specs (declaration order):
        float dtypes: rs.uniform(low, high, size=shape).astype(dtype)
        int dtypes:   rs.randint(int(low), int(high), size=shape).astype(dtype)
        bool:         rs.randint(0, 2, size=shape).astype(bool)

Changing this algorithm changes every stored fidelity check: change both copies and say so in the commit.
Does not own: choosing shapes (TensorSpec.concrete does that) or value ranges (the model declares them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..errors import ModelError
from ..records import TensorSpec

__all__ = ["make_inputs"]


def make_inputs(specs: Sequence[TensorSpec], shapes: Mapping[str, tuple[int, ...]],
                seed: int) -> dict[str, np.ndarray]:
    """One array per spec, in declaration order, from `numpy.random.RandomState(seed)`."""
    rs = np.random.RandomState(seed)
    out: dict[str, np.ndarray] = {}
    for spec in specs:
        if spec.name not in shapes:
            raise ModelError(f"no concrete shape for input {spec.name!r} {spec.shape_str()}",
                             hint=f"give it with --input {spec.name}=" + "x".join(
                                 str(d) if isinstance(d, int) else "N" for d in spec.shape))
        shape = tuple(int(d) for d in shapes[spec.name])
        dtype = np.dtype(spec.dtype)
        if dtype == np.bool_:
            out[spec.name] = rs.randint(0, 2, size=shape).astype(bool)
        elif np.issubdtype(dtype, np.integer):
            if int(spec.high) <= int(spec.low):
                raise ModelError(f"input {spec.name!r}: empty integer range [{spec.low}, {spec.high})",
                                 hint="declare high > low for integer inputs")
            out[spec.name] = rs.randint(int(spec.low), int(spec.high), size=shape).astype(dtype)
        elif np.issubdtype(dtype, np.floating):
            out[spec.name] = rs.uniform(spec.low, spec.high, size=shape).astype(dtype)
        else:
            raise ModelError(f"input {spec.name!r} has dtype {spec.dtype}, which edgeprof cannot generate",
                             hint="use a float, integer or bool input")
    return out
