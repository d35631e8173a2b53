"""Embedders: the bundled MiniLM ONNX model, and an OpenAI-compatible endpoint served over real HTTP."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from hopgraph.config import Settings
from hopgraph.errors import HopgraphError
from hopgraph.text.embed import MiniLMEmbedder, OpenAIEmbedder, make_embedder, normalise
from hopgraph.text.tokens import wordpiece


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


# --- MiniLM (the real bundled model) ---------------------------------------------------------------


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


COOKING = ("To make a simple tomato sauce, warm olive oil in a heavy pan, add chopped garlic and onion, "
           "and cook them slowly until they are soft and sweet. ")
ASTRONOMY = ("The telescope observed distant galaxies, and astronomers measured how fast the stars and "
             "planets in them were moving away from the Earth. ")


def long_text() -> tuple[str, str]:
    """A text of several model windows (cooking first, astronomy after), and its first window alone."""
    text = COOKING * 12 + ASTRONOMY * 6
    offsets = wordpiece().encode(text, add_special_tokens=False).offsets
    body = MiniLMEmbedder.window - 2  # tokens per window besides [CLS] and [SEP]
    assert len(offsets) > 2 * body
    return text, text[: offsets[body - 1][1]]


def test_minilm_vectors_are_unit_norm_float32_of_dim_384(minilm):
    vectors = minilm.embed(["A short sentence.", "Another, somewhat longer sentence about the weather today.", ""])
    assert vectors.shape == (3, 384) == (3, minilm.dim)
    assert vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    query = minilm.embed_query("A question?")
    assert query.shape == (384,) and query.dtype == np.float32
    assert np.linalg.norm(query) == pytest.approx(1.0, abs=1e-5)


def test_minilm_puts_a_paraphrase_closer_than_an_unrelated_sentence(minilm):
    sentence, paraphrase, unrelated = minilm.embed(["The cat sat on the mat.", "A cat was sitting on the rug.",
                                                     "Quarterly revenue rose by ten percent."])
    assert cosine(sentence, paraphrase) > cosine(sentence, unrelated) + 0.2


def test_minilm_embed_query_matches_embed_of_one_text(minilm):
    text = "Who directed the 2014 film Big Stone Gap?"
    assert cosine(minilm.embed_query(text), minilm.embed([text])[0]) > 0.999


def test_minilm_embeds_a_long_text_over_all_its_windows(minilm):
    text, first_window = long_text()
    whole, first = minilm.embed([text, first_window])
    assert cosine(whole, first) < 0.99
    # The later windows are about astronomy: the whole text is closer to it than its first window is.
    about_stars = minilm.embed_query("astronomers observing galaxies with a telescope")
    assert cosine(whole, about_stars) > cosine(first, about_stars) + 0.05


def test_minilm_rows_do_not_depend_on_the_other_texts_in_the_batch(minilm):
    text, _ = long_text()
    texts = ["Short.", text, "A medium sentence about a harbour, ropes, lanterns and fishing boats.", "Tiny"]
    together = minilm.embed(texts)
    for row, single in zip(together, (minilm.embed([t])[0] for t in texts), strict=True):
        assert cosine(row, single) > 0.999


def test_minilm_reports_progress_in_windows(minilm):
    text, _ = long_text()
    calls: list[tuple[int, int]] = []
    minilm.embed([text, "short"], progress=lambda done, total: calls.append((done, total)))
    assert calls and calls[-1][0] == calls[-1][1] > 2  # more windows than texts


# --- OpenAI-compatible endpoint (a real HTTP server on 127.0.0.1) -----------------------------------


def fake_vector(text: str) -> list[float]:
    """A deterministic, deliberately unnormalised vector that differs from text to text."""
    return [float(len(text)), float(sum(map(ord, text)) % 97 + 1), 3.0, 4.0]


class EmbeddingsHandler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
        mode = self.server.mode
        if mode == "500":
            self._reply(500, b'{"error": "model crashed"}')
            return
        if mode == "not json":
            self._reply(200, b"<html>this is not the API</html>")
            return
        rows = [{"object": "embedding", "index": i, "embedding": fake_vector(t)} for i, t in enumerate(body["input"])]
        rows.reverse()  # out of index order: the client must sort by "index"
        if mode == "short":
            rows = rows[1:]
        if mode == "no embedding":
            del rows[0]["embedding"]
        self._reply(200, json.dumps({"object": "list", "data": rows, "model": body["model"]}).encode())

    def _reply(self, status: int, payload: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[ThreadingHTTPServer]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), EmbeddingsHandler)
    httpd.requests = []
    httpd.mode = "ok"
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=5)


def url_of(httpd: ThreadingHTTPServer) -> str:
    return f"http://127.0.0.1:{httpd.server_address[1]}/v1"


def test_openai_probes_the_dimension_with_one_request(server):
    embedder = OpenAIEmbedder(url_of(server), "nomic-embed-text")
    assert embedder.dim == 4
    assert embedder.name == "openai:nomic-embed-text"
    assert [(r["path"], r["body"]) for r in server.requests] == [
        ("/v1/embeddings", {"model": "nomic-embed-text", "input": ["dimension probe"]})]


def test_openai_rows_come_back_in_text_order_and_normalised(server):
    embedder = OpenAIEmbedder(url_of(server), "m")
    texts = ["alpha", "be", "gamma ray", "d"]
    vectors = embedder.embed(texts)
    assert vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    expected = normalise(np.asarray([fake_vector(t) for t in texts], dtype=np.float32))
    assert np.allclose(vectors, expected)
    assert np.allclose(embedder.embed_query("gamma ray"), expected[2])


def test_openai_sends_texts_in_batches_of_batch_size(server):
    embedder = OpenAIEmbedder(url_of(server), "m")
    embedder.batch_size = 2
    server.requests.clear()
    progress: list[tuple[int, int]] = []
    vectors = embedder.embed(["t0", "t1", "t2", "t3", "t4"], progress=lambda *call: progress.append(call))
    assert [r["body"]["input"] for r in server.requests] == [["t0", "t1"], ["t2", "t3"], ["t4"]]
    assert vectors.shape == (5, 4)
    assert progress == [(2, 5), (4, 5), (5, 5)]


def test_openai_embeds_nothing_without_a_request(server):
    embedder = OpenAIEmbedder(url_of(server), "m")
    server.requests.clear()
    assert embedder.embed([]).shape == (0, 4)
    assert server.requests == []


def test_openai_sends_the_api_key_as_a_bearer_token(server):
    embedder = OpenAIEmbedder(url_of(server), "m", api_key="sk-test-123")
    embedder.embed(["x"])
    assert [r["headers"].get("Authorization") for r in server.requests] == ["Bearer sk-test-123"] * 2


def test_openai_sends_no_authorization_header_without_a_key(server):
    OpenAIEmbedder(url_of(server), "m").embed(["x"])
    assert all("Authorization" not in r["headers"] for r in server.requests)


@pytest.mark.parametrize("mode", ["500", "not json"])
def test_openai_a_failed_reply_is_a_hopgraph_error_naming_the_endpoint(server, mode):
    embedder = OpenAIEmbedder(url_of(server), "m")
    server.mode = mode
    with pytest.raises(HopgraphError, match="embedding endpoint") as caught:
        embedder.embed(["x", "y"])
    assert url_of(server) in str(caught.value)


def test_openai_an_unreachable_endpoint_is_a_hopgraph_error_naming_it():
    with socket.socket() as sock:  # a port that nothing listens on once this socket is closed
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    dead = f"http://127.0.0.1:{port}/v1"
    with pytest.raises(HopgraphError, match=dead):
        OpenAIEmbedder(dead, "m", timeout=5)


def test_openai_a_reply_with_fewer_rows_than_texts_is_a_hopgraph_error(server):
    embedder = OpenAIEmbedder(url_of(server), "m")
    server.mode = "short"
    with pytest.raises(HopgraphError):
        embedder.embed(["x", "y", "z"])


def test_openai_a_row_without_an_embedding_is_a_hopgraph_error(server):
    embedder = OpenAIEmbedder(url_of(server), "m")
    server.mode = "no embedding"
    with pytest.raises(HopgraphError):
        embedder.embed(["x", "y"])


def test_make_embedder_builds_the_openai_client_from_settings(server):
    settings = Settings(embedder="openai", embed_url=url_of(server) + "/", embed_model="bge-small",
                        embed_api_key="secret")
    embedder = make_embedder(settings)
    assert embedder.name == "openai:bge-small"
    (probe,) = server.requests
    assert probe["body"]["model"] == "bge-small"
    assert probe["headers"]["Authorization"] == "Bearer secret"


def test_make_embedder_rejects_an_unknown_embedder():
    with pytest.raises(HopgraphError, match="unknown embedder 'word2vec'"):
        make_embedder(Settings(embedder="word2vec"))


def test_cached_embedder_embeds_each_text_once_and_keeps_order(tmp_path):
    from testkit import BagOfWordsEmbedder

    from hopgraph.store import open_store
    from hopgraph.text.embed import CachedEmbedder

    inner, store = BagOfWordsEmbedder(), open_store(str(tmp_path / "cache.db"))
    cached = CachedEmbedder(inner, store)
    first = cached.embed(["alpha beta", "gamma", "alpha beta"])
    assert inner.texts_embedded == 2  # the repeated text once
    again = CachedEmbedder(inner, store).embed(["gamma", "alpha beta", "delta"])
    assert inner.texts_embedded == 3  # only "delta" was new, even for a fresh wrapper
    np.testing.assert_allclose(again[0], first[1])
    np.testing.assert_allclose(again[1], first[0])
    np.testing.assert_allclose(again[2], inner.embed(["delta"])[0])
    assert cached.embed([]).shape == (0, inner.dim)
    store.close()
