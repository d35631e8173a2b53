"""The MCP server: over stdio as a client launches it (`hopgraph mcp`, a real subprocess), and its
tools in-process over the supplier triples."""

from __future__ import annotations

import asyncio
import json
import sys

import pytest
from child_env import hopgraph_path
from cli_kit import TRIPLES
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from two_hop import LINKED_TITLE

from hopgraph import __version__
from hopgraph.config import Settings
from hopgraph.engine import HopGraph
from hopgraph.integrations.mcp_server import build_server
from hopgraph.query.modes import mode_names, modes


def call(server, tool: str, arguments: dict):
    async def run():
        async with Client(server) as client:
            return await client.call_tool(tool, arguments)
    return asyncio.run(run())


@pytest.mark.slow
def test_hopgraph_mcp_over_stdio_lists_its_tools_and_answers_a_two_hop_question(two_hop, tmp_path):
    # What an MCP client's config says: the command and its arguments. The client passes only a
    # few safe variables on; PYTHONPATH keeps the hopgraph under test in the child.
    params = StdioServerParameters(command=sys.executable, cwd=str(tmp_path),
                                   args=["-m", "hopgraph.cli.app", "mcp", "--store", str(two_hop.store)],
                                   env={"PYTHONPATH": hopgraph_path()})

    async def session():
        async with Client(params, read_timeout_seconds=120) as client:
            tools = await client.list_tools()
            asked = await client.call_tool("ask", {"question": two_hop.question, "mode": "search"})
            return tools, asked

    tools, asked = asyncio.run(session())
    assert {tool.name for tool in tools.tools} == {"ask", "paths", "entities"}
    described = next(tool.description for tool in tools.tools if tool.name == "ask")
    assert all(f"{mode.name} ({mode.description})" in described for mode in modes())  # the mode registry's
    assert not asked.is_error, asked.content
    answer = asked.structured_content
    linked = next(hit for hit in answer["hits"] if hit["title"] == LINKED_TITLE)
    assert linked["found_by"] == "link" and linked["via"]["name"] == LINKED_TITLE
    assert two_hop.answer in linked["text"]
    assert json.loads(asked.content[0].text) == answer  # the same JSON as text, for clients without structure


@pytest.fixture
def suppliers(tmp_path, embedder):
    (tmp_path / "triples.csv").write_text(TRIPLES, encoding="utf-8")
    with HopGraph(str(tmp_path / "s.db"), Settings(), embedder=embedder) as hg:
        hg.import_triples(tmp_path / "triples.csv")
        yield hg


def test_entities_finds_names_and_aliases_containing_the_query(suppliers):
    result = call(build_server(suppliers), "entities", {"q": "kallur"})
    names = [entity["name"] for entity in result.structured_content["result"]]
    assert sorted(names) == ["Kallur Iron Works", "Kallur Pig Iron Works"]
    assert all(entity["chunks"] for entity in result.structured_content["result"])


def test_paths_lists_each_route_into_an_entity_with_its_hops(suppliers):
    # Anvaya's plant is in Hosur; Corvane buys from Anvaya; Zephyra from Corvane: all depend on Hosur.
    result = call(build_server(suppliers), "paths", {"to": "Hosur", "max_hops": 3})
    routes = sorted(" / ".join(f"{h['source']} {h['relation']} {h['target']}" for h in path)
                    for path in result.structured_content["result"])
    assert routes == [
        "Anvaya Foundry LOCATED_IN Hosur",
        "Anvaya Foundry SUPPLIES Corvane Brake Systems / Anvaya Foundry LOCATED_IN Hosur",
        "Corvane Brake Systems SUPPLIES Zephyra Motors / Anvaya Foundry SUPPLIES Corvane Brake Systems / "
        "Anvaya Foundry LOCATED_IN Hosur",
    ]
    one_hop = call(build_server(suppliers), "paths", {"to": "Hosur", "max_hops": 1}).structured_content["result"]
    assert len(one_hop) == 1 and one_hop[0][0]["chunk_id"] > 0


@pytest.mark.parametrize(("tool", "arguments", "message"), [
    ("paths", {"to": "Nowhere Ltd"}, "no entity called 'Nowhere Ltd'"),
    ("entities", {"q": "  "}, "the entity query is empty"),
    ("entities", {"q": "a", "limit": 0}, "limit must be between 1 and 100"),
    ("ask", {"question": "Who supplies Anvaya?", "mode": "sideways"}, "mode"),
])
def test_bad_input_comes_back_as_the_tools_error_message(suppliers, tool, arguments, message):
    result = call(build_server(suppliers), tool, arguments)
    assert result.is_error
    assert message in result.content[0].text


def test_the_server_reports_hopgraphs_version_and_modes_as_an_enum(suppliers):
    async def run():
        async with Client(build_server(suppliers)) as client:
            return client.server_info, await client.list_tools()

    info, tools = asyncio.run(run())
    assert (info.name, info.version) == ("hopgraph", __version__)
    ask = next(tool for tool in tools.tools if tool.name == "ask")
    assert ask.input_schema["properties"]["mode"]["enum"] == list(mode_names())


def test_the_documents_are_resources_listed_and_read_chunk_by_chunk(suppliers):
    async def run():
        async with Client(build_server(suppliers)) as client:
            listed = await client.read_resource("hopgraph://documents")
            docs = json.loads(listed.contents[0].text)
            one = await client.read_resource(f"hopgraph://documents/{docs[0]['id']}")
            templates = await client.list_resource_templates()
            return docs, json.loads(one.contents[0].text), templates

    docs, one, templates = asyncio.run(run())
    assert docs and all(doc["chunks"] >= 1 and doc["title"] for doc in docs)
    assert (one["id"], one["title"]) == (docs[0]["id"], docs[0]["title"])
    assert len(one["chunks"]) == docs[0]["chunks"] and all(chunk["text"] for chunk in one["chunks"])
    assert [t.uri_template for t in templates.resource_templates] == ["hopgraph://documents/{doc_id}"]


def test_an_unknown_document_resource_is_an_error_naming_it(suppliers):
    async def run():
        async with Client(build_server(suppliers)) as client:
            try:
                await client.read_resource("hopgraph://documents/999")
            except MCPError as err:
                return err
        return None

    assert "no document with id 999" in str(asyncio.run(run()))
