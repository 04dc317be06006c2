"""Writes tests/data/golden/results/v10/ok_local_generation.json (run once by hand; never by the test suite).

The generation result no deploy writes yet: the host's measurement wiring of the `generate` op waits for the device
seam. This script does what that wiring will: the real agent (a subprocess, its sysfs root a copy of
tests/data/boards/rpi4-ina219: an INA219 whose hwmon power1_input reads a fixed 3.2768 W), facts, then `generate`
on the bundled llama_tiny as a llama.cpp Q4_0 GGUF (extra buffers off, 1 thread, power from that hwmon); the reply
through edgeprof.generative.reply.generation_of into a Result (records' sections from the reply's records, as
run/assemble.py builds a run's), stored in a scratch SQLite database and shown by `results show --json`.

Run: PYTHONPATH=<repo>:<repo>/agents python tests/gen/golden_generation.py OUT.json
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
import tempfile
from contextlib import redirect_stdout
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def main(out: Path) -> None:
    from edgeprof.cli.main import main as cli
    from edgeprof.generative.build import gguf_file, hf_folder
    from edgeprof.generative.reply import generation_of
    from edgeprof.records import Environment, Memory, Power, Result, Thermal, new_run_id, utc_now
    from edgeprof.store import Store
    from edgeprof_agent import PROTOCOL_VERSION
    from edgeprof_agent.messages import Facts, GenerateReply

    scratch = Path(tempfile.mkdtemp(prefix="edgeprof-gold10-"))
    hf = Path(hf_folder("llama_tiny", cache_dir=scratch / "cache").path).parent
    art = gguf_file(hf, "q4_0", cache_dir=scratch / "cache", name="llama_tiny")
    board = scratch / "rpi4-ina219"
    shutil.copytree(REPO / "tests" / "data" / "boards" / "rpi4-ina219", board, symlinks=True)
    p = subprocess.Popen([sys.executable, "-m", "edgeprof_agent", "serve", "--workdir", str(scratch / "work"),
                          "--sysfs-root", str(board)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def call(rid: int, op: str, params: dict) -> dict:
        assert p.stdin is not None and p.stdout is not None
        p.stdin.write(json.dumps({"id": rid, "op": op, "params": params}) + "\n")
        p.stdin.flush()
        while True:
            msg = json.loads(p.stdout.readline())
            if "event" not in msg:
                assert msg["ok"], msg
                return msg["result"]

    call(1, "hello", {"protocol": PROTOCOL_VERSION})
    facts = Facts.from_dict(call(2, "facts", {}))
    reply = GenerateReply.from_dict(call(3, "generate", {
        "runtime": "llama.cpp", "artifact": {"path": art.path, "format": "gguf", "sha256": art.sha256},
        "precision": "q4_0", "prompt_tokens": 32, "gen_tokens": 16, "depth": 0, "repetitions": 3, "threads": 1,
        "extra_buffers": False, "seed": 0, "power": {"source": "hwmon", "rate_hz": 100.0}, "idle_s": 0.5}))
    assert p.stdin is not None
    p.stdin.close()
    p.wait(30)
    mib = 2 ** 20
    mem = reply.memory
    result = Result(
        run_id=new_run_id(), status="ok", created_at=utc_now(), device="local", model="llama_tiny",
        runtime="llama.cpp", precision="q4_0", batch=1, threads=1, latency_ms=None, throughput_ips=None,
        memory_mb=Memory(rss_before_load=(mem.rss_before_load_bytes or 0) / mib,
                         rss_after_load=(mem.rss_after_load_bytes or 0) / mib, peak_rss=(mem.peak_rss_bytes or 0) / mib,
                         peak_source=mem.peak_source, artifact_size=art.size_bytes / mib),
        power=Power.from_dict(reply.power.to_dict()) if reply.power is not None else None,
        thermal=Thermal.from_dict(reply.thermal.to_dict()) if reply.thermal is not None else None,
        fidelity=None,
        environment=Environment(device=facts.to_dict(), runtime=reply.runtime.to_dict(),
                                agent_version=facts.agent_version, model_sha256=art.sha256, clock=reply.clock),
        warnings=[], samples_ms=[], artifact=art, generation=generation_of(reply))
    db = str(scratch / "r.sqlite")
    Store(db).save(result)
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert cli(["results", "show", result.run_id, "--db", db, "--json"]) == 0
    out.write_text(buf.getvalue())
    print(f"wrote {out} ({result.run_id})")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
