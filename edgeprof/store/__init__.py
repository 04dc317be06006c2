"""Results database: SQLAlchemy Core, SQLite by default, any SQLAlchemy URL (PostgreSQL) by --db / EDGEPROF_DB.

Owns: the tables, where the database lives, saving a Result atomically (one transaction: a run is either wholly
stored or absent), listing and loading runs, and device facts with timestamps. No measurement is lost: a locked
SQLite database is waited for (busy timeout) and the save retried with backoff up to a bound; if it still cannot be
written, the Result goes to a recovery file ($XDG_DATA_HOME/edgeprof/recovered/<run_id>.json, with a
<run_id>.target naming the database) that the next successful save to that database imports and removes by itself
(with its sweep cell's state), or `edgeprof results import FILE` stores by hand. A corrupt or foreign database
file is refused in one line.
Privacy (files/modes.py's rule): the SQLite file is created 0600 and its folder 0700 (recovery files too), narrowed
further by a stricter umask; a database that exists keeps the mode its owner gave it.
Does not own: what a Result contains (records.py) or comparisons (analysis/compare.py).

Database schema history: 1 — runs, device_facts, meta.
  2 — sweeps and sweep_cells (added by lab/sweep_state.py's users; runs, device_facts and meta unchanged, so a
      version-1 database is upgraded in place by creating the two tables).
  3 — config_key re-keyed by content hash and shapes; 4 — runs.top1 (schema.py).
  5 — predictions (store/predictions.py: what `edgeprof predict` and sweeps that predict first said); the other
      tables unchanged, so an older database is upgraded in place by creating it.
"""

from .db import BUSY_TIMEOUT_S, MAX_LIST_LIMIT, SAVE_BACKOFF_S, SAVE_RETRIES, CorruptRowError, Store
from .imports import MAX_IMPORT_BYTES, validate_result
from .location import DB_COMPANIONS, default_db_path, refuse_db_path, resolve_db_url, sqlite_path
from .recovery import RECOVERY_TARGET_SUFFIX, RUN_ID_RE, recovery_dir, safe_stem, write_recovery
from .schema import (
    DB_SCHEMA_VERSION,
    MAX_ID_CHARS,
    STATUSES,
    RunRow,
    config_key,
    device_facts,
    meta,
    metadata,
    predictions,
    runs,
    sweep_cells,
    sweeps,
)

__all__ = [
    "BUSY_TIMEOUT_S", "DB_COMPANIONS", "DB_SCHEMA_VERSION", "MAX_ID_CHARS", "MAX_IMPORT_BYTES", "MAX_LIST_LIMIT",
    "RECOVERY_TARGET_SUFFIX", "RUN_ID_RE", "RunRow", "SAVE_BACKOFF_S", "SAVE_RETRIES", "STATUSES", "CorruptRowError", "Store",
    "config_key", "default_db_path", "device_facts", "meta", "metadata", "predictions", "recovery_dir", "refuse_db_path", "resolve_db_url", "runs",
    "safe_stem", "sqlite_path", "sweep_cells", "sweeps", "validate_result", "write_recovery",
]
