"""`hopgraph demo`: the bundled HotpotQA sample (a two-hop question rescued by links, the method
table with PPR and the router) and the bundled *A Christmas Carol* (its community tree and a
question about the whole story, answered offline from community reports)."""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from pathlib import Path

import typer
from platformdirs import user_cache_dir

from hopgraph.cli.options import QuietOpt, StoreOpt
from hopgraph.cli.render import render_retrieval
from hopgraph.config import load_settings
from hopgraph.engine import HopGraph
from hopgraph.eval import Question, format_table, load_questions, run_eval, score_retrieval
from hopgraph.retrieval.methods import METHODS

BASE, GRAPH = "hybrid", "hybrid+names+links"
TABLE_METHODS = [*METHODS, "ppr", "auto"]
THEMES = "What are the main themes of this story?"


def sample_path() -> Path:
    return Path(str(resources.files("hopgraph.assets").joinpath("hotpotqa_200.json")))


def book_path() -> Path:
    return Path(str(resources.files("hopgraph.assets").joinpath("a_christmas_carol.txt")))


def answer_in(hg: HopGraph, question: Question, method: str) -> bool:
    hits = hg.search(question.text, method=method).hits
    return bool(score_retrieval(question, [h.title for h in hits], [h.text for h in hits])["answer_in"])


def find_rescue(hg: HopGraph, questions: list[Question]) -> Question | None:
    """The first bridge question whose answer the graph brings into the top k and plain search misses."""
    for question in questions:
        if question.type == "bridge" and answer_in(hg, question, GRAPH) and not answer_in(hg, question, BASE):
            return question
    return None


def run_demo(store: str | None, quiet: bool, echo: Callable[[str], None]) -> None:
    data = sample_path()
    store = store or str(Path(user_cache_dir("hopgraph")) / "demo.db")
    questions, _, _ = load_questions(data)
    echo(f"Indexing {data.name} (HotpotQA, CC BY-SA 4.0) into {store} …")
    result = run_eval(data, methods=TABLE_METHODS, store=store, settings=load_settings(), quiet=quiet)
    with HopGraph(store, load_settings(), quiet=quiet) as hg:
        question = find_rescue(hg, questions)
        if question is None:
            echo("No question in the sample needs links to find its answer (the index may be damaged).")
        else:
            echo(f"\nTwo-hop question: {question.text}\nGold answer: {question.answer}; "
                 f"gold paragraphs: {', '.join(sorted(question.gold_titles))}\n")
            for method in (BASE, GRAPH):
                echo(f"--- {method}")
                echo(render_retrieval(hg.search(question.text, method=method)))
            echo(f"\nanswer in top 5: without links {answer_in(hg, question, BASE)}, "
                 f"with links {answer_in(hg, question, GRAPH)}")
    echo("\nAll 200 questions, top 5 (both = every gold paragraph found, ans = answer string in the text):")
    echo(format_table(result))
    book_store = str(Path(store).with_name(Path(store).stem + "_carol.db"))
    echo(f"\nIndexing A Christmas Carol (public domain) into {book_store} …")
    with HopGraph(book_store, load_settings(), quiet=quiet) as hg:
        index_book(hg, book_path())
        community_story(hg, echo)


def index_book(hg: HopGraph, book: Path) -> None:
    """The book store is the demo's own and holds the bundled book alone. The cache is shared by every
    install of hopgraph, and a document is known by its path: the book indexed from another
    checkout or virtual environment would double every hit and every theme, so it is withdrawn."""
    elsewhere = [str(doc.id) for doc in hg.store.active_documents().values() if doc.source != str(book)]
    if elsewhere:
        hg.remove(elsewhere)
    hg.index([book])


def community_story(hg: HopGraph, echo: Callable[[str], None]) -> None:
    """The concept graph and the parser's facts (no LLM: what `hopgraph extract` builds, so the themes
    are the README's), its community tree, and the themes question through the router."""
    graph = hg.extract_without_llm()
    stats = hg.communities().stats()
    echo(f"Concept graph: {graph.entities} entities, {graph.relations} relations; "
         f"{stats['communities']} communities in {stats['levels']} levels:")
    for level in stats["per_level"]:  # type: ignore[attr-defined]
        echo(f"  level {level['level']}: {level['communities']} communities, sizes {level['min']}–{level['max']}")
    asked = hg.ask(THEMES)
    echo(f"\n{THEMES}\nmode: {asked.mode} ({asked.why})\n{asked.text}")
    echo(f"Citations: {', '.join(f'chunk {c}' for c in asked.citations)}")


def demo(store: StoreOpt = None, quiet: QuietOpt = False) -> None:
    """Index the bundled HotpotQA sample, show a two-hop rescue by links, print the method table,
    then answer a question about the whole of the bundled book from its communities."""
    run_demo(store, quiet, typer.echo)


def register(app: typer.Typer) -> None:
    app.command()(demo)
