"""SSH authentication and host key errors: public keys only (identity_file, then ssh-agent, then ~/.ssh/id_*;
never passwords), the host key types asked for first, and the one-line error for a host key not trusted.

Owns: authenticate, load_key, prefer_key_types, host_key_error.
Does not own: the connection (ssh.py) or known_hosts files (inventory/known_hosts.py).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import paramiko

from ..errors import HostKeyError, TransportError
from ..inventory.known_hosts import Verdict

DEFAULT_KEY_FILES = ("~/.ssh/id_ed25519", "~/.ssh/id_ecdsa", "~/.ssh/id_rsa")


def authenticate(t: paramiko.Transport, user: str | None, host: str, identities: list[str], label: str, *,
                 port: int, source: str | None = None) -> None:
    """Public-key authentication: identity files given, then ssh-agent, then ~/.ssh/id_*. Never passwords."""
    import getpass

    username = user or getpass.getuser()
    tried: list[str] = []
    explicit: list[str] = []
    for ident in identities:
        path = os.path.expanduser(ident)
        if not os.path.isfile(path):
            where = f" ({source})" if source else ""
            raise TransportError(f"{label}: identity_file {ident} does not exist{where}",
                                 hint="fix the path, or remove it to use ssh-agent / ~/.ssh keys")
        explicit.append(path)
    files = explicit + [os.path.expanduser(p) for p in DEFAULT_KEY_FILES]

    def attempt(key: paramiko.PKey, what: str) -> bool:
        try:
            remaining = t.auth_publickey(username, key)
        except paramiko.BadAuthenticationType as e:
            raise TransportError(
                f"{label}: the server does not accept public keys (it allows: {', '.join(e.allowed_types)})",
                hint="edgeprof never uses passwords: enable PubkeyAuthentication in the board's sshd_config"
            ) from None
        except paramiko.AuthenticationException:
            tried.append(f"{what} {key.fingerprint} rejected")
            return False
        except (paramiko.SSHException, EOFError, OSError) as e:
            raise TransportError(f"{label}: connection dropped during authentication "
                                 f"(tried {'; '.join(tried + [what]) }): {e}") from None
        if remaining:
            raise TransportError(f"{label}: the server wants more authentication ({', '.join(remaining)}) "
                                 "after the key", hint="edgeprof supports public-key authentication only")
        return True

    # 1. identity_file from devices.yaml (for a jump host: its IdentityFile in ~/.ssh/config first)
    seen: set[str] = set()
    for path in explicit:
        if path in seen:
            continue
        seen.add(path)
        key = load_key(path, tried)
        if key is not None and attempt(key, f"identity_file {path}"):
            return
    # 2. ssh-agent
    if os.getenv("SSH_AUTH_SOCK"):
        agent = paramiko.Agent()
        try:
            keys = agent.get_keys()
            if not keys:
                tried.append("ssh-agent (holds no keys)")
            for ak in keys:
                if attempt(ak, "ssh-agent key"):
                    return
        finally:
            agent.close()
    else:
        tried.append("ssh-agent (not running: SSH_AUTH_SOCK unset)")
    # 3. default key files
    for path in files:
        if path in seen or not os.path.isfile(path):
            continue
        seen.add(path)
        key = load_key(path, tried)
        if key is not None and attempt(key, path):
            return
    if not any("~/.ssh" in s or "/.ssh/" in s for s in tried):
        tried.append("no ~/.ssh/id_ed25519, id_ecdsa or id_rsa")
    who = f"{username}@{host}"
    raise TransportError(
        f"{label}: authentication failed for user {username!r} — tried: {'; '.join(tried)}",
        hint=f"install your public key on the board (ssh-copy-id -i KEY.pub -p {port} {who}), "
             "set identity_file: in devices.yaml, or load the key into ssh-agent (ssh-add KEY)")

def load_key(path: str, tried: list[str]) -> paramiko.PKey | None:
    try:
        return paramiko.PKey.from_path(path)
    except paramiko.PasswordRequiredException:
        tried.append(f"{path} (encrypted: load it with ssh-add so ssh-agent can use it)")
    except (paramiko.SSHException, ValueError, OSError, TypeError) as e:
        if "password" in str(e).lower():  # paramiko >= 4 raises TypeError for an encrypted OpenSSH key
            tried.append(f"{path} (encrypted: load it with ssh-add so ssh-agent can use it)")
        else:
            tried.append(f"{path} (unreadable: {e})")
    return None


def prefer_key_types(t: paramiko.Transport, recorded: list[str]) -> None:
    """Ask first for host key types already recorded for the host (OpenSSH does the same)."""
    if not recorded:
        return
    opts = t.get_security_options()
    available = list(opts.key_types)
    first: list[str] = []
    for kt in recorded:
        names = ["rsa-sha2-512", "rsa-sha2-256", "ssh-rsa"] if kt == "ssh-rsa" else [kt]
        first.extend(n for n in names if n in available and n not in first)
    if first:
        opts.key_types = first + [k for k in available if k not in first]


def host_key_error(label: str, hid: str, verdict: Verdict, name: str, files: Sequence[str],
                   jump: bool = False) -> HostKeyError:
    """The one-line error for a host key that is not trusted."""
    trust = f"edgeprof devices trust {name}"
    if verdict.status == "revoked":
        assert verdict.matched is not None
        return HostKeyError(f"{label}: host key {verdict.keytype} {verdict.fingerprint} is REVOKED "
                            f"({verdict.matched.where})", hint="do not connect; find out why it was revoked")
    if verdict.status == "changed":
        old = verdict.same_type[0]
        fix = (f"verify the new fingerprint on the board's console (ssh-keygen -lf /etc/ssh/ssh_host_"
               f"{_key_file_stem(verdict.keytype)}_key.pub); if it matches, run: {trust} --replace")
        if jump:
            fix = f"verify it on the jump host, then replace its line in {old.path} (ssh-keygen -R '{hid}')"
        return HostKeyError(
            f"{label}: HOST KEY CHANGED — it now presents {verdict.keytype} {verdict.fingerprint}, but "
            f"{old.where} records {old.fingerprint}. Someone may be intercepting the connection "
            "(man-in-the-middle), or the board was reinstalled", hint=fix)
    other = ""
    if verdict.recorded:
        r = verdict.recorded[0]
        other = f" ({r.where} records only a {r.keytype} key for it)"
    where = " or ".join(files)
    if jump:
        hint = (f"verify the fingerprint on the jump host, then add it to {files[0]} (ssh -p PORT host once, "
                "or ssh-keyscan), and rerun")
    else:
        hint = (f"verify it on the board (ssh-keygen -lf /etc/ssh/ssh_host_{_key_file_stem(verdict.keytype)}"
                f"_key.pub), then run: {trust}")
    return HostKeyError(f"{label}: unknown host key {verdict.keytype} {verdict.fingerprint}{other}, not in "
                        f"{where}", hint=hint)


def _key_file_stem(keytype: str) -> str:
    if keytype.startswith("ecdsa"):
        return "ecdsa"
    return {"ssh-ed25519": "ed25519", "ssh-rsa": "rsa"}.get(keytype, "*")
