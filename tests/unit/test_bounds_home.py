"""Each bound more than one place checks has one home: edgeprof/vocab.py for the host's (the table's `hi`, deploy's
worded checks in run/validate.py, devices.yaml's and the flags' rules in config.py and inventory.py, a sweep file's
rates and the max-rate search import it), agents/edgeprof_agent/vocab.py for those host and agent both apply (the
agent cannot import edgeprof; the host imports them through edgeprof/vocab.py). A second literal of one of them
anywhere in edgeprof/ or agents/ fails here, naming its line; and every checker is exercised at the bound (the bound
passes, just past it is refused with the bound in the message)."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

from edgeprof import vocab
from edgeprof.errors import ConfigError
from edgeprof.records import RunSpec

REPO = Path(__file__).resolve().parents[2]
HOME = "edgeprof/vocab.py"
AGENT_HOME = "agents/edgeprof_agent/vocab.py"

# the shared bound -> the words (any case) of a statement that would be writing it again (None: its value alone
# says so)
SUBJECTS: dict[str, str | None] = {
    "MAX_STREAMS": r"streams",
    "MAX_COOLDOWN_C": r"cooldown",
    "POWER_RATE_MAX_HZ": r"rate_hz|power_rate",
    "MAX_RATE_QPS": r"rate|qps|value",
    "MAX_RUN_S": None,
    "MIN_OPSET": r"opset",
    "MAX_OPSET": r"opset",
    "SERVER_MIN_QUERIES": None,
    "MAX_BACKOFF_S": r"backoff",  # the sweep policy's retry_backoff_s and lab/cell_decisions.py's longest wait
    "LEASE_TTL_S": r"(?<![a-z])ttl",  # host and agent (not "settle")
    "PROGRESS_S": r"progress",  # host and agent
}
HOMES = {"LEASE_TTL_S": AGENT_HOME, "PROGRESS_S": AGENT_HOME}  # the others': HOME


def _number(node: ast.AST) -> float | None:
    """The value of a numeric literal, or of arithmetic on literals only (`7 * 86400`); else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _number(node.operand)
        return -v if v is not None else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult | ast.Add | ast.Pow | ast.Sub):
        a, b = _number(node.left), _number(node.right)
        if a is None or b is None:
            return None
        return {ast.Mult: a * b, ast.Add: a + b, ast.Sub: a - b}.get(type(node.op), a ** b if b < 64 else None)
    return None


def _own_nodes(stmt: ast.stmt) -> list[ast.AST]:
    """The expressions of `stmt` itself, not of the statements nested in it (a function's body is judged line by
    line, each with its own words)."""
    out: list[ast.AST] = []
    todo: list[ast.AST] = [c for c in ast.iter_child_nodes(stmt) if not isinstance(c, ast.stmt)]
    while todo:
        node = todo.pop()
        out.append(node)
        todo.extend(c for c in ast.iter_child_nodes(node) if not isinstance(c, ast.stmt))
    return out


def _text_has(text: str, value: float) -> bool:
    return re.search(rf"(?<![\d.]){re.escape(f'{value:g}')}(?![\d])", text) is not None


def second_literals(source: str, path: str) -> list[str]:
    """Where `source` writes one of the shared bounds again: a comparison, a `hi=` / `lo=` / `cap=` argument, an
    upper-case constant, or an error message with its number, in a statement about the bound's subject. The home's
    own `NAME = value` line is the one place allowed."""
    bounds = {name: float(getattr(vocab, name)) for name in SUBJECTS}
    found: set[str] = set()
    for stmt in ast.walk(ast.parse(source)):
        if not isinstance(stmt, ast.stmt):
            continue
        own = _own_nodes(stmt)
        stmt_text = " ".join(ast.unparse(n) for n in own if isinstance(n, ast.expr | ast.arg))
        for name, value in bounds.items():
            subject = SUBJECTS[name]
            if subject is not None and not re.search(subject, stmt_text, re.I):
                continue
            if path == HOMES.get(name, HOME) and isinstance(stmt, ast.Assign) \
                    and [ast.unparse(t) for t in stmt.targets] == [name]:
                continue  # the home
            where = f"{path}:{stmt.lineno} {name} ({value:g})"
            if isinstance(stmt, ast.Assign | ast.AnnAssign) and _number(stmt.value) == value and \
                    any(ast.unparse(t).isupper() for t in (stmt.targets if isinstance(stmt, ast.Assign) else
                                                          [stmt.target])):
                found.add(f"{where}: a constant of its own")
            for node in own:
                if isinstance(node, ast.Compare) and any(_number(n) == value for n in [node.left, *node.comparators]):
                    found.add(f"{where}: compared with a literal")
                elif isinstance(node, ast.keyword) and node.arg in ("hi", "lo", "cap") and _number(node.value) == value:
                    found.add(f"{where}: {node.arg}= a literal")
                elif isinstance(node, ast.arguments):  # a parameter's default
                    params = [*node.posonlyargs, *node.args]
                    named = list(zip(params[len(params) - len(node.defaults):], node.defaults, strict=True)) + \
                        [(a, d) for a, d in zip(node.kwonlyargs, node.kw_defaults, strict=True) if d is not None]
                    if any(_number(d) == value and re.search(subject or ".", a.arg, re.I) for a, d in named):
                        found.add(f"{where}: a parameter's default")
            if isinstance(stmt, ast.Raise) and any(
                    isinstance(n, ast.Constant) and isinstance(n.value, str) and _text_has(n.value, value)
                    for n in own):
                found.add(f"{where}: its number in the message")
    return sorted(found)


def _sources() -> list[Path]:
    return sorted(p for root in ("edgeprof", "agents") for p in (REPO / root).rglob("*.py") if "fakes" not in p.parts)


def test_no_shared_bound_is_written_twice():
    found = [hit for p in _sources() for hit in second_literals(p.read_text(), str(p.relative_to(REPO)))]
    assert not found, "import the bound from edgeprof/vocab.py instead:\n" + "\n".join(found)


@pytest.mark.parametrize("snippet", [
    "if not 1 <= spec.streams <= 64:\n    pass\n",
    "raise ConfigError(f'--streams {spec.streams}: must be between 1 and 64')\n",
    "MAX_RATE = 100000.0\n",
    "if not 0 < value <= 100000:\n    pass\n",
    "MAX_COOLDOWN_C = 150.0\n",
    "MAX_BACKOFF_S = 3600.0\n",
    "retry_backoff_s = _setting('number', 5.0, 'x', lo=0, hi=3600)\n",
    "POWER_RATE_MAX_HZ = 1000.0\n",
    "power_rate_hz = _setting('number', None, 'x', lo=0, hi=1000)\n",
    "timeout_s = _setting('duration', 900.0, 'x', hi=7 * 86400)\n",
    "opset = _setting('int', None, 'x', lo=15, hi=21)\n",
    "early = e if n >= 662 else None\n",
    "DEFAULT_TTL_S = 120.0\n",
    "def warm_up(run, warmup_s, progress_interval_s=0.5):\n    pass\n",
    "def f(*, lease_ttl_s=120.0):\n    pass\n",
])
def test_the_guard_finds_a_second_literal(snippet):
    assert second_literals(snippet, "edgeprof/elsewhere.py"), snippet


def test_the_guard_leaves_the_home_and_unrelated_numbers_alone():
    assert second_literals("MAX_STREAMS = 64\nMAX_RUN_S = 7 * 86400.0\n", HOME) == []
    assert second_literals("LEASE_TTL_S = 120.0\nPROGRESS_S = 0.5\n", AGENT_HOME) == []
    assert second_literals("LEASE_TTL_S = 120.0\n", HOME)  # a host bound's home is not the shared one's
    assert second_literals("bound_ms = 1000.0 / rate\nif attempt > 64:\n    pass\nwidth = 150\n"
                           "QUERY_SILENCE_S = 120.0\ndef facts(self, timeout=120.0):\n    pass\n",
                           "edgeprof/elsewhere.py") == []


def test_the_table_and_the_other_checkers_take_the_home():
    from edgeprof.analysis import maxrate
    from edgeprof.export import onnx_export
    from edgeprof.files import config
    from edgeprof.inventory import devices as inventory
    from edgeprof.lab import cell_decisions as decide
    from edgeprof.run.validate import MAX_COOLDOWN_C, MAX_POWER_RATE_HZ

    s = vocab.SETTINGS
    assert s["streams"].hi == vocab.MAX_STREAMS and s["cooldown_c"].hi == vocab.MAX_COOLDOWN_C
    assert s["power_rate_hz"].hi == vocab.POWER_RATE_MAX_HZ == config.OTHER_NUMBERS["power_rate_hz"][2]
    assert inventory.POWER_NUMBERS["rate_hz"][1] == vocab.POWER_RATE_MAX_HZ
    assert MAX_COOLDOWN_C == vocab.MAX_COOLDOWN_C and MAX_POWER_RATE_HZ == vocab.POWER_RATE_MAX_HZ
    assert maxrate.MAX_RATE == vocab.MAX_RATE_QPS
    assert (s["opset"].lo, s["opset"].hi) == (onnx_export.MIN_OPSET, onnx_export.MAX_OPSET) \
        == (vocab.MIN_OPSET, vocab.MAX_OPSET)
    assert s["duration_s"].hi == vocab.MAX_SCHEDULE_S == vocab.MAX_RUN_S
    assert vocab.POLICY["timeout_s"].hi == vocab.POLICY["lease_wait_s"].hi == vocab.MAX_RUN_S
    assert vocab.POLICY["retry_backoff_s"].hi == vocab.MAX_BACKOFF_S == decide.MAX_BACKOFF_S


def test_the_server_minimum_is_what_the_early_stopping_p99_needs():
    from edgeprof.analysis import stats

    assert stats.min_queries_for(0.99) == vocab.SERVER_MIN_QUERIES
    few = stats.latency_summary([1.0] * (vocab.SERVER_MIN_QUERIES - 1))
    enough = stats.latency_summary([1.0] * vocab.SERVER_MIN_QUERIES)
    assert few.early_stop_p99 is None and enough.early_stop_p99 == 1.0


def _spec(**kw):
    return RunSpec(device="local", model="ds_cnn", runtime="null", **kw)


def test_streams_at_and_past_the_bound():
    from edgeprof.run.validate import validate_scenario

    validate_scenario(_spec(scenario="offline", streams=vocab.MAX_STREAMS))
    with pytest.raises(ConfigError, match=rf"--streams {vocab.MAX_STREAMS + 1}: must be between 1 and "
                                          rf"{vocab.MAX_STREAMS}$"):
        validate_scenario(_spec(scenario="offline", streams=vocab.MAX_STREAMS + 1))
    assert vocab.SETTINGS["streams"].check(vocab.MAX_STREAMS) is None
    assert vocab.SETTINGS["streams"].check(vocab.MAX_STREAMS + 1) == f"must be <= {vocab.MAX_STREAMS}"


def test_cooldown_and_power_rate_at_and_past_the_bound():
    from edgeprof.run.validate import validate_telemetry

    validate_telemetry(_spec(cooldown_c=vocab.MAX_COOLDOWN_C, power_rate_hz=vocab.POWER_RATE_MAX_HZ))
    with pytest.raises(ConfigError, match=rf"between 0 and {vocab.MAX_COOLDOWN_C:g}"):
        validate_telemetry(_spec(cooldown_c=vocab.MAX_COOLDOWN_C + 0.5))
    with pytest.raises(ConfigError, match=rf"<= {vocab.POWER_RATE_MAX_HZ:g} Hz"):
        validate_telemetry(_spec(power_rate_hz=vocab.POWER_RATE_MAX_HZ * 1.01))


def test_a_sweep_rate_at_and_past_the_bound(tmp_path):
    from edgeprof.lab.spec import parse_sweep

    head = "models: [ds_cnn]\ndevices: [local]\nscenarios: [fixed-rate]\n"
    spec = parse_sweep(head + f"rates: [{vocab.MAX_RATE_QPS:g}]\n", str(tmp_path / "s.yaml"))
    assert spec.rates == [vocab.MAX_RATE_QPS]
    with pytest.raises(ConfigError, match=rf"rates\[0\]: a rate in queries per second \(> 0, <= "
                                          rf"{vocab.MAX_RATE_QPS:g}\)"):
        parse_sweep(head + f"rates: [{vocab.MAX_RATE_QPS * 2:g}]\n", str(tmp_path / "s.yaml"))


def test_devices_yaml_power_rate_past_the_bound(tmp_path):
    from edgeprof.inventory.devices import load_inventory

    path = tmp_path / "devices.yaml"
    path.write_text(f"version: 1\ndevices:\n  b:\n    host: localhost\n    power: {{source: hwmon, rate_hz: "
                    f"{vocab.POWER_RATE_MAX_HZ * 2:g}}}\n")
    with pytest.raises(ConfigError, match=rf"power.rate_hz.*{vocab.POWER_RATE_MAX_HZ:g}"):
        load_inventory(str(path))



def test_the_bounds_host_and_agent_share_are_the_agents():
    """The agent cannot import edgeprof: a bound both apply lives in its vocab and the host takes it from there."""
    import edgeprof_agent.lease
    import edgeprof_agent.scenarios
    import edgeprof_agent.vocab
    import edgeprof_agent.worker
    from edgeprof.agentlink import lease

    assert vocab.LEASE_TTL_S is edgeprof_agent.vocab.LEASE_TTL_S
    assert lease.DEFAULT_TTL_S == edgeprof_agent.lease.DEFAULT_TTL_S == edgeprof_agent.vocab.LEASE_TTL_S
    assert edgeprof_agent.scenarios.PROGRESS_NS == int(edgeprof_agent.vocab.PROGRESS_S * 1e9)
    for loop in (edgeprof_agent.worker.warm_up, edgeprof_agent.worker.timed_loop):
        assert inspect.signature(loop).parameters["progress_interval_s"].default == vocab.PROGRESS_S
