"""Models run on the host, each in a child process with a time limit: the load checks of converted and user files
(`loadcheck.py`) and the host's reference outputs and output comparison (`reference.py`), used by export/ and the
evaluation of a run (fidelity, accuracy).

Does not own: converting models (export/), what a reference means for a run (evaluation/fidelity.py).
This package's __init__ imports nothing: the load-check child imports loadcheck.py and little else.
"""
