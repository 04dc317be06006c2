"""The export cache checks an entry's file against its sha256 once while the file stays as it was
(export/artifact_cache.verified_sha256; remembered across processes by export/hashes.py): a sweep reads one entry
for an export ahead and again for the cell, and the next process does not read it again; a file rewritten since,
even to the same size, is hashed again and a tampered entry is refused."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

from edgeprof.export import artifact_cache, hashes
from edgeprof.export.artifact_cache import verified_sha256


def test_a_file_left_as_it_was_is_hashed_once_and_a_rewritten_one_again(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    f = tmp_path / "model.onnx"
    f.write_bytes(b"a" * 4096)
    reads: list[Path] = []
    real = artifact_cache.sha256_file
    monkeypatch.setattr(artifact_cache, "sha256_file", lambda p: reads.append(Path(p)) or real(p))
    first = verified_sha256(f)
    assert verified_sha256(f) == first == hashlib.sha256(b"a" * 4096).hexdigest()
    assert len(reads) == 1
    st = f.stat()
    f.write_bytes(b"b" * 4096)  # same size, other bytes
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000))  # a rewrite moves mtime, however little
    assert verified_sha256(f) == hashlib.sha256(b"b" * 4096).hexdigest()
    assert len(reads) == 2
    # a new process: a file changed in the last RACY_S seconds was not remembered on disk (coarse file times), so
    # it is read once more; once settled, its record answers every process after
    time.sleep(max(0.0, hashes.RACY_S - (time.time() - f.stat().st_ctime)) + 0.05)
    for expected_reads in (3, 3):
        monkeypatch.setattr(artifact_cache, "_VERIFIED", {})
        assert verified_sha256(f) == hashlib.sha256(b"b" * 4096).hexdigest()
        assert len(reads) == expected_reads
