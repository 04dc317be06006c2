"""pycuda.autoinit double: init(), a context on device 0 (raises pycuda.driver.RuntimeError without a driver)."""

from . import driver as cuda

cuda.init()
device = cuda.Device(0)
context = device.make_context()
