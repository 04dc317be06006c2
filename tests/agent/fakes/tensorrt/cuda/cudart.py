"""cuda.cudart: the old layout (cuda-python 11.x/12.x); removed in 13.0.0 (see __init__.py)."""

from . import VERSION

if VERSION >= (13, 0, 0):
    raise ImportError("No module named 'cuda.cudart' (removed in cuda-python 13: use cuda.bindings.runtime)")

from ._rt import *  # noqa: F401,F403,E402
