"""deploy() with the typed protocol: it builds a messages.RunRequest, reads a typed RunReply, returns the Result
without storing it, and takes already-read facts (a sweep reads a board's facts once). Local transport, the
null runtime: no model, no export."""

import inspect
import sys

import pytest
from test_messages import _python36  # tests/unit is on sys.path (rootdir-less test modules)

from edgeprof import run as measurement
from edgeprof import session as seam
from edgeprof.agentlink import AgentLink
from edgeprof.errors import CapabilityError as ErrorsCapabilityError
from edgeprof.records import BoardFacts, Device, RunSpec
from edgeprof.session import DeviceSession
from edgeprof.transport.local import LocalTransport
from edgeprof_agent import PROTOCOL_VERSION
from edgeprof_agent.messages import Facts, RunRequest


def dev(tmp_path, python=None):
    return Device(name="bench-1", kind="local", workdir=str(tmp_path / "wd"), python=python or sys.executable)


def spec(**kw):
    kw.setdefault("min_duration_s", 0.05)
    kw.setdefault("min_queries", 20)
    kw.setdefault("warmup_s", 0.0)
    kw.setdefault("idle_s", 0.0)
    return RunSpec(device="bench-1", model="none", runtime="null", **kw)


def test_capability_error_lives_in_errors_and_runner_keeps_the_name():
    assert measurement.CapabilityError is ErrorsCapabilityError


def test_deploy_returns_the_result_and_stores_nothing(tmp_path):
    assert "store" not in inspect.signature(seam.deploy).parameters
    r = seam.deploy(spec(max_queries=None), dev(tmp_path))  # no cap: the null runtime is fast enough to hit it
    assert r.status == "ok" and len(r.samples_ms) >= 20
    assert r.settings.stopped_by == "min_duration and min_queries met"
    assert r.environment.fact("protocol") == PROTOCOL_VERSION == 11 and r.environment.clock


def test_given_facts_are_not_read_again(tmp_path, monkeypatch):
    d = dev(tmp_path)
    with AgentLink.open(LocalTransport(), d) as link:
        facts = link.facts(runtimes=False)
    assert isinstance(facts, Facts)

    def no_second_read(self, *a, **kw):
        raise AssertionError("deploy read the facts again")

    monkeypatch.setattr(AgentLink, "facts", no_second_read)
    for given in (facts, Facts.from_dict(facts.to_dict())):  # the record, or one read back from its dict
        with DeviceSession(d, keep=False, facts=given) as session:
            r = seam.deploy(spec(), session)
        assert r.environment.device == BoardFacts.from_record(facts)
    with pytest.raises(Exception, match="facts reply: unknown field 'colour'"):  # a dict is typed before use
        Facts.from_dict(dict(facts.to_dict(), colour="blue"))


def test_the_run_request_carries_every_setting(tmp_path):
    s = spec(batch=2, threads=3, seed=7, max_queries=500, cooldown_c=40.0, cooldown_timeout_s=30.0,
             power_rate_hz=50.0, runtime_options={"x": 1})
    d = Device(name="b", kind="local", workdir="/w", power={"source": "hwmon"})
    req = measurement.run_request(s, d, None, None, [], return_outputs=True, profile_ops=True, lease_token="tok")
    assert isinstance(req, RunRequest)
    assert (req.batch, req.threads, req.seed, req.max_queries) == (2, 3, 7, 500)
    assert (req.cooldown_c, req.cooldown_timeout_s, req.idle_s) == (40.0, 30.0, 0.0)
    assert req.power == {"source": "hwmon", "rate_hz": 50.0}
    assert req.return_outputs == "base64" and req.lease_token == "tok"
    assert req.profile_ops is False  # the null runtime has no ops to profile
    assert RunRequest.from_dict(req.to_dict()) == req  # what the agent parses is what the host built


def test_the_agent_serves_under_python36(tmp_path):
    py36 = _python36()
    if py36 is None:
        pytest.skip("no Python 3.6 interpreter here")
    d = dev(tmp_path, python=py36)
    with AgentLink.open(LocalTransport(), d, agent_cache=tmp_path / "ac") as link:
        assert link.hello.python.startswith("3.6.")
        assert link.facts(runtimes=False).python.startswith("3.6.")
    r = seam.deploy(spec(), d)
    assert r.status == "ok" and len(r.samples_ms) >= 20
