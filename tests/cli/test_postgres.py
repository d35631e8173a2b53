"""The command line on a PostgreSQL store: the same commands and answers as on a file, and a server
that cannot be reached is one line, exit 2."""

from __future__ import annotations

import json
import socket

from cli_kit import fails, invoke


def routes(store: str, *options: str) -> list[str]:
    paths = json.loads(invoke("paths", *options, "--json", "--store", store))
    return sorted(" / ".join(f"{h['source']} {h['relation']} {h['target']}" for h in path) for path in paths)


def test_index_ask_import_paths_and_remove_on_postgresql_match_the_file_store(workdir, pg_url):
    answers, chains = {}, {}
    for store in (str(workdir / "kg.db"), pg_url):
        invoke("index", str(workdir / "docs"), "--store", store)
        answers[store] = json.loads(invoke("ask", "Who supplies Corvane Brake Systems?", "--json",
                                           "--store", store))
        invoke("import-triples", str(workdir / "triples.csv"), "--store", store)
        chains[store] = routes(store, "--to", "Hosur", "--max-hops", "3")
        invoke("remove", str(workdir / "docs" / "03_zephyra_contract.md"), "--store", store)
        chains[store, "after remove"] = routes(store, "--to", "Hosur", "--max-hops", "3")
    file_store = str(workdir / "kg.db")
    assert [h["text"] for h in answers[pg_url]["hits"]] == [h["text"] for h in answers[file_store]["hits"]]
    assert answers[pg_url]["answer"] == answers[file_store]["answer"] and answers[pg_url]["answer"]["text"]
    assert chains[pg_url] == chains[file_store] and len(chains[pg_url]) == 3
    assert chains[pg_url, "after remove"] == chains[file_store, "after remove"] == [
        "Anvaya Foundry LOCATED_IN Hosur",
        "Anvaya Foundry SUPPLIES Corvane Brake Systems / Anvaya Foundry LOCATED_IN Hosur"]


def test_an_unreachable_postgresql_url_is_one_line_exit_2(workdir, monkeypatch, capsys):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    err = fails(monkeypatch, capsys, "ask", "anything", "--store", f"postgresql://me:pw@127.0.0.1:{port}/db")
    assert "cannot reach PostgreSQL" in err and "pw" not in err
    err = fails(monkeypatch, capsys, "ask", "anything", "--store", f"postgresql://me@127.0.0.1:{port}/db?password=topsecret")
    assert "cannot reach PostgreSQL" in err and "topsecret" not in err and "password=***" in err


def test_a_password_in_the_url_is_never_printed_by_index_remove_or_stats(workdir, pg_url):
    store = pg_url + "&password=topsecret"  # the test server trusts local sockets: the password goes unused
    said = [invoke("index", str(workdir / "docs"), "--store", store),
            invoke("index", str(workdir / "docs"), "--json", "--store", store),
            invoke("remove", str(workdir / "docs" / "03_zephyra_contract.md"), "--store", store),
            invoke("stats", "--json", "--store", store)]
    assert all("topsecret" not in out and "password=***" in out for out in said)


def test_search_in_chooses_where_ask_ranks_and_a_file_store_cannot_rank_in_a_database(workdir, pg_url,
                                                                                       monkeypatch, capsys):
    invoke("index", str(workdir / "docs"), "--store", pg_url)
    asked = {where: json.loads(invoke("ask", "Who supplies Corvane Brake Systems?", "--json", "--store", pg_url,
                                      "--search-in", where)) for where in ("database", "snapshot")}
    assert [h["text"] for h in asked["database"]["hits"]] == [h["text"] for h in asked["snapshot"]["hits"]]
    invoke("index", str(workdir / "docs"), "--store", str(workdir / "file.db"))
    err = fails(monkeypatch, capsys, "ask", "anything", "--store", str(workdir / "file.db"), "--search-in", "database")
    assert "cannot rank chunks itself" in err
    err = fails(monkeypatch, capsys, "serve", "--store", str(workdir / "file.db"), "--search-in", "elsewhere")
    assert "search_in='elsewhere' is unknown" in err
