"""Every error path of the command line ends in one `hopgraph: error:` line and exit status 2 (130 when
interrupted), and leaves the store — or a file that is not a store — as it was."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from child_env import child_env
from cli_kit import fails, invoke

import hopgraph.cli.app
import hopgraph.engine
from hopgraph import __version__

QUESTION = "Who supplies Corvane Brake Systems?"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --- usage errors --------------------------------------------------------------------------------------

@pytest.mark.parametrize(("args", "says"), [
    (["ask", QUESTION, "--top", "0"], "--top"),
    (["ask", QUESTION, "--top", "abc"], "--top"),
    (["ask"], "Missing argument 'question'"),
    (["ask", QUESTION, "--sideways"], "--sideways"),
    (["frobnicate"], "frobnicate"),
    (["paths"], "--to"),
])
def test_a_usage_error_is_one_line_and_exit_2(store, monkeypatch, capsys, args, says):
    err = fails(monkeypatch, capsys, *args, "--store", str(store))
    assert says in err
    assert "Traceback" not in err


def test_an_empty_question_is_refused_in_every_mode(imported, monkeypatch, capsys):
    for mode in ("auto", "search", "local", "paths", "global", "lazy", "drift"):
        err = fails(monkeypatch, capsys, "ask", "  ", "--mode", mode, "--store", str(imported))
        assert "the question is empty" in err, mode


# --- interrupted ---------------------------------------------------------------------------------------

def test_ctrl_c_says_interrupted_and_exits_130(workdir, monkeypatch, capsys):
    def interrupted(*_: object, **__: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(hopgraph.engine.HopGraph, "index", interrupted)
    monkeypatch.setattr(sys, "argv", ["hopgraph", "index", str(workdir / "docs"), "--store", str(workdir / "s.db")])
    with pytest.raises(SystemExit) as exit_:
        hopgraph.cli.app.main()
    _, err = capsys.readouterr()
    assert exit_.value.code == 130
    assert err.strip() == "hopgraph: interrupted; the store is unchanged by the unfinished step"


# The child restores Python's Ctrl-C handler: a test run started in the background (`cmd &`, some
# CI runners) inherits SIGINT ignored, and Python then never turns SIGINT into KeyboardInterrupt.
SLOW_INDEX = """
import signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)
import hopgraph.engine
def slow_index(*args, **kwargs):
    print("inside", flush=True)
    time.sleep(60)
hopgraph.engine.HopGraph.index = slow_index
from hopgraph.cli.app import main
sys.argv = ["hopgraph", "index", sys.argv[1], "--store", sys.argv[2]]
main()
"""


def test_a_real_sigint_exits_130(workdir):
    child = subprocess.Popen([sys.executable, "-c", SLOW_INDEX, str(workdir / "docs"), str(workdir / "s.db")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "inside"  # the command has opened the store and is working
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=30)
    assert child.returncode == 130
    assert "interrupted" in err and "Traceback" not in err


# --- files that cannot be read ------------------------------------------------------------------------

def cannot_read(monkeypatch, *targets: Path, errno: int = 13, strerror: str = "Permission denied") -> None:
    real = Path.read_bytes

    def read_bytes(self: Path) -> bytes:
        if self in targets:
            raise OSError(errno, strerror, str(self))
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)


@pytest.mark.parametrize(("errno", "strerror"), [(13, "Permission denied"), (5, "Input/output error")])
def test_an_unreadable_file_in_a_folder_is_skipped_with_one_line_and_the_rest_indexed(workdir, monkeypatch, capsys,
                                                                                      errno, strerror):
    target = workdir / "docs" / "02_supply_agreement.md"
    cannot_read(monkeypatch, target, errno=errno, strerror=strerror)
    capsys.readouterr()
    monkeypatch.setattr(sys, "argv", ["hopgraph", "index", str(workdir / "docs"), "--store", str(workdir / "s.db"),
                                      "--quiet"])
    hopgraph.cli.app.main()
    out, err = capsys.readouterr()
    assert err == f"hopgraph: skipped {target}: cannot read the file ({strerror})\n"
    assert "2 documents read, 1 file skipped — 2 added" in out


def test_a_folder_of_unreadable_files_is_one_line_and_no_store(workdir, monkeypatch, capsys):
    cannot_read(monkeypatch, *(workdir / "docs").iterdir())
    err = fails(monkeypatch, capsys, "index", str(workdir / "docs"), "--store", str(workdir / "s.db"))
    assert "nothing to index: all 3 files were skipped — " in err and err.count("Permission denied") == 3
    assert not (workdir / "s.db").exists()  # the store the failing run made is removed, not left empty


# --- the store: locked, foreign, mistyped -------------------------------------------------------------

HOLD_LOCK = """
import sys, time
from hopgraph.store.sqlite import SQLiteStore
store = SQLiteStore(sys.argv[1])
with store._transaction():
    print("locked", flush=True)
    time.sleep(60)
"""


def test_a_store_locked_by_another_writer_waits_then_names_it(store, workdir, monkeypatch, capsys):
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(store)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        monkeypatch.setenv("HOPGRAPH_LOCK_TIMEOUT", "1")
        started = time.perf_counter()
        err = fails(monkeypatch, capsys, "import-triples", str(workdir / "triples.csv"), "--store", str(store))
        assert time.perf_counter() - started >= 1.0  # it waited for the lock first
        assert "is locked by" in err and f"pid {holder.pid}" in err and "wait for it to finish" in err
    finally:
        holder.kill()
        holder.wait()
    invoke("import-triples", str(workdir / "triples.csv"), "--store", str(store))  # free again: it works


def test_a_lease_left_by_a_dead_writer_is_said_to_be_stale(store, workdir, monkeypatch, capsys):
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(store)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "locked"
    lease = Path(str(store) + ".writer")
    recorded = json.loads(lease.read_text(encoding="utf-8"))
    assert recorded["pid"] == holder.pid
    lease.write_text(json.dumps({**recorded, "pid": 2**22 + 7}), encoding="utf-8")  # a pid nobody has
    try:
        monkeypatch.setenv("HOPGRAPH_LOCK_TIMEOUT", "0.2")
        err = fails(monkeypatch, capsys, "import-triples", str(workdir / "triples.csv"), "--store", str(store))
        assert "no longer running" in err
    finally:
        holder.kill()
        holder.wait()


def test_another_applications_database_is_refused_before_any_write(workdir, monkeypatch, capsys):
    crm = workdir / "crm.db"
    db = sqlite3.connect(crm)
    db.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
    db.commit()
    db.close()
    before = digest(crm)
    for args in (["index", str(workdir / "docs")], ["ask", QUESTION]):
        err = fails(monkeypatch, capsys, *args, "--store", str(crm))
        assert "not a hopgraph store" in err and "customers" in err
    assert digest(crm) == before
    assert not Path(str(crm) + "-wal").exists()


@pytest.mark.parametrize("command", [["ask", QUESTION], ["paths", "--to", "Hosur"], ["communities"],
                                     ["reports"], ["review-merges"], ["extract"]])
def test_commands_that_read_never_create_a_store(workdir, monkeypatch, capsys, command):
    missing = workdir / "nowhere" / "typo.db"
    err = fails(monkeypatch, capsys, *command, "--store", str(missing))
    assert "no store at" in err
    assert not (workdir / "nowhere").exists()


def test_a_folder_given_as_the_store_is_one_line(workdir, monkeypatch, capsys):
    err = fails(monkeypatch, capsys, "index", str(workdir / "docs"), "--store", str(workdir / "docs"))
    assert "is a folder" in err


def test_the_store_is_unchanged_by_a_failed_command(imported, workdir, monkeypatch, capsys):
    before = digest(imported)
    (workdir / "bad.csv").write_text("subject,relation\nA,B\n", encoding="utf-8")
    fails(monkeypatch, capsys, "import-triples", str(workdir / "bad.csv"), "--store", str(imported))
    assert digest(imported) == before
    assert not os.path.exists(str(imported) + ".writer")


# --- version -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("command", [["hopgraph"], [sys.executable, "-m", "hopgraph"]])
def test_version_prints_the_installed_version_as_a_command_and_as_python_m(command):
    program = [str(Path(sys.executable).with_name("hopgraph"))] if command == ["hopgraph"] else command
    done = subprocess.run([*program, "--version"], env=child_env(), capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout) == (0, f"hopgraph {__version__}\n"), done.stderr
