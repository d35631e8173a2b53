"""POST /ask: a question in any mode, answered as `hopgraph ask --json` answers it (`Answer.to_json`:
the hits with their ranks and how each was found, the relation paths, the citations, the time of
each stage), with optional `limits` for this question only (query/ask.AskLimits)."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict, Field

from hopgraph.engine import HopGraph
from hopgraph.query.ask import CORPUS_MODES, MODES, AskLimits
from hopgraph.serve.limits import QUESTION_CHARS
from hopgraph.serve.routes import JsonResult, require_json
from hopgraph.serve.shared_graph import Graph, SharedGraph

router = APIRouter(tags=["questions"])


class QuestionLimits(BaseModel):
    """What `HopGraph.ask` bounds per question (AskLimits); unset: the server's settings. A mode
    that a limit does not concern ignores it."""

    model_config = ConfigDict(extra="forbid", strict=True)

    seeds: int | None = Field(default=None, ge=0, le=100, description="search and auto: the top hits whose "
                              "links (and the PPR walk) are followed (setting `seeds`, 3; 0: no links).")
    max_hops: int | None = Field(default=None, ge=1, le=6, description="local: hops of the walk from the "
                                 "question's entities (2).")
    max_nodes: int | None = Field(default=None, ge=1, le=1000, description="local: entities the walk visits (50).")
    steps: int | None = Field(default=None, ge=1, le=10, description="iterative: retrievals at most "
                              "(setting `iterative_steps`, 3).")
    answer_tokens: int | None = Field(default=None, ge=100, le=32000, description="with an LLM, search and "
                                      "iterative: hit text the model reads (setting `answer_tokens`, 3000).")


class AskRequest(BaseModel):
    """What `hopgraph ask` takes: the question, its mode, a retrieval method, the places in the answer;
    and limits of this question's work."""

    # strict: a JSON value of the wrong type ("3" for a number, "yes" for a boolean) is a 422
    # naming the field, never coerced into something the client did not send.
    model_config = ConfigDict(extra="forbid", strict=True)

    question: str = Field(min_length=1, max_length=QUESTION_CHARS)
    mode: Literal[*MODES] = "auto"  # type: ignore[valid-type]
    method: str | None = Field(default=None, max_length=100,
                               description="For mode search: vector | bm25 | hybrid, +names, +links; ppr; auto.")
    top: int | None = Field(default=None, ge=1, le=1000, description="Places in the answer.")
    answer: bool = Field(default=True, description="False: the ranked chunks only (`ask --no-answer`).")
    limits: QuestionLimits | None = None


@router.post("/ask", response_class=JsonResult, dependencies=[Depends(require_json)])
def ask(request: AskRequest, graph: Graph) -> JsonResult:
    def run(hg: HopGraph) -> dict:
        limits = AskLimits(**request.limits.model_dump()) if request.limits else None
        return hg.ask(request.question, request.mode, request.method, request.top, request.answer, limits).to_json()

    return JsonResult(graph.write_if_free(run) if _may_write(request, graph) else graph.read(run))


def _may_write(request: AskRequest, graph: SharedGraph) -> bool:
    """Global, lazy and DRIFT search store the community tree and reports they make on first use;
    `auto` goes there when the router calls the question global."""
    if request.mode in CORPUS_MODES:
        return True
    if request.mode != "auto" or request.method is not None:
        return False
    return graph.read(lambda hg: hg.route(request.question).kind == "global")
