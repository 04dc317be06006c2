"""Android phones over adb (docs/phones.md): no agent; LiteRT's benchmark_model (and, for generative .litertlm
models, LiteRT-LM's litert_lm_main) pushed and run with `adb shell`,
battery power (or a Pixel's ODPM power rails) and thermal state read from sysfs and dumpsys on the phone.

  facts.py      the phone's facts, read over adb (transport/adb.open_adb opens the connection)
  benchmark.py  benchmark_model's command line and the parsing of what it prints (delegated-op counts among it)
  rails.py      the on-device power rails (ODPM energy meters): read before and after, per rail and their sum
  runner.py     PhoneRunner: files pushed by content, one benchmark_model run (PhoneRun)
  result.py     a PhoneRun as a stored Result (schema 8): each number where it came from, the absent ones and why
  measure.py    one forward-pass measurement from a RunSpec to a Result; what a phone refuses
  litertlm.py   the generation kind: a .litertlm measured by LiteRT-LM's litert_lm_main (the tool's own figures)
  phases.py     energy per phase of a tool's run: its printed durations laid on the phone clock, the battery
                trace integrated over the prefill (TTFT) and decode windows
  lease.py      PhoneLease: a lock directory on the phone so two controllers never measure it at once
  onboarding.py `edgeprof devices check` for phones
A phone plugs in at the device seam: its measurer (edgeprof/session/phone.py) holds the adb connection, the lease
and the facts, and takes these steps for deploy, sweeps and queue workers alike. Nothing here imports session/, lab/ or cli/.
Nothing here has run on a real phone: it is tested against the stand-in phone in tests/phone.
"""
