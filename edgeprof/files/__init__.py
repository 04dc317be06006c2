"""The host's files, read and written safely: YAML (`config.py`: one bounded loader and one node validator with
`file:line` errors), user data arrays (`datafiles.py`: .npy, .npz, folders of .npy), output files written whole or
not at all with text made safe for terminals and spreadsheets (`output.py`), and the owner-only modes of what
edgeprof creates (`modes.py`).

Does not own: what a file means (inventory/, lab/spec.py, evaluation/accuracy.py), the results database (store/).
"""
