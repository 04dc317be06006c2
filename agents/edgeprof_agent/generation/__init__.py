"""Generative models on the device: the timed generation loop and one backend per runtime, chosen by name.

Owns: the registry of generation backends (GEN_BACKENDS, get_generation_backend), importing none of their runtimes
until a backend is loaded. The loop is loop.py, the interface base.py, the runtimes ortgenai.py (onnxruntime-genai),
llamacpp.py (llama.cpp through llama-cpp-python) and litertlm.py (LiteRT-LM's
Session API, litert-lm-api).
Does not own: the protocol messages that carry a generation request and its reply (messages.py GenerateRequest,
GenerateReply; protocol 11), the op's phases and reply (genworker.py), statistics (the host: edgeprof/generative/stats.py), power sampling (power.py).
Python 3.6-safe, standard library + numpy + the runtime only; never imports edgeprof.
"""

import importlib

GEN_BACKENDS = {
    "onnxruntime-genai": "edgeprof_agent.generation.ortgenai",
    "llama.cpp": "edgeprof_agent.generation.llamacpp",
    "litert-lm": "edgeprof_agent.generation.litertlm",
}


def get_generation_backend(name):
    """The generation backend for runtime `name` (a key of GEN_BACKENDS); OpError UNKNOWN_RUNTIME otherwise."""
    from ..protocol import OpError
    from ..vocab import ErrorKind
    from .base import GenerationBackend

    modname = GEN_BACKENDS.get(name)
    if modname is None:
        raise OpError(ErrorKind.UNKNOWN_RUNTIME, "unknown generation runtime %r" % (name,),
                      hint="choose one of: " + ", ".join(sorted(GEN_BACKENDS)))
    cls = importlib.import_module(modname).GenerationBackend
    if not issubclass(cls, GenerationBackend):
        raise TypeError("%s.GenerationBackend does not implement generation.base.GenerationBackend" % modname)
    return cls()
