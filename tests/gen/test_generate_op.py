"""The agent's `generate` op (protocol 11) end to end: the real agent as a subprocess on the bundled tiny Llama
(onnxruntime-genai fp32, a folder its own model builder wrote; llama.cpp Q4_0 with extra buffers off, a GGUF
edgeprof wrote), its sysfs root a copy of the Raspberry Pi 4 + INA219 tree (tests/data/boards/rpi4-ina219), whose
hwmon power1_input holds a fixed reading (3 276 800 uW). The reply's raw figures go through the host's
edgeprof.generative.reply.generation_of.

Energy tolerance: every reading is exactly 3.2768 W, and the trapezoid integral of a constant over a window is
W x the window's length wherever the readings fall inside or around it, so sampling granularity does not enter:
the prefill and decode energies must equal W x phase time up to float rounding (rel 1e-9). What sampling does
decide is coverage: the sampler reads once before the timed loop starts and once after it stops (power.py
PowerMonitor.start / stop), so the readings span every window; asserted, since the host never extrapolates."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from edgeprof.generative.detect import detect
from edgeprof.generative.reply import generation_of
from edgeprof_agent import PROTOCOL_VERSION
from edgeprof_agent.messages import GenerateReply

REPO = Path(__file__).resolve().parents[2]
WATTS = 3_276_800 / 1e6  # tests/data/boards/rpi4-ina219: hwmon2/power1_input (uW)
PROMPT, GEN, DEPTH, REPS = 32, 8, 8, 3


class Agent:
    """The agent as a subprocess speaking JSON lines; its board is `sysfs_root`."""

    def __init__(self, workdir: Path, sysfs_root: Path) -> None:
        self.p = subprocess.Popen([sys.executable, "-m", "edgeprof_agent", "serve", "--workdir", str(workdir),
                                   "--sysfs-root", str(sysfs_root)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        self.next_id = 1
        self.events: list[dict] = []

    def call(self, op: str, params: dict | None = None) -> dict:
        rid, self.next_id = self.next_id, self.next_id + 1
        assert self.p.stdin is not None and self.p.stdout is not None
        self.p.stdin.write(json.dumps({"id": rid, "op": op, "params": params or {}}) + "\n")
        self.p.stdin.flush()
        while True:
            line = self.p.stdout.readline()
            assert line, "agent exited: " + (self.p.stderr.read() if self.p.stderr else "")
            msg = json.loads(line)
            if "event" in msg:
                self.events.append(msg)
                continue
            assert msg["id"] == rid
            return msg

    def close(self) -> None:
        assert self.p.stdin is not None
        self.p.stdin.close()
        assert self.p.wait(30) == 0


@pytest.fixture
def agent(tmp_path):
    board = tmp_path / "rpi4-ina219"
    shutil.copytree(REPO / "tests" / "data" / "boards" / "rpi4-ina219", board, symlinks=True)
    a = Agent(tmp_path / "work", board)
    assert a.call("hello", {"protocol": PROTOCOL_VERSION})["ok"]
    yield a
    if a.p.poll() is None:
        a.p.kill()


def _generate(agent: Agent, runtime: str, path: Path, fmt: str, precision: str, **extra) -> GenerateReply:
    r = agent.call("generate", {"runtime": runtime, "artifact": {"path": str(path), "format": fmt},
                                "precision": precision, "prompt_tokens": PROMPT, "gen_tokens": GEN, "depth": DEPTH,
                                "repetitions": REPS, "threads": 1, "seed": 3,
                                "power": {"source": "hwmon", "rate_hz": 100.0}, "idle_s": 0.1, **extra})
    assert r["ok"], r
    return GenerateReply.from_dict(r["result"])


def _check(agent: Agent, reply: GenerateReply, runtime: str, folder_or_file: Path, bytes_per_element: int) -> None:
    assert reply.runtime.runtime == runtime and reply.runtime.options["threads"] == 1
    assert (reply.prompt_tokens, reply.gen_tokens, reply.depth, reply.n_ctx) == (PROMPT, GEN, DEPTH,
                                                                                 DEPTH + PROMPT + GEN)
    assert len(reply.repetitions) == REPS and reply.load_ns > 0 and reply.warmup is not None
    for rep in reply.repetitions:  # one time per token, the phase edges in order on one clock
        assert len(rep.token_ns) == GEN and len(rep.tokens) == GEN and all(t > 0 for t in rep.token_ns)
        assert rep.depth_fill_ns > 0 and rep.prefill_ns == rep.t_prefill_end_ns - rep.t_prefill_start_ns
        assert rep.t_prefill_start_ns < rep.t_prefill_end_ns < rep.t_first_token_end_ns < rep.t_end_ns
        assert rep.t_end_ns - rep.t_first_token_end_ns >= sum(rep.token_ns[1:])  # the stamps enclose the tokens
    info = detect(folder_or_file)
    assert reply.kv_cache.bytes == info.kv_cache_bytes(reply.kv_cache.n_ctx, bytes_per_element)
    assert reply.kv_cache.n_ctx >= reply.n_ctx
    assert reply.memory.peak_rss_bytes is not None and reply.memory.rss_after_load_bytes is not None
    assert reply.memory.peak_rss_bytes >= reply.memory.rss_after_load_bytes > 0
    # power: the hwmon sensor of the board tree, every reading its fixed value, covering the whole measured span
    assert reply.power is not None and reply.power.source == "hwmon" and reply.power_reason is None
    readings = reply.power_readings
    assert readings is not None and set(readings.w) == {WATTS} and len(readings.t_ns) >= 2
    first, last = reply.repetitions[0], reply.repetitions[-1]
    assert readings.t_ns[0] <= first.t_prefill_start_ns and readings.t_ns[-1] >= last.t_end_ns
    assert reply.power.t0_ns == first.t_prefill_start_ns and reply.power.t1_ns == last.t_end_ns
    assert reply.power.energy_j == pytest.approx(WATTS * (last.t_end_ns - first.t_prefill_start_ns) / 1e9, rel=1e-9)
    assert reply.power.idle_w == pytest.approx(WATTS, rel=1e-9)
    assert reply.thermal is not None and reply.thermal.before is not None and reply.thermal.after is not None
    assert reply.phases is not None and reply.phases.total_s >= reply.phases.load_s + reply.phases.measure_s
    assert reply.phases.idle_s >= 0.1
    # progress: the warm-up, then each repetition
    measured = [e["n"] for e in agent.events if e.get("phase") == "measure"]
    assert measured == list(range(1, REPS + 1)) and any(e.get("phase") == "warmup" for e in agent.events)
    # the host's section: energy per phase = W x the phase windows' lengths, exactly
    g = generation_of(reply)
    e = g.energy
    assert e is not None and g.energy_reason is None and e.source == "hwmon"
    ttft_s = sum(r.t_first_token_end_ns - r.t_prefill_start_ns for r in reply.repetitions) / 1e9
    decode_s = sum(r.t_end_ns - r.t_first_token_end_ns for r in reply.repetitions) / 1e9
    assert e.prefill_s == pytest.approx(ttft_s, rel=1e-12) and e.decode_s == pytest.approx(decode_s, rel=1e-12)
    assert e.prefill_j == pytest.approx(WATTS * ttft_s, rel=1e-9)
    assert e.decode_j == pytest.approx(WATTS * decode_s, rel=1e-9)
    assert e.j_per_token == pytest.approx(WATTS * decode_s / (REPS * (GEN - 1)), rel=1e-9)
    assert e.j_per_prompt_token == pytest.approx(WATTS * ttft_s / (REPS * PROMPT), rel=1e-9)
    assert e.prefill_mean_w == pytest.approx(WATTS, rel=1e-9) and e.decode_mean_w == pytest.approx(WATTS, rel=1e-9)
    # the statistics come from the raw per-token times the reply carried, which the section keeps
    assert g.token_ns == [list(r.token_ns) for r in reply.repetitions]
    assert g.prefill_ns == [r.prefill_ns for r in reply.repetitions]
    assert g.ttft_ms.n == REPS and g.itl_ms is not None and g.itl_ms.n == REPS * (GEN - 1)
    assert g.windows_ns[0][0] == 0 and len(g.windows_ns) == REPS and g.kv_cache == reply.kv_cache.to_dict()
    agent.close()


def test_generate_on_onnxruntime_genai_fp32(agent, tiny_ortgenai):
    folder = tiny_ortgenai("fp32")
    reply = _generate(agent, "onnxruntime-genai", folder, "ortgenai", "fp32")
    assert reply.precision == "fp32" and reply.kv_cache.dtype == "float32"
    _check(agent, reply, "onnxruntime-genai", folder, 4)


def test_generate_on_llama_cpp_q4_0_without_extra_buffers(agent, tiny_gguf):
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed (pip install 'edgeprof[llamacpp]')")
    path = tiny_gguf("q4_0")
    reply = _generate(agent, "llama.cpp", path, "gguf", "q4_0", extra_buffers=False, use_mmap=False)
    opts = reply.runtime.options
    assert opts["extra_buffers"] is False and opts["use_mmap"] is False and opts["threads_source"] == "option"
    assert reply.kv_cache.dtype == "f16"
    _check(agent, reply, "llama.cpp", path, 2)


def test_onnxruntime_genai_refuses_llama_cpp_options_and_the_agent_serves_on(agent, tiny_ortgenai):
    folder = tiny_ortgenai("fp32")
    r = agent.call("generate", {"runtime": "onnxruntime-genai", "artifact": {"path": str(folder)},
                                "prompt_tokens": 4, "gen_tokens": 2, "repetitions": 1, "use_mmap": False,
                                "power": {"source": "none"}, "idle_s": 0.0})
    assert not r["ok"] and r["error"]["type"] == "bad_option" and "use_mmap" in r["error"]["message"]
    assert agent.call("ping")["ok"]
    # the next generation goes to the standby child the agent forked after that one ended (children.py)
    r = agent.call("generate", {"runtime": "onnxruntime-genai", "artifact": {"path": str(folder)},
                                "prompt_tokens": 4, "gen_tokens": 2, "repetitions": 1, "threads": 1,
                                "power": {"source": "none"}, "idle_s": 0.0})
    assert r["ok"], r
    reply = GenerateReply.from_dict(r["result"])
    assert [len(x.token_ns) for x in reply.repetitions] == [2] and reply.power is None
    assert reply.power_reason is not None and "power: {source: none}" in reply.power_reason
    assert generation_of(reply).energy_reason == reply.power_reason
    agent.close()


def test_agentlink_generate_with_events_and_the_host_s_section(tmp_path, tiny_gguf):
    """The host's side of the op: AgentLink.generate sends the typed request and reads the typed reply (the
    per-token times packed), the progress events reach the caller, and generation_of gives the section with its
    energy from the board tree's constant power."""
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed (pip install 'edgeprof[llamacpp]')")
    from edgeprof.agentlink import AgentLink
    from edgeprof.records import Device
    from edgeprof.transport.local import LocalTransport
    from edgeprof_agent.messages import ArtifactRef, GenerateRequest, PowerConfig

    board = tmp_path / "rpi4-ina219"
    shutil.copytree(REPO / "tests" / "data" / "boards" / "rpi4-ina219", board, symlinks=True)
    device = Device(name="pi4", kind="local", workdir=str(tmp_path / "wd"), python=sys.executable,
                    sysfs_root=str(board))
    events = []
    req = GenerateRequest(runtime="llama.cpp", artifact=ArtifactRef(path=str(tiny_gguf("q4_0")), format="gguf"),
                          precision="q4_0", prompt_tokens=16, gen_tokens=4, repetitions=2, threads=1,
                          extra_buffers=False, power=PowerConfig(source="hwmon", rate_hz=100.0), idle_s=0.0)
    with AgentLink.open(LocalTransport(), device, agent_cache=tmp_path / "ac") as link:
        reply = link.generate(req, on_event=events.append, timeout=60.0, silence_by_phase={"measure": 60.0})
    assert isinstance(reply, GenerateReply) and [len(r.token_ns) for r in reply.repetitions] == [4, 4]
    assert [e.n for e in events if getattr(e, "phase", None) == "measure"] == [1, 2]
    g = generation_of(reply)
    assert g.energy is not None and g.energy.j_per_token == pytest.approx(
        WATTS * g.energy.decode_s / (2 * 3), rel=1e-9)
