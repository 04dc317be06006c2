"""`predict` and `calibrate --import` never connect and never run a model on a device (issue 37): the tests that
say so make every socket connect and every deploy through the device seam fail the test."""

from __future__ import annotations

import socket

import pytest


def no_device_or_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any socket connect or any deploy now fails the test (AssertionError)."""
    def refuse(*a: object, **k: object) -> None:
        raise AssertionError("predict tried to connect or to run the model on a device")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    import edgeprof.session as seam

    monkeypatch.setattr(seam, "deploy", refuse)
