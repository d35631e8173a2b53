"""Whether a process that left its pid behind (a writer's lease, a snapshot being built) still runs."""

from __future__ import annotations

import os


def alive(pid: int) -> bool:
    """True while a process with this pid exists, also one of another user (we may not signal it).

    0 and negative numbers are never a process: `os.kill` would read them as this process group or
    another, and call a crashed writer's empty pid field alive."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)  # signal 0: nothing is sent, only whether the pid exists is checked
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
