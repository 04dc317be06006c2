"""Pure figures over measured samples and stored Results, no I/O: latency statistics (`stats.py`), A/B comparison
(`compare.py`), regression checks (`regress.py`: budgets, baselines, step detection), the --find-max-rate search
(`maxrate.py`: the caller measures each probe) and where the time went (`breakdown.py`: Σ phase seconds per
board).

Does not own: measuring (session/, run/), storing (store/), rendering (report/, cli/).
"""
