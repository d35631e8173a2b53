"""Documents: GET /documents (the list), POST /documents (a JSON text, or one uploaded file, added
or updated), GET and DELETE /documents/{id}.

Nothing a client sends is ever a path: an upload's file name is a label (its last part, for the
reader to pick by suffix and to cite), its bytes are read from the request body
(ingest/readers.documents_in_bytes), and a document id is an integer looked up in the store.
Documents are written through the same pipeline `hopgraph index` uses (`HopGraph.index_documents`),
and withdrawn as `hopgraph remove` withdraws them (`HopGraph.remove`); a document is known by its
source and title, so sending the same one again updates it.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import PurePosixPath
from typing import Annotated, Any

from fastapi import APIRouter, Path, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.datastructures import UploadFile

from hopgraph.catalog import document_chunks, document_list
from hopgraph.engine import HopGraph
from hopgraph.errors import UnreadableFile
from hopgraph.ingest import readers
from hopgraph.ingest.pipeline import IndexReport
from hopgraph.ingest.readers import documents_in_bytes
from hopgraph.records.documents import Document
from hopgraph.serve.errors import ApiError
from hopgraph.serve.limits import TEXT_CHARS, TITLE_CHARS
from hopgraph.serve.routes import is_json
from hopgraph.serve.shared_graph import Graph

router = APIRouter(tags=["documents"])
NO_NUL = r"^[^\x00]*$"
DocumentId = Annotated[int, Path(ge=1, description="A document id, as POST /documents and the hits of /ask give it.")]


class TextDocument(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # no coercion: a wrong type is 422

    # No NUL character: a file with one is skipped as binary by `hopgraph index`, so the API refuses it too.
    title: str = Field(min_length=1, max_length=TITLE_CHARS, pattern=NO_NUL)
    text: str = Field(min_length=1, max_length=TEXT_CHARS, pattern=NO_NUL)


# Both bodies POST /documents takes, for /docs (the route reads the body itself, by its content type).
BODIES = {"requestBody": {"required": True, "content": {
    "application/json": {"schema": TextDocument.model_json_schema()},
    "multipart/form-data": {"schema": {"type": "object", "required": ["file"], "properties": {
        "file": {"type": "string", "format": "binary",
                 "description": f"{readers.described()}; its name is a label, never a path"}}}}}}}


@router.post("/documents", openapi_extra=BODIES, status_code=201)
async def add_documents(request: Request, response: Response, graph: Graph) -> dict[str, Any]:
    """Add or update documents: 201 when one was added, 200 when they were only updated or unchanged."""
    kind = request.headers.get("content-type", "")
    if kind.startswith("multipart/form-data"):
        docs = await _uploaded(request)
    elif is_json(kind):
        docs = [_text_document(await request.body())]
    else:
        raise ApiError(415, "send a JSON {title, text} or a multipart upload with one `file`")
    report, stored = await run_in_threadpool(graph.write, lambda hg: (hg.index_documents(docs), _stored(hg, docs)))
    if not report.added:
        response.status_code = 200
    return _report_json(report) | {"documents": stored}


@router.get("/documents")
def list_documents(graph: Graph) -> dict[str, Any]:
    """Every indexed document: title, source, when its text was written, chunks, the names that stand
    for it, and the links out of and into its chunks (the inspector's documents view)."""
    return {"documents": graph.read(document_list)}


@router.get("/documents/{doc_id}")
def get_document(doc_id: DocumentId, graph: Graph) -> dict[str, Any]:
    """The document with its chunks: text, place in the document, and the citation /ask gives them."""
    return graph.read(lambda hg: _document_json(hg, doc_id))


@router.delete("/documents/{doc_id}")
def delete_document(doc_id: DocumentId, graph: Graph) -> dict[str, Any]:
    """Withdraw the document: its chunks, keyword entries, links and the relations only it stated."""

    def withdraw(hg: HopGraph) -> IndexReport:
        _find(hg, doc_id)  # an id no document has is a 404, not the 400 `remove` gives a bad target
        return hg.remove([str(doc_id)])

    return _report_json(graph.write(withdraw))


def _text_document(body: bytes) -> Document:
    try:
        sent = TextDocument.model_validate_json(body)
    except ValidationError as err:
        raise RequestValidationError(err.errors()) from None
    title = sent.title.strip()
    if not title:  # "\u000b" passes the schema's pattern: no title is left once stripped
        raise ApiError(422, "title: needs a character that is not white space")
    return Document(title=title, text=sent.text, source=f"api:{title}")


async def _uploaded(request: Request) -> list[Document]:
    async with request.form(max_files=1, max_fields=0) as form:
        upload = form.get("file")
        if not isinstance(upload, UploadFile):
            raise ApiError(422, "a multipart upload needs one file in the field `file`")
        label = upload_label(upload.filename or "")
        data = await upload.read()
    try:
        docs = documents_in_bytes(PurePosixPath(label), data)
    except UnreadableFile as err:
        raise ApiError(422, str(err)) from None
    return [replace(doc, source=f"upload:{label}") for doc in docs]


def upload_label(filename: str) -> str:
    """The last part of an upload's file name, whatever separators it uses: a label, never a path."""
    label = PurePosixPath(filename.replace("\\", "/")).name
    label = "".join(ch for ch in label if ch.isprintable())[:TITLE_CHARS]
    if label in {"", ".", ".."} or not PurePosixPath(label).suffix:
        raise ApiError(422, f"the upload needs a file name with a suffix (.txt .md .pdf …), not {filename!r}")
    return label


def _find(hg: HopGraph, doc_id: int) -> Any:
    for stored in hg.store.active_documents().values():
        if stored.id == doc_id:
            return stored
    raise ApiError(404, f"no document with id {doc_id}")


def _document_json(hg: HopGraph, doc_id: int) -> dict[str, Any]:
    _find(hg, doc_id)  # 404 for an unknown id
    return document_chunks(hg, doc_id)


def _stored(hg: HopGraph, docs: list[Document]) -> list[dict[str, Any]]:
    active = hg.store.active_documents()
    found = (active.get((doc.source, doc.title)) for doc in docs)
    return [{"id": s.id, "title": s.title, "source": s.source} for s in found if s is not None]


def _report_json(report: IndexReport) -> dict[str, Any]:
    return {"added": report.added, "updated": report.updated, "unchanged": report.unchanged,
            "withdrawn": report.withdrawn, "chunks_embedded": report.embedded,
            "seconds": round(report.seconds.get("total", 0.0), 3)}
