"""cuda.bindings.runtime (cuda-python >= 12.6.1 and 13): the runtime API double of ../../_rt.py."""

from .._rt import *  # noqa: F401,F403
