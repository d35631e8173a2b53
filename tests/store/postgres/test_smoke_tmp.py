from testkit import TINY_CORPUS, BagOfWordsEmbedder
from hopgraph.config import Settings
from hopgraph.engine import HopGraph


def test_smoke(pg_url, tmp_path):
    with HopGraph(pg_url, Settings(), embedder=BagOfWordsEmbedder()) as hg:
        hg.index_documents(TINY_CORPUS)
        r = hg.search("Who directed Big Stone Gap?", method="hybrid+names+links")
    with HopGraph(str(tmp_path / "a.db"), Settings(), embedder=BagOfWordsEmbedder()) as hs:
        hs.index_documents(TINY_CORPUS)
        s = hs.search("Who directed Big Stone Gap?", method="hybrid+names+links")
    print([h.title for h in r.hits])
    assert [h.text for h in r.hits] == [h.text for h in s.hits]
