// The inspector's documents view: what the store holds (GET /documents), files uploaded one by one
// to POST /documents with a progress line, a document removed with DELETE /documents/{id}.
// Uses inspector.js's helpers (api, el, status); every text from the server or a file name is set
// as text, never as HTML.
"use strict";

async function loadDocuments() {
  const note = document.getElementById("documents-note");
  note.textContent = "Loading the documents…";
  try {
    const { documents } = await api("/documents");
    const chunks = documents.reduce((sum, d) => sum + d.chunks, 0);
    note.textContent = `${documents.length} document(s), ${chunks} chunk(s) indexed.`;
    document.getElementById("documents").replaceChildren(documentTable(documents));
  } catch (err) {
    note.textContent = err.message;
  }
}

function documentTable(documents) {
  if (!documents.length) return el("p", { class: "empty" }, "Nothing is indexed yet: upload a file above.");
  return el("table", { id: "documents-table" },
    el("thead", {}, el("tr", {}, ["title", "source", "chunks", "names", "links", "added", ""].map((h) => el("th", {}, h)))),
    el("tbody", {}, documents.map((d) => el("tr", { "data-doc": d.id },
      el("td", { class: "doc-title" }, d.title),
      el("td", { class: "meta" }, d.source),
      el("td", {}, String(d.chunks)),
      el("td", { title: d.names.join(", ") }, namesText(d.names)),
      el("td", { class: "nowrap" }, `${d.links_out} out · ${d.links_in} in`),
      el("td", { class: "meta nowrap" }, addedText(d.added_at)),
      el("td", {}, el("button", { type: "button", class: "remove", onclick: () => removeDocument(d) }, "Remove"))))));
}

// The first few names that stand for the document (all of them in the cell's tooltip).
function namesText(names, shown = 3) {
  if (!names.length) return "–";
  const more = names.length > shown ? ` +${names.length - shown}` : "";
  return names.slice(0, shown).join(", ") + more;
}

function addedText(stamp) {
  return stamp ? stamp.replace("T", " ").replace("+00:00", " UTC") : "–";
}

async function removeDocument(doc) {
  if (!confirm(`Remove “${doc.title}” from the index?`)) return;
  status(`Removing ${doc.title}…`);
  try {
    await api(`/documents/${doc.id}`, { method: "DELETE" });
    status(`Removed ${doc.title}.`);
    indexChanged();
  } catch (err) {
    status(`${doc.title}: ${err.message}`, true);
  }
}

// The graph and the community tree were drawn from the old index: drawn again when next shown.
function indexChanged() {
  state.graphFor = null;
  state.treeLoaded = false;
  return loadDocuments();
}

// --- upload -----------------------------------------------------------------------------------

// One file per request, in order, so the line can say which one is sent and a bad file fails alone.
async function uploadFiles(input) {
  const files = [...input.files];
  const progress = document.getElementById("upload-progress");
  const errors = document.getElementById("upload-errors");
  errors.replaceChildren();
  let failed = 0;
  for (const [i, file] of files.entries()) {
    progress.textContent = `${i + 1} of ${files.length}: ${file.name}`;
    try {
      await sendFile(file);
    } catch (err) {
      failed += 1;
      errors.append(el("li", { class: "error" }, `${file.name}: ${err.message}`));
    }
  }
  progress.textContent = `Uploaded ${files.length - failed} of ${files.length} file(s)` +
    (failed ? `; ${failed} failed.` : ".");
  input.value = "";  // the same files may be chosen again
  await indexChanged();
}

async function sendFile(file) {
  const form = new FormData();
  form.append("file", file, file.name);  // the server keeps the name's last part, as a label
  // no Content-Type header: the browser writes the multipart boundary itself
  const response = await fetch("/documents", { method: "POST", body: form, credentials: "same-origin" });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(errorText(body) || `${response.status} ${response.statusText}`);
  return body;
}

for (const id of ["upload-files", "upload-folder"]) {
  const input = document.getElementById(id);
  input.addEventListener("change", () => { if (input.files.length) uploadFiles(input); });
}
