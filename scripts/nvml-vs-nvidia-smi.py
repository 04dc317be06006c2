#!/usr/bin/env python3
"""The agent's NVML readings beside `nvidia-smi --query-gpu`, taken alongside, on a machine with an NVIDIA GPU
(issue 25, item 6).

NOT RUN YET: written on a machine without a GPU; no number here has been measured. On a GPU machine (nvidia-ml-py
installed; torch with CUDA to keep the GPU busy) run from the repository root:

    python3 scripts/nvml-vs-nvidia-smi.py --seconds 60 --out nvml-vs-smi.json

For `--seconds`, a CUDA matmul loop keeps GPU 0 busy while, every `--every` seconds, the agent's own code reads NVML
(thermal.nvml_state: temperature, SM and memory clocks, power, clock event reasons; the NvmlProbe: power and
the energy counter; nvml.GpuTelemetry, what a sustained run reads each tick: power, temperature, SM and graphics
clocks, reasons) and `nvidia-smi --query-gpu` reads the same quantities. It prints one line per pair and writes
every pair to --out: the values to put into the NVML test double (tests/agent/fakes/modules/pynvml.py) and to
compare. Differences worth a fix: units (mW vs W, mJ vs J), the power average (NVML's is a 1 s average on Ampere
and newer), throttle reasons decoded differently, clocks read from another domain.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agents"))

from edgeprof_agent import thermal  # noqa: E402
from edgeprof_agent.probes import nvml  # noqa: E402

SMI_FIELDS = ("temperature.gpu", "clocks.sm", "clocks.gr", "clocks.mem", "power.draw", "total_energy_consumption",
              "clocks_event_reasons.active")


def smi() -> dict[str, str]:
    out = subprocess.run(["nvidia-smi", "--id=0", "--format=csv,noheader,nounits",
                          "--query-gpu=" + ",".join(SMI_FIELDS)], capture_output=True, text=True, timeout=10)
    if out.returncode != 0:
        return {"error": (out.stderr or out.stdout).strip()}
    return dict(zip(SMI_FIELDS, (v.strip() for v in out.stdout.strip().split(",")), strict=False))


def busy(stop: threading.Event) -> None:
    import torch

    a = torch.randn(8192, 8192, device="cuda")
    while not stop.is_set():
        a = (a @ a).clamp_(-1, 1)
        torch.cuda.synchronize()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--every", type=float, default=1.0)
    ap.add_argument("--out", default="nvml-vs-smi.json")
    args = ap.parse_args()
    probe, reason = nvml.discover(None, None, {})
    if probe is None:
        print(f"no NVML: {reason}", file=sys.stderr)
        return 1
    tick = nvml.GpuTelemetry.open()
    stop = threading.Event()
    load = threading.Thread(target=busy, args=(stop,), daemon=True)
    load.start()
    pairs = []
    t0 = time.monotonic()
    try:
        while time.monotonic() - t0 < args.seconds:
            total, _rails, inst = probe.read()
            state = (thermal.nvml_state() or [{}])[0]
            pair = {"t_s": round(time.monotonic() - t0, 3), "agent": {**state, "probe_total": total,
                                                                      "probe_inst_w": inst,
                                                                      "probe_method": probe.method,
                                                                      "window_tick": tick.read() if tick else None},
                    "nvidia_smi": smi()}
            pairs.append(pair)
            a, s = pair["agent"], pair["nvidia_smi"]
            print(f"{pair['t_s']:7.1f} s  temp {a.get('temp_c')} / {s.get('temperature.gpu')} °C · SM "
                  f"{a.get('sm_mhz')} / {s.get('clocks.sm')} MHz · power {a.get('power_w')} / "
                  f"{s.get('power.draw')} W · reasons {a.get('clock_reasons')} / "
                  f"{s.get('clocks_event_reasons.active')}")
            time.sleep(args.every)
    finally:
        stop.set()
        probe.close()
        if tick:
            tick.close()
    Path(args.out).write_text(json.dumps(pairs, indent=2))
    print(f"wrote {len(pairs)} pairs to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
