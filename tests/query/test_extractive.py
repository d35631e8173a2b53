"""The offline answer of a search: the best sentences of the hits by similarity to the question."""

from __future__ import annotations

from testkit import BagOfWordsEmbedder

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


def test_no_hits_say_so() -> None:
    answer = extractive_answer("Anything?", [], BagOfWordsEmbedder().embed)
    assert answer.citations == [] and "No passage" in answer.text
