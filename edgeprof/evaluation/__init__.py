"""What a measurement's answers and curves say, computed on the host from the agent's reply: accuracy on a
labelled data set (`accuracy.py`), output fidelity against a reference (`fidelity.py`), per-op profiles
(`opprofile.py`) and a sustained run's curve figures (`sustained.py`). run/assemble.py builds a Result's
sections with them.

Does not own: running the reference on the host (hostrun/), latency statistics and comparisons (analysis/),
measuring (the agent).
"""
