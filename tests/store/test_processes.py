"""`alive`: one answer for a lease's pid and a snapshot's, including the pids that are no process."""

from __future__ import annotations

import os
import subprocess
import sys

from hopgraph.store.processes import alive


def test_this_process_is_alive() -> None:
    assert alive(os.getpid())


def test_a_finished_process_is_not() -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()  # reaped: its pid names no process now
    assert not alive(child.pid)


def test_zero_and_negative_pids_are_no_process() -> None:
    # os.kill(0, 0) succeeds (it signals our own process group): a lease with no pid must not read as held
    assert not alive(0)
    assert not alive(-1)


def test_another_users_process_is_alive() -> None:
    assert alive(1)  # init: PermissionError for a normal user, success for root; alive either way
