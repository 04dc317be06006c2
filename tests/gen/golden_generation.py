"""Writes a generation result of the current schema for a new golden folder (tests/data/golden/results/vN/
ok_local_generation.json; run once by hand for a new schema version, never by the test suite: a golden file is
never regenerated, tests/data/golden/results/README.md).

The real agent (a subprocess, its sysfs root a copy of tests/data/boards/rpi4-ina219: an INA219 whose hwmon
power1_input reads a fixed 3.2768 W), facts, then `generate` on the bundled llama_tiny as a llama.cpp Q4_0 GGUF
(extra buffers off, 1 thread, power from that hwmon); the reply made into a Result by the generation kind's own
`assemble` (session/generation.py, what `edgeprof deploy` stores), stored in a scratch SQLite database and shown by
`results show --json`. (v10's file was written before deploy measured generations, by an earlier copy of this
script that built the Result by hand.)

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
    from edgeprof.records import RunSpec
    from edgeprof.session.generation import assemble
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
    spec = RunSpec(device="local", model="llama_tiny", runtime="llama.cpp", precision="q4_0", threads=1,
                   prompt_tokens=32, gen_tokens=16, depth=0, repetitions=3, seed=0, idle_s=0.5,
                   runtime_options={"extra_buffers": False})
    result = assemble(spec, art, facts, reply)
    db = str(scratch / "r.sqlite")
    Store(db).save(result)
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert cli(["results", "show", result.run_id, "--db", db, "--json"]) == 0
    out.write_text(buf.getvalue())
    print(f"wrote {out} ({result.run_id})")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
