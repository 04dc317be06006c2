"""Android phones over adb (docs/phones.md): no agent; LiteRT's benchmark_model pushed and run with `adb shell`,
battery power and thermal state read from sysfs and dumpsys on the phone.

  device.py     open the adb transport for a devices.yaml phone; the phone's facts for `devices check`
  benchmark.py  benchmark_model's command line and the parsing of what it prints
  session.py    PhoneSession: the run.execute.Session a phone plugs in as
Nothing here has run on a real phone: it is tested against the stand-in phone in tests/phone.
"""
