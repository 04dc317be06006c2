"""This agent process's own memory: RSS now and peak (VmRSS / VmHWM from /proc/self/status).

These are facts about the agent's own process, not hardware, so they are read from the real /proc/self even
when the board's sysfs is mounted elsewhere (sysfs_root). No psutil needed. Off Linux, falls back to
resource.getrusage (peak only).
"""

import resource
import sys


def _status():
    out = {}
    try:
        with open("/proc/self/status", "r") as f:
            for line in f:
                if line.startswith(("VmRSS:", "VmHWM:")):
                    parts = line.split()
                    out[parts[0][:-1]] = int(parts[1])  # kB
    except (IOError, OSError):
        pass
    return out


def rss_mb():
    st = _status()
    if "VmRSS" in st:
        return st["VmRSS"] / 1024.0
    return None


def peak_rss_mb():
    st = _status()
    if "VmHWM" in st:
        return st["VmHWM"] / 1024.0
    ru = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return ru / (1024.0 * 1024.0) if sys.platform == "darwin" else ru / 1024.0


def reset_peak():
    """Reset VmHWM to the current RSS (Linux >= 4.0: write 5 to /proc/self/clear_refs). True if it worked."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except (IOError, OSError):
        return False
