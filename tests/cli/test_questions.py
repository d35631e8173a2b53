"""The command line: index then ask (text and JSON), and bad input → exit 2, one line, store unchanged."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from cli_kit import TimedStdout, fails
from spies import count_calls
from streaming_llm import json_answer
from testkit import TINY_CORPUS, BagOfWordsEmbedder
from typer.testing import CliRunner

import hopgraph.cli.app
import hopgraph.engine
from hopgraph.cli.render import render_asked
from hopgraph.records.answers import Answer, Step
from hopgraph.records.retrieval import Retrieval
from hopgraph.store.sqlite import SQLiteStore
from hopgraph.text.nlp import parser_available

QUESTION = "Where is the director of Big Stone Gap based?"


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch) -> Path:
    """An isolated working folder (no hopgraph.toml, no HOPGRAPH_* settings), bag-of-words embedder."""
    monkeypatch.chdir(tmp_path)
    for key in list(os.environ):
        if key.startswith("HOPGRAPH_"):
            monkeypatch.delenv(key)
    monkeypatch.setattr(hopgraph.engine, "make_embedder", lambda settings: BagOfWordsEmbedder())
    return tmp_path


@pytest.fixture
def store(workdir: Path) -> Path:
    """A store indexed through the CLI from a JSON file of TINY_CORPUS."""
    corpus = workdir / "tiny.json"
    corpus.write_text(json.dumps([{"title": d.title, "text": d.text} for d in TINY_CORPUS]), encoding="utf-8")
    db = workdir / "cli.db"
    result = CliRunner().invoke(hopgraph.cli.app.app, ["index", str(corpus), "--store", str(db), "--quiet"])
    assert result.exit_code == 0, result.output
    return db


def snapshot(db: Path) -> tuple[int, list[tuple], int]:
    """What an index run changes: the chunk count, the documents table, the recorded runs."""
    with sqlite3.connect(db) as conn:
        chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        documents = conn.execute("SELECT * FROM documents ORDER BY id").fetchall()
        runs = conn.execute("SELECT count(*) FROM runs").fetchone()[0]
    conn.close()
    return chunks, documents, runs


def invoke(*args: str):
    result = CliRunner().invoke(hopgraph.cli.app.app, list(args))
    assert result.exit_code == 0, result.output
    return result


# --- success paths ---------------------------------------------------------------------------------


def test_index_reports_what_it_added_then_that_nothing_changed(store: Path, workdir: Path):
    assert snapshot(store)[0] == len(TINY_CORPUS)
    again = invoke("index", str(workdir / "tiny.json"), "--store", str(store), "--quiet")
    assert "0 added" in again.stdout and f"{len(TINY_CORPUS)} unchanged" in again.stdout
    assert "0 chunks embedded" in again.stdout


def test_remove_withdraws_a_file_and_names_what_it_cannot_find(workdir: Path, monkeypatch, capsys):
    corpus = workdir / "two.json"
    corpus.write_text(json.dumps([{"title": "Alpha", "text": "Alpha mentions Beta."},
                                  {"title": "Beta", "text": "Beta is a letter."}]), encoding="utf-8")
    db = str(workdir / "rm.db")
    invoke("index", str(corpus), "--store", db, "--quiet")
    out = fails(monkeypatch, capsys, "remove", str(workdir / "missing.json"), "--store", db)
    assert "missing.json: no indexed document has this id, file or folder" in out
    result = invoke("remove", str(corpus), "--store", db, "--quiet")
    assert ": 2 documents withdrawn; 0 names, 0 links in " in result.stdout


def test_a_question_with_undecodable_bytes_is_one_line_and_exit_2(store: Path, monkeypatch, capsys):
    question = b"who owns caf\xe9 Noir?".decode("utf-8", "surrogateescape")  # argv's Latin-1 byte, as Python reads it
    out = fails(monkeypatch, capsys, "ask", question, "--store", str(store))
    assert "not valid UTF-8" in out


def test_index_summary_counts_the_added_documents(workdir: Path):
    corpus = workdir / "two.json"
    corpus.write_text(json.dumps([{"title": "Alpha", "text": "Alpha mentions Beta."},
                                  {"title": "Beta", "text": "Beta is a letter."}]), encoding="utf-8")
    result = invoke("index", str(corpus), "--store", str(workdir / "two.db"), "--quiet")
    assert "2 documents read, 0 files skipped — 2 added" in result.stdout
    assert "1 links" in result.stdout


def test_index_summary_counts_titles_among_the_documents_of_the_index(workdir: Path):
    """Names are built over the whole index: a run that reads one file of three says so of all three."""
    for name, title in (("a.md", "Ravik Foundry"), ("b.md", "Tessaro Brakes")):
        (workdir / "first").mkdir(exist_ok=True)
        (workdir / "first" / name).write_text(f"# {title}\n\n{title} makes castings.\n", encoding="utf-8")
    (workdir / "second").mkdir()
    (workdir / "second" / "c.md").write_text("# Kestrel Friction\n\nKestrel Friction makes pads.\n",
                                             encoding="utf-8")
    invoke("index", str(workdir / "first"), "--store", "three.db", "--quiet")
    result = invoke("index", str(workdir / "second"), "--store", "three.db", "--quiet")
    assert "1 documents read" in result.stdout
    assert "titles of 3 of the 3 documents in the index are names too" in result.stdout


def test_ask_json_prints_hits_with_how_each_was_found(store: Path):
    result = invoke("ask", QUESTION, "--mode", "search", "--store", str(store), "--json", "--quiet")
    asked = json.loads(result.stdout)
    assert (asked["mode"], asked["why"]) == ("search", "--method hybrid+names+links")
    payload = asked["retrieval"]
    assert payload["method"] == "hybrid+names+links"
    hits = asked["hits"]
    assert len(hits) == 5  # the default top
    assert all(hit["found_by"] in {"hybrid", "name", "link"} for hit in hits)
    assert (hits[0]["title"], hits[0]["found_by"]) == ("Big Stone Gap (film)", "name")
    link = next(hit for hit in hits if hit["title"] == "Adriana Trigiani")
    assert link["found_by"] == "link"
    assert link["via"]["from_title"] == "Big Stone Gap (film)"
    assert link["via"]["name"] == "Adriana Trigiani"
    assert payload["ms"] == pytest.approx(sum(step["ms"] for step in payload["trace"]), abs=0.01)
    assert [hit["rank"] for hit in hits] == [1, 2, 3, 4, 5]
    assert asked["answer"]["writer"] == "extractive" and asked["answer"]["citations"]
    assert all(c["source"] for c in asked["answer"]["citations"])  # a reader's source, not only a chunk id


def test_ask_json_obeys_method_and_top(store: Path):
    result = invoke("ask", "Gap Inc. clothing retailer", "--method", "bm25", "--top", "2", "--store", str(store),
                    "--json", "-q")
    hits = json.loads(result.stdout)["hits"]
    assert [hit["found_by"] for hit in hits] == ["bm25", "bm25"]
    assert hits[0]["title"] == "Gap Inc."


@pytest.mark.parametrize("args", [(), ("--method", "hybrid+names+links")])
def test_ask_checks_the_question_once_and_routes_it_at_most_once(store: Path, monkeypatch, args):
    import hopgraph.query.question
    import hopgraph.retrieval.methods
    import hopgraph.retrieval.router

    checks = count_calls(monkeypatch, hopgraph.query.question.check_question)
    parses = count_calls(monkeypatch, hopgraph.retrieval.methods.parse_method)
    routes = count_calls(monkeypatch, hopgraph.retrieval.router.route)
    asked = json.loads(invoke("ask", QUESTION, *args, "--store", str(store), "--json", "--quiet").stdout)
    assert asked["hits"] and len(checks) == 1
    if args:  # a method asks for search with it: parsed once, never routed
        assert (asked["mode"], len(parses), len(routes)) == ("search", 1, 0)
    else:
        assert asked["why"].startswith("router: ") and len(routes) == 1


def test_ask_help_lists_every_mode_of_the_registry_with_its_description():
    from hopgraph.query.modes import modes

    help_text = CliRunner().invoke(hopgraph.cli.app.app, ["ask", "--help"]).stdout
    shown = " ".join(help_text.replace("│", " ").split())  # rich's box and line breaks aside
    for mode in modes():
        assert f"{mode.name} ({mode.description})" in shown


def test_ask_prints_each_hit_with_its_path(store: Path):
    result = invoke("ask", QUESTION, "--mode", "search", "--store", str(store), "--quiet")
    assert result.stdout.startswith("mode: search (--method hybrid+names+links)\n")
    assert '2. Adriana Trigiani  [Big Stone Gap (film) → Adriana Trigiani via "Adriana Trigiani"]' in result.stdout
    assert result.stdout.splitlines()[-1].startswith("hybrid+names+links: 5 hits in ")


def test_ask_answers_first_with_cited_sentences_and_no_answer_keeps_the_hits_only(store: Path):
    out = invoke("ask", QUESTION, "--mode", "search", "--store", str(store), "--quiet").stdout.splitlines()
    assert out[1] == "Answer: Greenwich Village"  # the short answer (its sentence below it), then the quotes
    extractive = out.index("Answer (extractive):")
    citations = next(line for line in out if line.startswith("Citations: "))
    assert out.index(citations) < next(i for i, line in enumerate(out) if line.startswith("1. "))  # above the hits
    quoted = [line for line in out[extractive + 1 : out.index(citations)]]
    assert 1 <= len(quoted) <= 2 and all(line.startswith('"') and "[chunk " in line for line in quoted)
    bare = invoke("ask", QUESTION, "--mode", "search", "--no-answer", "--store", str(store), "--quiet").stdout
    assert "Answer" not in bare and "Citations" not in bare and "1. " in bare


def test_citations_name_the_file_and_page_when_known():
    asked = Answer("q?", "paths", "asked for", text="Kallur supplies Anvaya.", citations=[7, 9],
                   writer="extractive", sources={7: "report.pdf#p3"})
    assert "Citations: report.pdf#p3 (chunk 7), chunk 9" in render_asked(asked)


def test_an_iterative_answer_reads_answer_first_then_each_step():
    steps = [Step("Who directed Big Stone Gap?", [3, 4], "Adriana Trigiani directed it.", "", "Adriana Trigiani city"),
             Step("Adriana Trigiani city", [5], "She is based in Greenwich Village.", "Greenwich Village", "")]
    asked = Answer("q?", "iterative", "asked for", text="Greenwich Village", citations=[5], writer="llm:m",
                   sources={5: "Adriana Trigiani#1"}, steps=steps)
    lines = render_asked(asked).splitlines()
    assert lines[1:3] == ["Answer (llm:m):", "Greenwich Village"]
    assert lines[3] == "Citations: Adriana Trigiani#1 (chunk 5)"
    assert lines[5] == ('step 1: searched "Who directed Big Stone Gap?" (+2 chunks) — Adriana Trigiani directed it.; '
                        'next: "Adriana Trigiani city"')
    assert lines[6].endswith('(+1 chunks) — She is based in Greenwich Village.; answered "Greenwich Village"')


# --- bad input: exit status 2, one line on stderr, the store unchanged ----------------------------------


def bad_inputs(folder: Path) -> dict[str, tuple[list[str], str]]:
    (folder / "empty.txt").write_text("", encoding="utf-8")
    (folder / "binary.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00")
    (folder / "malformed.json").write_text('[{"title": "Half", "text": ', encoding="utf-8")
    (folder / "fresh.json").write_text(json.dumps([{"title": "Fresh", "text": "A new document."}]), encoding="utf-8")
    return {
        "missing path": (["index", str(folder / "nope.txt")], f"no such file or folder: {folder / 'nope.txt'}"),
        "empty file": (["index", str(folder / "empty.txt")], "empty.txt: file is empty"),
        "binary file": (["index", str(folder / "binary.txt")], "binary.txt: looks like a binary file"),
        "malformed JSON": (["index", str(folder / "malformed.json")], "malformed.json: malformed JSON at line 1"),
        "two bad files": (["index", str(folder / "empty.txt"), str(folder / "malformed.json")],
                          "nothing to index: all 2 files were skipped — "),
        "100 KB question": (["ask", "why? " * 20_000], "the question is 99,999 characters long"),
        "unknown method": (["ask", QUESTION, "--method", "foo"], "unknown method 'foo'"),
    }


@pytest.mark.parametrize("case", ["missing path", "empty file", "binary file", "malformed JSON",
                                  "two bad files", "100 KB question", "unknown method"])
def test_bad_input_exits_2_with_one_error_line_and_leaves_the_store_unchanged(store, workdir, monkeypatch,
                                                                               capsys, case):
    args, problem = bad_inputs(workdir)[case]
    before = snapshot(store)
    capsys.readouterr()
    monkeypatch.setattr(sys, "argv", ["hopgraph", *args, "--store", str(store), "--quiet"])
    with pytest.raises(SystemExit) as exit_:
        hopgraph.cli.app.main()
    out, err = capsys.readouterr()
    assert exit_.value.code == 2
    assert out == ""
    assert len(err.splitlines()) == 1
    assert err.startswith("hopgraph: error: ")
    assert problem in err
    assert snapshot(store) == before


def test_a_bad_file_beside_a_good_one_is_skipped_with_its_reason_and_the_good_one_indexed(store, workdir):
    """Before skips existed this was exit 2 with nothing written; now the good file is indexed."""
    bad_inputs(workdir)
    result = CliRunner().invoke(hopgraph.cli.app.app, ["index", str(workdir / "fresh.json"),
                                                       str(workdir / "malformed.json"), "--store", str(store), "-q"])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [f"hopgraph: skipped {workdir / 'malformed.json'}: malformed JSON at "
                                          f"line 1 column 28: Expecting value"]
    assert "1 documents read, 1 file skipped — 1 added" in result.stdout
    assert ("Fresh",) in [row[2:3] for row in snapshot(store)[1]]


def test_every_file_skipped_names_both_reasons_in_one_line(store, workdir, monkeypatch, capsys):
    bad_inputs(workdir)
    monkeypatch.setattr(sys, "argv", ["hopgraph", "index", str(workdir / "empty.txt"), str(workdir / "binary.txt"),
                                      "--store", str(store), "-q"])
    with pytest.raises(SystemExit) as exit_:
        hopgraph.cli.app.main()
    _, err = capsys.readouterr()
    assert exit_.value.code == 2 and len(err.splitlines()) == 1
    assert "empty.txt: file is empty; " in err and "binary.txt: looks like a binary file" in err


def test_ask_on_a_store_with_no_documents_exits_2_and_says_to_index_first(workdir, monkeypatch, capsys):
    SQLiteStore(str(workdir / "new.db")).close()
    monkeypatch.setattr(sys, "argv", ["hopgraph", "ask", QUESTION, "--store", str(workdir / "new.db"), "-q"])
    with pytest.raises(SystemExit) as exit_:
        hopgraph.cli.app.main()
    _, err = capsys.readouterr()
    assert exit_.value.code == 2
    assert len(err.splitlines()) == 1
    assert err.startswith("hopgraph: error: ") and "no documents" in err and "hopgraph index" in err


def test_ask_with_a_mistyped_store_path_creates_nothing(workdir, monkeypatch, capsys):
    missing = workdir / "typo" / "stroe.db"
    monkeypatch.setattr(sys, "argv", ["hopgraph", "ask", QUESTION, "--store", str(missing), "-q"])
    with pytest.raises(SystemExit) as exit_:
        hopgraph.cli.app.main()
    _, err = capsys.readouterr()
    assert exit_.value.code == 2 and len(err.splitlines()) == 1
    assert "no store at" in err and "hopgraph index" in err
    assert not (workdir / "typo").exists()


def clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("HOPGRAPH_")}


def test_the_installed_module_exits_2_with_one_line_for_an_unknown_method(store, workdir):
    before = snapshot(store)
    done = subprocess.run([sys.executable, "-m", "hopgraph.cli.app", "ask", QUESTION, "--method", "hybrid+bar",
                           "--store", str(store)], cwd=workdir, env=clean_env(), capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.splitlines() == [done.stderr.strip()]
    assert done.stderr.startswith("hopgraph: error: unknown method 'hybrid+bar'")
    assert snapshot(store) == before


def test_the_installed_module_exits_2_for_a_missing_path(workdir):
    done = subprocess.run([sys.executable, "-m", "hopgraph.cli.app", "index", "nope.txt", "--store", "x.db"],
                          cwd=workdir, env=clean_env(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [done.stderr.strip()]
    assert done.stderr.startswith("hopgraph: error: ") and "nope.txt" in done.stderr


def test_without_quiet_an_error_on_a_non_terminal_is_still_one_clean_line(workdir):
    (workdir / "empty.txt").write_text("", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "hopgraph.cli.app", "index", "empty.txt", "--store", "x.db"],
                          cwd=workdir, env=clean_env(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr == "hopgraph: error: empty.txt: file is empty\n"


# --- with an LLM: the answer printed as the model writes it -----------------------------------------


def ask_with_llm(monkeypatch, url: str, *args: str) -> TimedStdout:
    monkeypatch.setenv("HOPGRAPH_LLM_URL", url)
    monkeypatch.setenv("HOPGRAPH_LLM_MODEL", "streamer")
    out = TimedStdout()
    monkeypatch.setattr(sys, "stdout", out)
    hopgraph.cli.app.main(["ask", QUESTION, *args])
    return out


def test_ask_with_an_llm_prints_the_answer_as_it_streams_then_its_checked_citations(store, monkeypatch,
                                                                                     streaming_llm):
    llm, url = streaming_llm
    llm.reset(pieces=json_answer("Greenwich Village, New York City", also_cite=(99999,), size=3), gap=0.1)
    out = ask_with_llm(monkeypatch, url, "--mode", "search", "--store", str(store), "--top", "2")
    text = out.getvalue()
    lines = text.splitlines()
    assert lines[:3] == ["mode: search (--method hybrid+names+links)", "Answer (llm:streamer):",
                         "Greenwich Village, New York City"]
    assert lines[3] == "Citations: Big Stone Gap (film)#1 (chunk 1)"
    assert "1 citation(s) of chunks the model was not given were dropped" in text
    answer_writes = [at for at, written in out.writes if written and written in "Greenwich Village, New York City"]
    assert len(answer_writes) >= 5 and answer_writes[-1] - answer_writes[0] >= 0.5  # piece by piece, as they came
    assert "1. " in text  # the hits follow, as without an LLM


def test_ask_no_stream_json_and_quiet_print_the_whole_answer_as_before(store, monkeypatch, streaming_llm):
    llm, url = streaming_llm
    llm.reset(pieces=json_answer("Greenwich Village"))
    whole = ask_with_llm(monkeypatch, url, "--mode", "search", "--store", str(store), "--no-stream").getvalue()
    assert whole.splitlines()[:3] == ["mode: search (--method hybrid+names+links)", "Answer (llm:streamer):",
                                      "Greenwich Village"]
    assert len([1 for written in whole.splitlines() if written == "Greenwich Village"]) == 1
    as_json = json.loads(ask_with_llm(monkeypatch, url, "--mode", "search", "--store", str(store),
                                      "--json").getvalue())
    assert as_json["answer"]["text"] == "Greenwich Village"
# --- the short answer without an LLM -----------------------------------------------------------------


@pytest.mark.skipif(not parser_available(), reason="the short answer reads entities with spaCy's model")
def test_ask_json_has_the_short_answer_with_its_sentence_and_citation(store: Path):
    asked = json.loads(invoke("ask", QUESTION, "--store", str(store), "--json", "--quiet").stdout)
    short = asked["short_answer"]
    assert short["text"] == "Greenwich Village" and short["kind"] == "FAC,GPE,LOC"
    assert "Greenwich Village" in short["sentence"] and short["source"]
    adriana = next(hit for hit in asked["hits"] if hit["title"] == "Adriana Trigiani")
    assert short["chunk"] == adriana["chunk"]  # the second hop, not the film's own passage


@pytest.mark.skipif(not parser_available(), reason="the short answer reads entities with spaCy's model")
@pytest.mark.parametrize(("question", "answer"), [
    ("The Ran Paul presidential campaign, 2016 event was held at a hotel on what river?", "Ohio River"),
    ("What Cuban preisdent overthrew Mary Tarrero-Serrano?", "Fulgencio Batista"),
])
def test_ask_prints_the_short_answer_first_over_the_sample(hotpot_e2e, question: str, answer: str):
    _, store, _ = hotpot_e2e
    lines = invoke("ask", question, "--store", str(store), "--quiet").stdout.splitlines()
    assert lines[1] == f"Answer: {answer}"
    assert lines[2].startswith('  "') and "(chunk " in lines[2]  # its sentence, then its citation
    assert lines.index("Answer (extractive):") > 2  # the quoted evidence follows


def test_ask_says_when_no_short_answer_is_good_enough():
    asked = Answer("Which year?", "search", "--method hybrid", Retrieval("hybrid", []), text='"x" [chunk 1]',
                   citations=[1], writer="extractive")
    assert "Answer: no short answer found" in render_asked(asked).splitlines()[1]
