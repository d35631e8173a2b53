"""The LangChain retriever inside a real LCEL chain (langchain-core, no model): the linked paragraph
reaches the prompt, with how it was found."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.documents import Document
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda, RunnablePassthrough
from two_hop import BRIDGE_TITLE, LINKED_TITLE

from hopgraph.errors import HopgraphError
from hopgraph.integrations.langchain import HopGraphRetriever

PROMPT = ChatPromptTemplate.from_messages([("system", "Answer from the context.\n\n{context}"),
                                           ("human", "{question}")])


def format_docs(docs: list[Document]) -> str:
    return "\n\n".join(f"[{d.metadata['title']}] ({d.metadata['how']})\n{d.page_content}" for d in docs)


def rag_chain(retriever: HopGraphRetriever):
    # The "model" echoes its prompt: what a chat model would be given is what the test reads.
    echo = RunnableLambda(lambda prompt: prompt.to_string())
    return {"context": retriever | format_docs, "question": RunnablePassthrough()} | PROMPT | echo


@pytest.mark.slow
def test_a_chain_retrieving_with_hopgraph_gets_the_paragraph_only_a_link_finds(sample_graph, two_hop):
    prompt = rag_chain(HopGraphRetriever(graph=sample_graph)).invoke(two_hop.question)
    assert two_hop.answer in prompt
    assert f'{BRIDGE_TITLE} → {LINKED_TITLE} via "{LINKED_TITLE}"' in prompt
    plain = rag_chain(HopGraphRetriever(graph=sample_graph, method="hybrid")).invoke(two_hop.question)
    assert two_hop.answer not in plain  # without links the chain never sees the answer


@pytest.mark.slow
def test_documents_carry_the_hit_as_metadata(sample_graph, two_hop):
    docs = HopGraphRetriever(graph=sample_graph, top=5).invoke(two_hop.question)
    hits = sample_graph.search(two_hop.question, top=5).hits
    assert [d.page_content for d in docs] == [h.text for h in hits]
    linked = next(d for d in docs if d.metadata["title"] == LINKED_TITLE)
    bridge = next(h for h in hits if h.title == BRIDGE_TITLE)
    assert linked.metadata["found_by"] == "link"
    assert linked.metadata["via"] == LINKED_TITLE
    assert (linked.metadata["via_chunk_id"], linked.metadata["via_title"]) == (bridge.chunk_id, BRIDGE_TITLE)
    assert {"chunk_id", "doc_id", "source", "score", "how"} <= linked.metadata.keys()
    assert linked.metadata["source"]


@pytest.mark.slow
def test_a_store_path_opens_the_store_and_ainvoke_matches_invoke(two_hop):
    retriever = HopGraphRetriever(graph=str(two_hop.store), top=3)
    try:
        together = asyncio.run(retriever.ainvoke(two_hop.question))
        assert [d.metadata["chunk_id"] for d in together] == [d.metadata["chunk_id"]
                                                              for d in retriever.invoke(two_hop.question)]
        assert len(together) == 3
    finally:
        retriever.graph.close()


def test_a_mistyped_store_path_is_an_error_not_a_new_store(tmp_path):
    with pytest.raises(HopgraphError, match="no store at"):
        HopGraphRetriever(graph=str(tmp_path / "missing.db"))
    assert not (tmp_path / "missing.db").exists()


def test_a_bad_method_fails_when_asked(tiny_graph):
    with pytest.raises(HopgraphError, match="method"):
        HopGraphRetriever(graph=tiny_graph, method="hybrid+nope").invoke("Who directed Big Stone Gap?")


def test_k_sets_the_number_of_documents_and_top_is_its_alias(tiny_graph):
    question = "Who directed Big Stone Gap?"
    assert len(HopGraphRetriever(graph=tiny_graph, k=2).invoke(question)) == 2
    assert len(HopGraphRetriever(graph=tiny_graph, top=1).invoke(question)) == 1
    assert HopGraphRetriever(graph=tiny_graph, top=3).k == 3


def test_k_per_call_overrides_the_constructors(tiny_graph):
    retriever = HopGraphRetriever(graph=tiny_graph, k=3)
    question = "Who directed Big Stone Gap?"
    assert len(retriever.invoke(question, k=1)) == 1
    assert len(retriever.invoke(question, top=2)) == 2
    assert len(asyncio.run(retriever.ainvoke(question, k=1))) == 1
    assert len(retriever.invoke(question)) == 3


def test_an_unknown_field_is_an_error_not_ignored(tiny_graph):
    with pytest.raises(ValueError, match="top_k"):
        HopGraphRetriever(graph=tiny_graph, top_k=3)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"top_k": 1}, "unknown argument.s. top_k"),
    ({"k": 0}, "k must be a whole number of at least 1, got 0"),
    ({"k": 1, "top": 2}, "k=1 and top=2 disagree"),
])
def test_a_bad_per_call_argument_is_an_error(tiny_graph, kwargs, message):
    with pytest.raises(HopgraphError, match=message):
        HopGraphRetriever(graph=tiny_graph).invoke("Who directed Big Stone Gap?", **kwargs)
