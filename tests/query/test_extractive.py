"""The answer of a search: offline, the best sentences of the hits by similarity to the question; with
an LLM, the model's answer from the hits packed in rank order, its citations checked."""

from __future__ import annotations

import json
import re
from pathlib import Path

from fake_llm import chat
from testkit import TINY_CORPUS, BagOfWordsEmbedder

from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.prompts import search_answer
from hopgraph.query.extractive import extractive_answer
from hopgraph.records.retrieval import Hit


def hit(chunk_id: int, text: str) -> Hit:
    return Hit(chunk_id=chunk_id, doc_id=chunk_id, title=f"doc {chunk_id}", text=text, score=0.0, found_by="hybrid")


FILM = hit(1, "Big Stone Gap is a 2014 American comedy. The film was directed by Adriana Trigiani. "
              "The film was directed in 2014.")
AUTHOR = hit(2, "Adriana Trigiani writes novels. She lives in Greenwich Village.")
QUESTION = "Who directed the film?"


def quoted(line: str) -> tuple[str, int]:
    sentence, chunk = line.rsplit(" [chunk ", 1)
    return sentence.strip('"'), int(chunk.rstrip("]"))


def test_the_best_sentence_by_similarity_comes_first_not_the_first_sentence() -> None:
    answer = extractive_answer(QUESTION, [FILM, AUTHOR], BagOfWordsEmbedder().embed)
    assert quoted(answer.text.splitlines()[0])[0].startswith("The film was directed")  # not the first sentence
    assert answer.citations[0] == 1 and answer.mode == "extractive"


def test_the_second_sentence_comes_from_another_hit_not_the_same_one_again() -> None:
    answer = extractive_answer(QUESTION, [FILM, AUTHOR], BagOfWordsEmbedder().embed)
    lines = [quoted(line) for line in answer.text.splitlines()]
    assert [chunk for _, chunk in lines] == [1, 2] == answer.citations  # not FILM's near-copy second
    assert all(sentence in {1: FILM.text, 2: AUTHOR.text}[chunk] for sentence, chunk in lines)


def test_a_markdown_heading_is_never_quoted_and_a_hit_of_headings_alone_gives_no_sentence() -> None:
    # The heading shares every word of the question, so by similarity alone it would come first.
    profile = hit(3, "# Who directed the film\n\nThe film was directed by Adriana Trigiani.")
    only_headings = hit(4, "# Who directed the film\n\nDIRECTED FILM")
    answer = extractive_answer(QUESTION, [profile, only_headings], BagOfWordsEmbedder().embed)
    assert [quoted(line) for line in answer.text.splitlines()] == [("The film was directed by Adriana Trigiani.", 3)]
    assert answer.citations == [3]


def test_a_question_in_the_evidence_is_never_quoted_it_only_restates_what_is_asked() -> None:
    dialogue = hit(5, "'Who directed the film?' asked Scrooge. The film was directed by Adriana Trigiani.")
    asked_only = hit(6, "Who directed the film? Who directed it?")
    answer = extractive_answer(QUESTION, [dialogue, asked_only], BagOfWordsEmbedder().embed)
    assert [quoted(line) for line in answer.text.splitlines()] == [("The film was directed by Adriana Trigiani.", 5)]


def test_no_hits_say_so() -> None:
    answer = extractive_answer("Anything?", [], BagOfWordsEmbedder().embed)
    assert answer.citations == [] and "No passage" in answer.text


# --- with an LLM: the model's answer from the packed hits, its citations checked ---------------------




BSG = "The director of Big Stone Gap is based in what New York city?"


def llm_facade(tmp_path: Path, url: str, **settings) -> HopGraph:
    hg = HopGraph(str(tmp_path / "llm.db"), Settings(llm_url=url, llm_model="scripted", **settings),
                  embedder=BagOfWordsEmbedder())
    hg.index_documents(TINY_CORPUS)
    return hg


def given_chunks(request: dict) -> list[int]:
    user = request["body"]["messages"][1]["content"]
    return [int(n) for n in re.findall(r"\[chunk (\d+)\]", user)]


def test_with_an_llm_search_answers_from_the_hits_and_drops_a_citation_it_was_not_given(tmp_path, server, fake):
    fake.responder = lambda request: chat(json.dumps({"answer": "Greenwich Village",
                                                      "citations": [*given_chunks(request)[:2], 999]}))
    with llm_facade(tmp_path, server[1]) as hg:
        asked = hg.ask(BSG, mode="search")
    request = next(r for r in fake.requests if r["body"]["messages"][0]["content"] == search_answer.SYSTEM)
    given = given_chunks(request)
    assert given == [hit.chunk_id for hit in asked.retrieval.hits]  # every hit, in rank order
    assert asked.text == "Greenwich Village" and asked.writer == "llm:scripted"
    assert asked.citations == given[:2] and 999 not in asked.sources  # never shown as a source
    assert "1 citation(s) of chunks the model was not given were dropped" in asked.note


def test_a_context_over_budget_keeps_the_best_hits_whole_and_cuts_none_mid_sentence(tmp_path, server, fake):
    fake.responder = lambda request: chat(json.dumps({"answer": "", "citations": []}))
    with llm_facade(tmp_path, server[1], answer_tokens=60) as hg:
        asked = hg.ask(BSG, mode="search")
    request = next(r for r in fake.requests if r["body"]["messages"][0]["content"] == search_answer.SYSTEM)
    given = given_chunks(request)
    hits = asked.retrieval.hits
    assert 1 <= len(given) < len(hits) and given == [hit.chunk_id for hit in hits[: len(given)]]  # by rank
    user = request["body"]["messages"][1]["content"]
    assert all(hit.text in user for hit in hits[: len(given)])  # whole chunks, none cut
    assert asked.text == "(the model gave an empty answer)" and asked.citations == []


def test_with_an_llm_a_refusal_is_shown_as_one_and_cites_nothing(tmp_path, server, fake):
    fake.responder = lambda request: chat(json.dumps({"answer": "The chunks do not say where she is based.",
                                                      "citations": given_chunks(request)[:1]}))
    with llm_facade(tmp_path, server[1]) as hg:
        asked = hg.ask(BSG, mode="search")
    assert asked.text == '(the model found no answer in the hits): "The chunks do not say where she is based."'
    assert asked.citations == [] and asked.sources == {}
