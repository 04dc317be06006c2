"""Which devices there are and which host keys are trusted: devices.yaml → Device records (`devices.py`) and
OpenSSH known_hosts files, read, matched and written (`known_hosts.py`).

Does not own: reading YAML safely (files/config.py), connecting (transport/), checking a device and the trust
workflow (lab/onboarding.py).
"""
