"""What the CUDA doubles (cuda-python 12/13 under cuda/, pycuda under pycuda/) share: "device memory" is host
memory from ctypes, copies are memmoves, and every copy and stream synchronisation is appended as one JSON line to
$EDGEPROF_FAKE_TRT_LOG (the tensorrt double logs there too), so a test can check the order of a query.

Knobs (environment, read per call): EDGEPROF_FAKE_CUDA_DRIVER, the CUDA version the "driver" supports as
cudaDriverGetVersion encodes it (1000 * major + 10 * minor; default 13000; 0 = no driver loaded);
EDGEPROF_FAKE_GPU_NAME (default "Fake GPU T4").
"""

import ctypes
import json
import os

_buffers = {}


def log(event, **fields):
    path = os.environ.get("EDGEPROF_FAKE_TRT_LOG")
    if path:
        fields["event"] = event
        with open(path, "a") as f:
            f.write(json.dumps(fields, sort_keys=True) + "\n")


def driver_version():
    return int(os.environ.get("EDGEPROF_FAKE_CUDA_DRIVER", "13000"))


def gpu_name():
    return os.environ.get("EDGEPROF_FAKE_GPU_NAME", "Fake GPU T4")


def malloc(nbytes):
    buf = ctypes.create_string_buffer(max(1, int(nbytes)))
    ptr = ctypes.addressof(buf)
    _buffers[ptr] = buf
    return ptr


def free(ptr):
    _buffers.pop(int(ptr), None)


def copy(dst, src, nbytes, direction):
    ctypes.memmove(int(dst), int(src), int(nbytes))
    log(direction, nbytes=int(nbytes))
