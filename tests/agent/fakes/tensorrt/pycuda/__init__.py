"""Test double of pycuda (what JetPack 4.6 users run TensorRT 8.2 with: no cuda-python for CUDA 10.2 /
Python 3.6). Importable only when EDGEPROF_FAKE_PYCUDA is set (a machine without pycuda otherwise).
API shapes from pycuda's documentation (driver.rst): mem_alloc → DeviceAllocation (int() = device pointer,
free()), pagelocked_empty, memcpy_htod_async(dest, src, stream), memcpy_dtoh_async(dest, src, stream),
Stream().handle / .synchronize(), Device(n).name(); pycuda.autoinit calls init() and makes a context.
"""

import os

if not os.environ.get("EDGEPROF_FAKE_PYCUDA"):
    raise ImportError("No module named 'pycuda'")
VERSION = (2021, 1)
VERSION_TEXT = "2021.1"
