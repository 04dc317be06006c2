"""Test double namespace for cuda-python (see bindings/runtime.py)."""
