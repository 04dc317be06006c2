from edgeprof.cli.ui import _drop_last_group


def test_long_reason_keeps_labels_and_drops_the_details_group():
    reason = ("no power sensor found: looked for INA3221 (i2c), NVML, RAPL (INA3221 (i2c): none; RAPL: no zones "
              "(root only)). For an external meter set power: {source: command} in devices.yaml")
    short = _drop_last_group(reason)
    assert short == ("no power sensor found: looked for INA3221 (i2c), NVML, RAPL. For an external meter set "
                     "power: {source: command} in devices.yaml")
    assert _drop_last_group("plain text") == "plain text"
