#!/usr/bin/env bash
# System packages the tests use: OpenSSH server (real sshd test hosts on loopback), Chromium (the HTML report
# is rendered in headless Chromium: tests/integration/test_report_browser.py) and PostgreSQL (the lab queue's
# tests start their own server: tests/pg.py).
# Installs them with apt-get when run as root and they are missing; otherwise says what to install.
set -euo pipefail
missing=()
command -v sshd >/dev/null 2>&1 || [ -x /usr/sbin/sshd ] || missing+=(openssh-server)
command -v ssh-keygen >/dev/null 2>&1 || missing+=(openssh-client)
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || missing+=(chromium)
command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
# the lab queue tests start their own PostgreSQL server (tests/pg.py)
ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || command -v pg_ctl >/dev/null 2>&1 || missing+=(postgresql)
# the phone tests (tests/phone): Debian's adb client (29) against a stand-in adbd; mksh is Android's shell
[ -x /usr/bin/adb ] || missing+=(adb)
command -v mksh >/dev/null 2>&1 || missing+=(mksh)
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "edgeprof setup: apt-get install ${missing[*]}"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
    echo "edgeprof setup: the SSH and browser tests need: ${missing[*]} — install them" \
         "(sudo apt-get install ${missing[*]}); until then those tests are skipped" >&2
fi
