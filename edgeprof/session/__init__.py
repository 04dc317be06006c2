"""The device seam: every kind of device and every kind of measurement plugs in here (docs/architecture.md).

  session.py   DeviceSession: one device's measurer, connection, lease and facts, opened once and used by deploy,
               --find-max-rate, a sweep's board and a queue worker alike; the device's kind is asked here only
  measurer.py  Measurer: what a device kind offers (connect, lease, facts, abort, close)
  agent.py     the agent over a Transport (this machine, SSH boards) + the forward-pass kind on it (run/)
  phone.py     benchmark_model over adb (phones) + the forward-pass kind on it (phone/measure.py)
  deploy.py    deploy(spec, session or device): one measurement handed to the device's measurer; the Result
  kinds.py     measurement kinds (forward-pass, generation: generation.py), the spec's kind, a kind's method per
               measurer, what deploy takes for each kind (its flags, precisions, the spec hook)

Does not own: the pipeline's steps (run/), the agent's protocol (agentlink/), transports (transport/), the phone's
adb mechanics (phone/), sweeps (lab/).
"""

from .deploy import deploy
from .kinds import FORWARD_PASS, KINDS, Job, MeasurementKind, Method, from_args, kind_of, register
from .measurer import Lease, Measurer
from .session import DeviceSession, measurer_class, measurer_for, refusal

__all__ = ["FORWARD_PASS", "KINDS", "DeviceSession", "Job", "Lease", "MeasurementKind", "Measurer", "Method",
           "deploy", "from_args", "kind_of", "measurer_class", "measurer_for", "refusal", "register"]
