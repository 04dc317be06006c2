"""`edgeprof devices list | check | trust`: the lab inventory, device health and host key trust.

Owns: parsing these commands and printing their answers (tables or JSON). The work is done by inventory (list),
devices.check_devices (check) and devices.fetch_host_key / record_trust (trust).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rich.markup import escape

from edgeprof_agent.messages import Facts

from ..errors import ConfigError, HostKeyError
from ..inventory.devices import Inventory, load_inventory
from ..records import Device, dumps_json, local_device
from ..records.device import PhonePower
from .common import add_db_args, add_inventory_args, open_store
from .ui import err, out, shown

EPILOG = """\
examples:
  edgeprof devices list                        the inventory (devices.yaml) as a table
  edgeprof devices check                       reach every board: SSH, Python, agent facts (stored)
  edgeprof devices check jetson-nano --json    one board, machine-readable
  edgeprof devices trust jetson-nano           show its host key fingerprint and record it after you confirm
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("devices", help="list, check and trust the boards in devices.yaml",
                       description="The device lab: the inventory, a health check of each board, and SSH host "
                                   "key trust.", epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    dsub = p.add_subparsers(dest="devices_command", metavar="SUBCOMMAND")
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])

    lp = dsub.add_parser("list", help="show the inventory")
    add_inventory_args(lp)
    lp.add_argument("--json", action="store_true", help="print the devices as JSON")
    lp.set_defaults(func=run_list)

    cp = dsub.add_parser("check", help="reach devices and collect their facts (in parallel)",
                         description="Per device: reachable, authenticated, remote Python (>= 3.6), then through "
                                     "the agent: arch, OS, kernel, JetPack/L4T, CPU, memory, free disk in the "
                                     "workdir, runtimes, power sources, GPU. Facts are stored in the results "
                                     "database with a timestamp.")
    cp.add_argument("names", nargs="*", metavar="NAME", help="devices to check (default: all in the inventory)")
    add_inventory_args(cp)
    add_db_args(cp)
    cp.add_argument("--json", action="store_true", help="print the results as JSON")
    cp.add_argument("--no-store", action="store_true", help="do not store the facts")
    cp.set_defaults(func=run_check)

    tp = dsub.add_parser("trust", help="record a device's SSH host key after showing its fingerprint",
                         description="Connects, shows the host key fingerprint and records it in the device's "
                                     "known_hosts file (its lab file if devices.yaml names one, else "
                                     "~/.ssh/known_hosts). Compare the fingerprint with the one printed on the "
                                     "board (ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub) before accepting.")
    tp.add_argument("name", metavar="NAME")
    add_inventory_args(tp)
    tp.add_argument("--yes", action="store_true", help="record without asking (for scripts)")
    tp.add_argument("--replace", action="store_true",
                    help="replace a recorded key that CHANGED (only after verifying the new one on the board)")
    tp.set_defaults(func=run_trust)


# -- list -------------------------------------------------------------------------------------------------------


def _power(d: Device) -> str:
    """The power column: a board's source (auto when devices.yaml names none), rail and rate; a phone's battery."""
    if d.phone is not None:
        phone = d.phone.power or PhonePower()
        source, rail, rate = phone.measured, None, phone.rate_hz
    else:
        cfg = d.power_config()
        if cfg is None:
            return "auto"
        source, rail, rate = cfg.source or "auto", cfg.rail, cfg.rate_hz
    return " ".join([source, *([rail] if rail else []), *([f"{rate:g} Hz"] if rate else [])])


def run_list(args: argparse.Namespace) -> int:
    inv = load_inventory(args.inventory)
    devices = [local_device(), *inv.devices]
    if args.json:
        print(dumps_json({"inventory": inv.path, "devices": [d.to_dict() for d in devices]}, indent=2))
        return 0
    from rich.table import Table

    source = inv.path or "none found (" + ", ".join(inv.searched) + ")"
    t = Table(title=f"inventory: {source}", title_justify="left")
    for col in ("name", "host:port", "user", "python", "workdir", "tags", "power", "via"):
        t.add_column(col)
    from ..session import measurer_class

    for d in devices:  # each device kind's row (session/agent.py: this machine, SSH; session/phone.py: adb)
        t.add_row(*measurer_class(d).inventory_row(d, _power(d)))
    out.print(t)
    return 0


# -- check ------------------------------------------------------------------------------------------------------


def _select(inv: Inventory, names: list[str]) -> list[Device]:
    if names:
        return [inv.get(n) for n in dict.fromkeys(names)]
    if not inv.devices:
        raise ConfigError("no devices to check: " + (f"{inv.path} lists none" if inv.path else
                          "no devices.yaml found (looked in " + ", ".join(inv.searched) + ")"),
                          hint="add boards to devices.yaml (see docs/devices.md), or run: edgeprof devices check local")
    return inv.devices


def _mb(v: Any) -> str:
    if not isinstance(v, int | float):
        return "-"
    return f"{v / 1024:.1f} GB" if v >= 1024 else f"{v:.0f} MB"


def _runtimes(f: Facts) -> str:
    out_ = []
    for name, info in sorted((f.runtimes or {}).items()):
        if info.error is not None or name == "numpy":
            continue
        provs = [p.replace("ExecutionProvider", "") for p in info.providers or [] if p != "AzureExecutionProvider"]
        if info.cuda is not None:  # onnxruntime-genai: its build's CUDA (og.is_cuda_available())
            provs.append("CUDA" if info.cuda else "no CUDA")
        out_.append(f"{name} {info.version}" + (f" ({','.join(provs)})" if provs else ""))
    return "\n".join(out_) or "none"


def _power_sources(f: Facts) -> str:
    """Available power sources (with rails when known); unavailable ones are listed by `--json` with reasons."""
    if not f.power_sources:
        return "none"
    found = []
    for x in f.power_source_facts():
        if x.available is False:
            continue
        extra = f" ({', '.join(map(str, x.rails))})" if x.rails else ""
        found.append(f"{x.source if x.source is not None else '?'}{extra}")
    return "\n".join(found) or "none found"


def _gpus(f: Facts) -> str:
    if not f.gpus:
        return "-" if f.gpus_error is None else f"? ({f.gpus_error})"
    return "\n".join(str(g["name"]) if "name" in g else str(g) for g in f.gpus)


def run_check(args: argparse.Namespace) -> int:
    from ..lab.onboarding import check_devices

    inv = load_inventory(args.inventory)
    devices = _select(inv, args.names)
    from ..session import measurer_class

    phones = [d for d in devices if measurer_class(d).check_group == "phones"]  # edgeprof/phone/onboarding.py
    devices = [d for d in devices if measurer_class(d).check_group != "phones"]
    if phones:
        return _check_phones(args, devices, phones)
    save = None
    if not args.no_store:
        store = open_store(args.db)
        save = store.save_facts
    if not args.json:
        err.print(f"checking {len(devices)} device(s): {shown(', '.join(d.name for d in devices))}")
    results = check_devices(devices, save_facts=save)
    failed = [r for r in results if not r.ok]
    if args.json:
        print(dumps_json([r.to_dict() for r in results], indent=2))
        return 3 if failed else 0
    from rich.table import Table

    t = Table(title="devices check", title_justify="left")
    for col in ("device", "address", "ssh", "python", "arch", "OS / kernel", "L4T", "CPU", "memory",
                "disk free", "runtimes", "power", "GPU"):
        t.add_column(col)
    mark = {True: "[green]ok[/green]", False: "[red]no[/red]", None: "-"}
    for r in results:
        f = r.facts
        ssh = "n/a" if r.address == "this machine" else (
            "ok" if r.authenticated else "host key?" if r.stage == "hostkey" else
            "auth failed" if r.reachable else "unreachable")
        ssh = mark[True] if ssh == "ok" else ssh if ssh == "n/a" else f"[red]{ssh}[/red]"
        if f is None:
            t.add_row(shown(r.device), shown(r.address), ssh, shown(r.python or "-"), *["-"] * 9)
            continue
        said = (f.arch, f"{f.os}\n{f.kernel}".strip(), f.l4t.release if f.l4t is not None else "-",
                f"{f.cpu} ×{f.cores or '?'}", _mb(f.memory_mb), _mb(f.disk_free_mb), _runtimes(f), _power_sources(f),
                _gpus(f))  # the board's words: shown as text, never as markup
        t.add_row(shown(r.device), shown(r.address), ssh, shown(r.python or "-"), *(escape(str(x)) for x in said))
    out.print(t)
    for r in results:
        if r.error:
            out.print(f"[red]{shown(r.device)}[/red]: {shown(r.error)}", soft_wrap=True)
            if r.detail:
                for line in r.detail.rstrip().splitlines()[-10:]:
                    out.print(f"    {line}", soft_wrap=True, markup=False)
    saved = [r for r in results if r.facts_saved_at]
    if saved:
        err.print(f"facts stored for {shown(', '.join(r.device for r in saved))} at {saved[0].facts_saved_at}")
    return 3 if failed else 0


def _check_phones(args: argparse.Namespace, boards: list[Device], phones: list[Device]) -> int:
    """Boards as without phones, then the phones' own table (their facts are not stored yet)."""
    from ..phone.onboarding import COLUMNS, check_phones, rows

    code = 0
    board_json: list[dict[str, Any]] = []
    if boards and args.json:
        from ..lab.onboarding import check_devices

        board_results = check_devices(boards, save_facts=None if args.no_store else open_store(args.db).save_facts)
        board_json = [r.to_dict() for r in board_results]
        code = 3 if any(not r.ok for r in board_results) else 0
    elif boards:
        args.names = [d.name for d in boards]
        code = run_check(args)
    elif not args.json:
        err.print(f"checking {len(phones)} phone(s): {shown(', '.join(d.name for d in phones))}")
    results = check_phones(phones)
    if args.json:
        print(dumps_json(board_json + [r.to_dict() for r in results], indent=2))
    else:
        from rich.table import Table

        t = Table(title="phones check (adb)", title_justify="left")
        for col in COLUMNS:
            t.add_column(col)
        for r in results:
            t.add_row(*rows(r))
        out.print(t)
        for r in results:
            if r.error:
                out.print(f"[red]{shown(r.device)}[/red]: {shown(r.error)}", soft_wrap=True)
    return 3 if code or any(not r.ok for r in results) else 0


# -- trust ------------------------------------------------------------------------------------------------------


def run_trust(args: argparse.Namespace) -> int:
    from ..lab.onboarding import fetch_host_key, record_trust

    inv = load_inventory(args.inventory)
    device = inv.get(args.name)
    offer = fetch_host_key(device)
    where = f"{device.host}:{device.port}"
    if offer.status == "trusted":
        at = offer.matched.where if offer.matched else offer.target
        out.print(f"{device.name} ({where}): host key {offer.keytype} {offer.fingerprint} is already trusted ({at})")
        return 0
    out.print(f"{device.name} ({where}) presents host key [bold]{offer.keytype} {offer.fingerprint}[/bold]")
    if offer.status == "changed":
        old = [k for k in offer.recorded if k.keytype == offer.keytype]
        out.print(f"[red bold]WARNING: this is NOT the key recorded in {old[0].where} ({old[0].fingerprint}).[/]\n"
                  "Someone may be intercepting the connection, or the board was reinstalled. Replace it only "
                  "after checking the new fingerprint on the board's console.")
        if not args.replace:
            record_trust(device, offer)  # raises the loud HostKeyError with the fix
    stem = {"ssh-ed25519": "ed25519", "ssh-rsa": "rsa"}.get(offer.keytype, "ecdsa")
    out.print(f"compare it on the board: ssh-keygen -lf /etc/ssh/ssh_host_{stem}_key.pub")
    if not args.yes:
        if not sys.stdin.isatty():
            raise HostKeyError(f"not recording the host key of {device.name} without confirmation",
                               hint=f"run in a terminal, or pass --yes: edgeprof devices trust {device.name} --yes")
        answer = input(f"record it in {offer.target}? [y/N] ").strip().lower()
        if answer not in ("y", "yes"):
            out.print("not recorded")
            return 1
    rec = record_trust(device, offer, replace=args.replace)
    for gone in rec.removed:
        out.print(f"removed old key {gone.keytype} {gone.fingerprint} ({gone.where})")
    out.print(f"recorded {offer.host_id} {offer.keytype} {offer.fingerprint} in {rec.path}"
              if rec.added else f"already recorded in {rec.path}")
    for stale in rec.stale_elsewhere:
        out.print(f"[yellow]note[/yellow]: {stale.where} still holds the old key; remove it with "
                  f"ssh-keygen -R '{offer.host_id}' -f {stale.path}")
    return 0
