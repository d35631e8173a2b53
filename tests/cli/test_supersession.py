"""A fact that stops being true, end to end: a dated "moved its plant" statement supersedes the old
location; `paths` no longer reaches the moved foundry's town, `--as-of` before the move still does,
and `check` reports the broken chain at its hop, naming the document that broke it."""

from __future__ import annotations

import json
from datetime import date, timedelta

import pytest
from cli_kit import fails, invoke
from typer.testing import CliRunner

import hopgraph.cli.app

MOVED = """subject,relation,object,source,date,subject_type,object_type
Anvaya Foundry,LOCATED_IN,Ranipet,moved_plant.md,2025-03-01,ORG,LOCATION
"""
CHAINS = """# the brake chain of the supplier corpus
Zephyra Motors -> Corvane Brake Systems -> Anvaya Foundry -> Hosur
Corvane Brake Systems -[SUPPLIES:reverse]-> Anvaya Foundry
"""


def towns(store, *options: str) -> list[str]:
    paths = json.loads(invoke("paths", "--to", "Hosur", "--max-hops", "3", *options, "--json", "--store", store))
    return sorted(" / ".join(f"{h['source']} {h['relation']} {h['target']}" for h in p) for p in paths)


def check(store, chains, *options: str):
    return CliRunner().invoke(hopgraph.cli.app.app, ["check", str(chains), "--store", store, *options, "--quiet"])


def test_a_dated_move_supersedes_the_old_plant_for_paths_and_check(imported, workdir):
    store = str(imported)
    (workdir / "moved.csv").write_text(MOVED, encoding="utf-8")
    chains = workdir / "chains.txt"
    chains.write_text(CHAINS, encoding="utf-8")
    before = towns(store)
    assert "Anvaya Foundry LOCATED_IN Hosur" in before
    held = check(store, chains)
    assert held.exit_code == 0 and "2 of 2 chain(s) hold" in held.stdout

    invoke("import-triples", str(workdir / "moved.csv"), "--store", store)
    assert towns(store) == []  # only Anvaya was in Hosur, and it has moved
    assert towns(store, "--as-of", "2024-12-31") == before  # the past is kept
    broke = check(store, chains)
    assert broke.exit_code == 1
    assert "BROKEN  Zephyra Motors -> Corvane Brake Systems -> Anvaya Foundry -> Hosur" in broke.stdout
    assert ("at hop 3 (Anvaya Foundry -> Hosur): Anvaya Foundry LOCATED_IN Hosur does not hold now: superseded by "
            "Anvaya Foundry LOCATED_IN Ranipet from 2025-03-01 (stated in moved_plant.md#1)") in broke.stdout
    assert "holds   Corvane Brake Systems -[SUPPLIES:reverse]-> Anvaya Foundry" in broke.stdout
    assert "1 of 2 chain(s) hold" in broke.stdout
    assert check(store, chains, "--as-of", "2024-06-30").exit_code == 0
    rows = json.loads(check(store, chains, "--json").stdout)
    assert [(r["line"], r["holds"], r["broken_at"]) for r in rows] == [(2, False, 3), (3, True, None)]


def test_a_chain_file_without_chains_or_with_an_unknown_name(imported, workdir, monkeypatch, capsys):
    (workdir / "bad.txt").write_text("just a note\n", encoding="utf-8")
    assert "bad.txt line 1" in fails(monkeypatch, capsys, "check", str(workdir / "bad.txt"), "--store", str(imported))
    (workdir / "unknown.txt").write_text("Nobody Ltd -> Hosur\n", encoding="utf-8")
    result = check(str(imported), workdir / "unknown.txt")
    assert result.exit_code == 1 and "no entity called 'Nobody Ltd'" in result.stdout


def test_a_date_no_calendar_holds_is_one_line_exit_2_for_check_and_paths(imported, workdir, monkeypatch, capsys):
    chains = workdir / "chains.txt"
    chains.write_text(CHAINS, encoding="utf-8")
    for bad in ("garbage", "2025-02-30", "0000-01-01"):
        for command in (["check", str(chains)], ["paths", "--to", "Hosur"]):
            err = fails(monkeypatch, capsys, *command, "--as-of", bad, "--store", str(imported))
            assert f"--as-of: '{bad}'" in err


def test_an_imported_year_0_is_a_counted_skip_and_the_graph_still_rebuilds(imported, workdir):
    kept = "Kallur Pig Iron Works,SUPPLIES,Anvaya Foundry,02_supply_agreement.md,2019,ORG,ORG\n"
    (workdir / "year0.csv").write_text(MOVED.replace("2025-03-01", "0000-01-01") + kept, encoding="utf-8")
    report = json.loads(invoke("import-triples", str(workdir / "year0.csv"), "--json", "--store", str(imported)))
    assert report["skipped"] == ["line 2: date '0000-01-01': '0000-01-01' has no year 0 (the calendar starts at 0001)"]
    invoke("remove", "3", "--store", str(imported))  # a rebuild: document 3 is the Zephyra contract
    assert "Anvaya Foundry LOCATED_IN Hosur" in towns(str(imported))


NEXT_YEAR = (date.today() + timedelta(days=365)).isoformat()  # relative: the test means the same in any year
DATED = f"""subject,relation,object,source,date,subject_type,object_type
Anvaya Foundry,LOCATED_IN,Hosur,01_anvaya_profile.md,,ORG,LOCATION
Kallur Pig Iron Works,SUPPLIES,Anvaya Foundry,02_supply_agreement.md,2015/2020,ORG,ORG
Anvaya Foundry,SUPPLIES,Corvane Brake Systems,02_supply_agreement.md,2021/{NEXT_YEAR},ORG,ORG
"""


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, workdir) -> str:
    """A store on each backend: PostgreSQL walks paths in SQL (`WITH RECURSIVE`), SQLite in Python."""
    return request.getfixturevalue("pg_url") if request.param == "postgres" else str(workdir / "kg.db")


def test_without_a_date_a_fact_that_ended_is_not_current_and_one_ending_later_is(backend, workdir):
    invoke("index", str(workdir / "docs"), "--store", backend)
    (workdir / "dated.csv").write_text(DATED, encoding="utf-8")
    invoke("import-triples", str(workdir / "dated.csv"), "--store", backend)
    kallur = "Kallur Pig Iron Works SUPPLIES Anvaya Foundry / Anvaya Foundry LOCATED_IN Hosur"
    assert towns(backend, "--follow", "all") == ["Anvaya Foundry LOCATED_IN Hosur"]  # Kallur's supply ended in 2020
    assert kallur in towns(backend, "--follow", "all", "--as-of", "2019-06-01")
    assert towns(backend) == ["Anvaya Foundry LOCATED_IN Hosur",  # Corvane's supply ends next year: current
                              "Anvaya Foundry SUPPLIES Corvane Brake Systems / Anvaya Foundry LOCATED_IN Hosur"]
    chains = workdir / "dated.txt"
    chains.write_text("Kallur Pig Iron Works -> Anvaya Foundry -> Hosur\nCorvane Brake Systems -> Anvaya Foundry\n",
                      encoding="utf-8")
    rows = json.loads(check(backend, chains, "--json").stdout)
    assert [(r["holds"], r["reason"]) for r in rows] == [
        (False, "Kallur Pig Iron Works SUPPLIES Anvaya Foundry does not hold now (ended 2020)"), (True, "")]
    in_2019 = json.loads(check(backend, chains, "--as-of", "2019-06-01", "--json").stdout)
    assert [r["holds"] for r in in_2019] == [True, False]  # Anvaya began supplying Corvane in 2021
