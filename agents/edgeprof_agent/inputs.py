"""Model inputs, built on the device (no tensors travel over the wire; a data file is pushed like a model).

Same algorithm as the host's edgeprof.export.inputs.make_inputs, so host references and device outputs are
computed on identical arrays: numpy.random.RandomState(seed), inputs in declaration order; an input with a
`value` is that constant everywhere and one with `data` is that array of the run's input data file (.npz):
neither draws from the generator. Others: floats uniform(low, high); integers randint(low, high);
bool randint(0, 2).
"""

import zipfile

from .protocol import OpError
from .vocab import ErrorKind


def _load_data(path):
    import numpy as np

    try:
        archive = np.load(path, allow_pickle=False)
    except (IOError, OSError, ValueError, EOFError, zipfile.BadZipFile) as e:
        raise OpError(ErrorKind.BAD_INPUTS, "cannot read the input data file %s: %s" % (path, e),
                      hint="deploy again: the host pushes it with the model")
    try:
        return dict((k, archive[k]) for k in archive.files)
    finally:
        archive.close()


def make_inputs(specs, seed, data_path=None):
    """specs: messages.InputSpec records (concrete shape, dtype, low, high, value, data) -> list of
    (name, ndarray). data_path: the pushed .npz holding the arrays that `data` names."""
    import numpy as np

    rs = np.random.RandomState(seed)
    data = None
    out = []
    for s in specs:
        shape = tuple(int(d) for d in s.shape)
        dtype = s.dtype
        if s.data is not None:
            if data is None:
                if data_path is None:
                    raise OpError(ErrorKind.BAD_INPUTS, "input %s names data %r but the run has no input data file"
                                  % (s.name, s.data))
                data = _load_data(data_path)
            if s.data not in data:
                raise OpError(ErrorKind.BAD_INPUTS, "the input data file has no array %r for input %s"
                              % (s.data, s.name))
            arr = data[s.data]
            if tuple(arr.shape) != shape or str(arr.dtype) != dtype:
                raise OpError(ErrorKind.BAD_INPUTS, "input %s: the data array is %s%s, the run asks for %s%s"
                              % (s.name, arr.dtype, list(arr.shape), dtype, list(shape)))
            out.append((s.name, np.array(arr, order="C")))  # (ascontiguousarray makes a scalar 1-d)
            continue
        if s.value is not None:
            out.append((s.name, np.full(shape, s.value, dtype=dtype)))
            continue
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
