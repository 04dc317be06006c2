"""Seeded model inputs, generated on the device (no tensors travel over the wire).

Same generator as the host's edgeprof.export.inputs.make_inputs, so host references and device outputs are
computed on identical arrays: numpy.random.RandomState(seed), inputs in declaration order; floats
uniform(low, high); integers randint(low, high); bool randint(0, 2).
"""


def make_inputs(specs, seed):
    """specs: messages.InputSpec records (concrete shape, dtype, low, high) -> list of (name, ndarray)."""
    import numpy as np

    rs = np.random.RandomState(seed)
    out = []
    for s in specs:
        shape = tuple(int(d) for d in s.shape)
        dtype = s.dtype
        low = 0.0 if s.low is None else s.low
        high = 1.0 if s.high is None else s.high
        if dtype == "bool":
            arr = rs.randint(0, 2, size=shape).astype(np.bool_)
        elif dtype.startswith("float"):
            arr = rs.uniform(low, high, size=shape).astype(dtype)
        else:
            arr = rs.randint(int(low), int(high), size=shape).astype(dtype)
        out.append((s.name, arr))
    return out
