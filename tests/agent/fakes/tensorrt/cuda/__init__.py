"""Test double of the `cuda` namespace of NVIDIA's cuda-python, in the layout of the release chosen by
EDGEPROF_FAKE_CUDA_PYTHON (read at import):

- "13.0.0" (default): `cuda.bindings.runtime` only; cuda-bindings 13.0.0 release notes: "The trampoline modules
  cuda.{cuda,cudart,nvrtc} are now removed. Users should switch to use cuda.bindings.{driver,runtime,nvrtc}";
  needs a CUDA 13 driver (>= 580);
- "12.6.2": both `cuda.bindings.runtime` and the deprecated `cuda.cudart` (the new layout arrived in 11.8.4 /
  12.6.1, release notes: "cuda.cudart -> cuda.bindings.runtime"); any CUDA 12 driver;
- "12.4.0": `cuda.cudart` only (before the new layout);
- "none": no cuda-python at all (JetPack 4.6: cuda-python starts at CUDA 11.4 and Python 3.8; pycuda there).
The runtime API itself is in _rt.py.
"""

import os

__version__ = os.environ.get("EDGEPROF_FAKE_CUDA_PYTHON", "13.0.0")
if __version__ == "none":
    raise ImportError("No module named 'cuda'")
VERSION = tuple(int(x) for x in __version__.split(".")[:3])
