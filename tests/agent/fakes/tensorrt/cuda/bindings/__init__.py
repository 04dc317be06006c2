"""cuda.bindings (cuda-python >= 11.8.4 / 12.6.1): absent in older releases (see ../__init__.py)."""

# ruff: noqa: UP031, B905 - runs under Python 3.6 too (the JetPack 4.6 stack): %-format, zip without strict

from .. import VERSION, __version__

if VERSION < (12, 6, 1):
    raise ImportError("No module named 'cuda.bindings' (cuda-python %s has the old layout: cuda.cudart)"
                      % __version__)
