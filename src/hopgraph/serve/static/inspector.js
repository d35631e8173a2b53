// The hopgraph inspector: one question, every retrieval stage side by side, the question's
// neighbourhood in the knowledge graph, and the community tree (the documents view is documents.js).
// Plain DOM, no build step; every text from the server goes through textContent, never innerHTML.
"use strict";

const state = { question: "", graphFor: null, treeLoaded: false, cy: null };

// A server with a token (bound beyond localhost) is opened once at /?token=…: it sets an HttpOnly
// session cookie, which the browser sends with every call below; this script never sees the token.
async function api(path, options = {}) {
  const headers = { "Content-Type": "application/json" };
  const response = await fetch(path, { ...options, headers, credentials: "same-origin" });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(errorText(body) || `${response.status} ${response.statusText}`);
  return body;
}

function errorText(body) {
  const detail = body.detail ?? body.message ?? body.error;
  if (Array.isArray(detail)) return detail.map((d) => `${(d.loc || []).slice(1).join(".")}: ${d.msg}`).join("; ");
  return typeof detail === "string" ? detail : "";
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "onclick") node.addEventListener("click", value);
    else if (value !== undefined && value !== null) node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

function fill(id, title, ...content) {
  document.getElementById(id).replaceChildren(el("h2", {}, title), ...content.filter(Boolean));
}

function status(text, isError = false) {
  const line = document.getElementById("status");
  line.textContent = text;
  line.classList.toggle("error", isError);
}

// --- chunks and citations ---------------------------------------------------------------------

function chunkButton(chunkId, label) {
  return el("button", { type: "button", class: "cite", "data-chunk": chunkId, onclick: () => openChunk(chunkId) },
    label ?? `chunk ${chunkId}`);
}

async function openChunk(chunkId) {
  const panel = document.getElementById("chunk-panel");
  const body = document.getElementById("chunk-body");
  panel.hidden = false;
  body.replaceChildren(el("p", { class: "empty" }, "Loading…"));
  try {
    const chunk = await api(`/api/inspect/chunk/${chunkId}`);
    const links = chunk.links.map((l) => el("li", {}, `via “${l.name}” → `, chunkButton(l.to_chunk, l.to_title)));
    body.replaceChildren(...[
      el("h2", {}, chunk.title),
      el("p", { class: "meta" }, `chunk ${chunk.chunk} · ${chunk.source}`),
      el("p", { class: "chunk-text" }, chunk.text),
      links.length ? el("h3", {}, "Links out of this chunk") : null,
      links.length ? el("ul", { class: "plain" }, links) : null].filter(Boolean));
  } catch (err) {
    body.replaceChildren(el("p", { class: "error" }, err.message));
  }
}

// "… [chunk 12]" and "[chunks 3, 4]" in an answer become buttons that open the chunk.
function withCitations(text) {
  const parts = [];
  let last = 0;
  for (const match of text.matchAll(/\[chunks? ([\d, ]+)\]/g)) {
    parts.push(text.slice(last, match.index));
    for (const id of match[1].split(",").map((s) => s.trim()).filter(Boolean)) parts.push(chunkButton(Number(id)));
    last = match.index + match[0].length;
  }
  parts.push(text.slice(last));
  return parts;
}

// --- the stages view --------------------------------------------------------------------------

function table(headers, rows) {
  if (!rows.length) return el("p", { class: "empty" }, "nothing");
  return el("table", {}, el("thead", {}, el("tr", {}, headers.map((h) => el("th", {}, h)))),
    el("tbody", {}, rows.map((cells) => el("tr", {}, cells.map((c) => el("td", {}, c))))));
}

function placedMark(rank) {
  return rank ? el("span", { class: "badge placed", title: "in the final top k" }, `#${rank}`) : "";
}

function rankedTable(rows, withRanks = false) {
  return table(["#", "chunk", "score", ...(withRanks ? ["vector", "bm25"] : []), "top k"],
    rows.map((r) => [String(r.rank), chunkButton(r.chunk, r.title), r.score.toFixed(4),
      ...(withRanks ? [r.ranks.vector ? `#${r.ranks.vector}` : "–", r.ranks.bm25 ? `#${r.ranks.bm25}` : "–"] : []),
      placedMark(r.placed)]));
}

function stepTable(steps) {
  return table(["#", "from", "", "to", "via name"], steps.map((s) => [String(s.rank),
    chunkButton(s.from_chunk, s.from_title), "→", chunkButton(s.to_chunk, s.to_title),
    el("span", { class: "via" }, `“${s.name}”`)]));
}

// Search without an LLM: the short answer first (a span of the evidence, its sentence, its citation),
// or that none was good enough. Set as text, never as HTML: it is copied from the documents.
function shortAnswer(answer) {
  if (answer.answer.writer !== "extractive") return null;
  const short = answer.short_answer;
  if (!short) return el("p", { class: "short-answer none" }, "No short answer found: the evidence below may hold it.");
  return el("div", { class: "short-answer" }, el("p", {}, el("strong", {}, short.text)),
    short.sentence ? el("p", { class: "meta" }, `“${short.sentence}” `,
      short.chunk !== null ? chunkButton(short.chunk, `[${short.chunk}]`) : null, short.source ? ` ${short.source}` : "")
      : null);
}

function renderAnswer(answer) {
  const cited = answer.answer.citations;
  fill("answer", "Answer", shortAnswer(answer),
    el("div", { class: "answer-text" }, answer.answer.text.split("\n").map((line) => el("p", {}, withCitations(line)))),
    el("p", { class: "meta" }, `written by ${answer.answer.writer || "nobody"} · ${answer.why}`),
    cited.length ? el("ul", { class: "plain citations" },
      cited.map((c) => el("li", {}, chunkButton(c.chunk, `[${c.chunk}]`), ` ${c.source}`))) : null,
    answer.note ? el("p", { class: "note" }, answer.note) : null);
}

function renderRoute(route, method, routedMode) {
  const signals = Object.entries(route.signals).filter(([, v]) => v && (!Array.isArray(v) || v.length));
  const elsewhere = routedMode !== "search";  // `hopgraph ask` would not answer with a search
  fill("route", "Router",
    el("p", {}, el("strong", {}, route.kind), ` → ${route.method} `,
      el("span", { class: "badge" }, route.used ? `used: ${method}` : "shown only (a method was chosen)")),
    el("p", { class: "routed-mode" }, elsewhere
      ? `The router sends this question to ${routedMode} mode, not to a search.`
      : `The router sends this question to a search with ${route.method}.`),
    el("p", {}, `Why (${route.decided_by}): ${route.reason}`),
    signals.length ? el("p", { class: "meta" }, "signals: " + signals.map(([k, v]) =>
      `${k} = ${Array.isArray(v) ? v.join(", ") : v}`).join(" · ")) : null,
    elsewhere ? el("button", { type: "button", id: "routed-answer", onclick: () => askRouted(routedMode) },
      `Answer in ${routedMode} mode`) : null,
    el("div", { id: "routed-result" }));
  document.getElementById("stages-note").textContent = elsewhere
    ? `The answer and stages below are those of a search with ${method}: what retrieval finds for the question, ` +
      `not how ${routedMode} mode answers it.`
    : `The answer and stages below are those of the search with ${method}.`;
}

// The routed mode's own answer, on request: global search may call the LLM and store what it builds.
async function askRouted(mode) {
  const out = document.getElementById("routed-result");
  out.replaceChildren(el("p", { class: "empty" }, `Asking in ${mode} mode…`));
  try {
    const answer = await api("/ask", { method: "POST", body: JSON.stringify({ question: state.question, mode }) });
    out.replaceChildren(...[el("h3", {}, `${answer.mode} mode's answer`),
      el("div", { class: "answer-text" }, answer.answer.text.split("\n").map((line) => el("p", {}, withCitations(line)))),
      el("p", { class: "meta" }, `written by ${answer.answer.writer || "nobody"} · ${answer.why}`),
      answer.note ? el("p", { class: "note" }, answer.note) : null].filter(Boolean));
  } catch (err) {
    out.replaceChildren(el("p", { class: "error" }, err.message));
  }
}

function renderStages(data) {
  const s = data.stages;
  renderAnswer(data.answer);
  renderRoute(s.route, s.method, data.routed_mode);
  fill("vector", "Vector hits", rankedTable(s.vector));
  fill("bm25", "BM25 hits", rankedTable(s.bm25));
  fill("fusion", "Fusion", el("p", { class: "meta" }, s.fusion_detail), rankedTable(s.fusion, true));
  fill("names", "Names in the question", s.names.length ? el("ul", { class: "plain" }, s.names.map((n) =>
    el("li", {}, el("strong", {}, n.name), n.placed ? el("span", { class: "badge placed" }, "placed") : "",
      " → ", n.chunks.map((c) => chunkButton(c.chunk, c.title))))) : el("p", { class: "empty" }, "no name found"));
  fill("links", "Links followed", stepTable(s.links));
  fill("ppr", "PPR walk", el("p", { class: "meta" }, s.ppr_detail || "the walk did not run"), stepTable(s.ppr));
  // document, its page or chunk position (the source: `file.pdf#p3`, `notes.md#2`) and the first
  // words, so that four chunks of one file are told apart
  fill("hits", "Final top k", table(["#", "chunk", "source", "begins", "found by", "how", "score"],
    data.answer.hits.map((h) => [String(h.rank), chunkButton(h.chunk, h.title), h.source,
      el("span", { class: "first-words" }, firstWords(h.text)),
      el("span", { class: `badge by-${h.found_by}` }, h.found_by), h.how, h.score.toFixed(4)])));
  const seconds = data.answer.used.seconds;
  fill("timings", "Time per stage", table(["stage", "ms", "detail"], [
    ...s.timings.map((t) => [t.stage, t.ms.toFixed(1), t.detail]),
    ["answer", ((seconds.answer ?? 0) * 1000).toFixed(1), data.answer.answer.writer],
    ["total", ((seconds.total ?? 0) * 1000).toFixed(1), "the whole request, in process"]]));
}

function firstWords(text, count = 10) {
  const words = text.split(/\s+/).filter(Boolean);
  return words.slice(0, count).join(" ") + (words.length > count ? " …" : "");
}

async function ask(event) {
  event.preventDefault();
  const question = document.getElementById("question").value.trim();
  if (!question) return status("Type a question first.", true);
  const body = { question, method: document.getElementById("method").value,
    top: Number(document.getElementById("top").value) || null };
  status("Searching…");
  try {
    const data = await api("/api/inspect/ask", { method: "POST", body: JSON.stringify(body) });
    state.question = question;
    state.walk = data.walk;
    renderStages(data);
    if (currentView() === "walk") drawWalk();
    status(`${data.stages.method}: ${data.answer.hits.length} hits in ${data.answer.retrieval.ms.toFixed(1)} ms`);
    if (currentView() === "graph") loadGraph();
  } catch (err) {
    status(err.message, true);
  }
}

// --- the graph view ---------------------------------------------------------------------------

// Co-occurrence (the no-LLM concept graph) is undirected and says nothing on an edge: a light line
// with no label. A stated relation keeps its arrow and its name. Long names are cut on the canvas
// (the entity panel shows them whole).
const COOCCURS = "CO_OCCURS";
const GRAPH_STYLE = [
  { selector: "node", style: { label: "data(label)", "font-size": 11, "background-color": "#7b8fa6", color: "#1d2733",
    "text-valign": "bottom", "text-margin-y": 3, width: 16, height: 16, "text-wrap": "ellipsis", "text-max-width": 150 } },
  { selector: "node[hop = 2]", style: { "background-color": "#b5c0cc", width: 11, height: 11, "font-size": 9, color: "#6b7785" } },
  { selector: "node[?seed]", style: { "background-color": "#d9822b", width: 26, height: 26, "font-weight": "bold",
    "font-size": 13 } },
  { selector: "node:selected", style: { "border-width": 3, "border-color": "#1f5fbf" } },
  { selector: "edge", style: { width: "mapData(weight, 1, 5, 1, 4)", "line-color": "#9fb0c2", "curve-style": "bezier",
    "target-arrow-shape": "triangle", "target-arrow-color": "#9fb0c2", "arrow-scale": 0.8, label: "data(label)",
    "font-size": 9, color: "#5b6775", "text-rotation": "autorotate", "text-background-color": "#fff",
    "text-background-opacity": 0.8 } },
  // co-occurrence (the no-LLM concept graph's noise next to typed relations): hidden unless asked for
  { selector: `edge[relation = "${COOCCURS}"]`, style: { label: "", "target-arrow-shape": "none", "line-color": "#dbe1e8",
    display: "none" } },
];

function showCooccurrence() {
  const shown = document.getElementById("show-cooccurrence").checked;
  if (state.cy) state.cy.edges(`[relation = "${COOCCURS}"]`).style("display", shown ? "element" : "none");
}

// --- the walked name-link graph ---------------------------------------------------------------

const WALK_STYLE = [
  { selector: "node", style: { label: "data(label)", "font-size": 11, color: "#1d2733", "text-valign": "bottom",
    "text-margin-y": 3, "text-wrap": "ellipsis", "text-max-width": 180, width: 18, height: 18,
    "background-color": "#7b8fa6" } },
  { selector: 'node[kind = "question"]', style: { shape: "star", "background-color": "#1f5fbf", width: 30, height: 30 } },
  { selector: 'node[kind = "seed"]', style: { "background-color": "#d9822b", width: 24, height: 24 } },
  { selector: 'node[kind = "name"]', style: { shape: "round-rectangle", "background-color": "#f2d16b", width: 14, height: 14,
    "font-style": "italic" } },
  { selector: 'node[kind = "linked"]', style: { "background-color": "#3a9d5d" } },
  { selector: "node[mass]", style: { width: "mapData(mass, 0, 0.5, 16, 60)", height: "mapData(mass, 0, 0.5, 16, 60)" } },
  { selector: 'node[kind = "walked"]', style: { "background-color": "#c9d1da" } },
  { selector: "edge", style: { width: 2, "line-color": "#9fb0c2", "curve-style": "bezier", "target-arrow-shape": "triangle",
    "target-arrow-color": "#9fb0c2" } },
];

function drawWalk() {
  const walk = state.walk;
  if (!walk) return;
  const elements = [
    ...walk.nodes.map((n) => ({ data: Object.fromEntries(Object.entries(n).filter(([, v]) => v !== null)) })),
    ...walk.edges.map((e, i) => ({ data: { id: `w${i}`, ...e } })),
  ];
  if (state.walkCy) state.walkCy.destroy();
  state.walkCy = cytoscape({ container: document.getElementById("walk"), elements, style: WALK_STYLE,
    layout: { name: "breadthfirst", directed: true, roots: "#question", padding: 20, spacingFactor: 1.1 } });
  state.walkCy.on("tap", "node[chunk]", (event) => openChunk(event.target.data("chunk")));
  const names = walk.nodes.filter((n) => n.kind === "name").length;
  const linked = walk.nodes.filter((n) => n.kind === "linked").length;
  document.getElementById("walk-note").textContent =
    `${names} name(s) followed to ${linked} linked chunk(s) from the question's seeds. Click a chunk to read it.`;
  document.getElementById("walk").dataset.nodes = String(walk.nodes.length);
}

async function loadGraph() {
  const note = document.getElementById("graph-note");
  if (!state.question) { note.textContent = "Ask a question first: the graph is drawn around it."; return; }
  if (state.graphFor === state.question) return;
  note.textContent = "Loading the neighbourhood…";
  try {
    const data = await api(`/api/inspect/neighbourhood?question=${encodeURIComponent(state.question)}`);
    state.graphFor = state.question;
    note.textContent = `${data.nodes.length} entities, ${data.edges.length} relations; seeds from ${data.seeds_from}.`;
    drawGraph(data);
  } catch (err) {
    note.textContent = err.message;
  }
}

function drawGraph(data) {
  const elements = [
    ...data.nodes.map((n) => ({ data: { id: `e${n.id}`, entity: n.id, label: n.name, seed: n.seed, hop: n.hop } })),
    ...data.edges.map((e) => ({ data: { id: `r${e.id}`, source: `e${e.source}`, target: `e${e.target}`,
      label: e.relation.toLowerCase().replaceAll("_", " "), relation: e.relation, weight: e.weight } })),
  ];
  if (state.cy) state.cy.destroy();
  state.cy = cytoscape({ container: document.getElementById("graph"), elements, style: GRAPH_STYLE,
    layout: { name: "cose", animate: false, randomize: false, nodeRepulsion: 400000, idealEdgeLength: 110,
      nodeDimensionsIncludeLabels: true, padding: 20 } });
  state.cy.on("tap", "node", (event) => openEntity(event.target.data("entity")));
  showCooccurrence();
  document.getElementById("graph").dataset.nodes = String(data.nodes.length);  // the canvas hides its count
}

async function openEntity(entityId) {
  const panel = document.getElementById("entity");
  panel.replaceChildren(el("h2", {}, "Entity"), el("p", { class: "empty" }, "Loading…"));
  try {
    const entity = await api(`/api/inspect/entity/${entityId}`);
    const relations = entity.relations.map((r) => el("li", {},
      el("p", { class: "relation" }, `${r.source_name} —${r.relation}→ ${r.target_name}`),
      r.sources.map((s) => el("blockquote", {}, s.sentence, " ", chunkButton(s.chunk)))));
    panel.replaceChildren(...[el("h2", {}, entity.name), el("p", { class: "meta" }, entity.type),
      entity.description ? el("p", {}, entity.description) : null,
      relations.length ? el("ul", { class: "plain relations" }, relations) : el("p", { class: "empty" }, "no relations")]
      .filter(Boolean));
  } catch (err) {
    panel.replaceChildren(el("h2", {}, "Entity"), el("p", { class: "error" }, err.message));
  }
}

// --- the community view -----------------------------------------------------------------------

async function loadTree() {
  if (state.treeLoaded) return;
  const note = document.getElementById("tree-note");
  note.textContent = "Loading the community tree…";
  try {
    const data = await api("/api/inspect/community-tree");
    state.treeLoaded = true;
    note.textContent = data.note || `${data.communities.length} communities in ${data.levels} level(s), coarsest first.`;
    const byId = new Map(data.communities.map((c) => [c.id, c]));
    const roots = data.communities.filter((c) => c.parent === null);
    document.getElementById("tree").replaceChildren(el("ul", { class: "tree" }, roots.map((c) => treeNode(c, byId))));
  } catch (err) {
    note.textContent = err.message;
  }
}

function communityLine(community) {
  const labels = community.labels.length ? community.labels.slice(0, 4).join(" · ") : community.title;
  return [el("span", { class: "community-label" }, labels),
    el("span", { class: "badge" }, `level ${community.level} · ${community.size} entities`),
    community.entities.length ? el("span", { class: "meta" }, ` ${community.entities.join(", ")}`) : null];
}

function treeNode(community, byId) {
  const children = community.children.map((id) => byId.get(id)).filter(Boolean);
  if (!children.length) return el("li", { class: "leaf" }, communityLine(community));
  return el("li", {}, el("details", {}, el("summary", {}, communityLine(community)),
    el("ul", {}, children.map((c) => treeNode(c, byId)))));
}

// --- tabs -------------------------------------------------------------------------------------

function currentView() {
  return document.querySelector(".tab.active").dataset.view;
}

function show(view) {
  for (const tab of document.querySelectorAll(".tab")) tab.classList.toggle("active", tab.dataset.view === view);
  for (const section of document.querySelectorAll(".view")) section.classList.toggle("active", section.id === `view-${view}`);
  if (view === "graph") loadGraph().then(() => state.cy && state.cy.resize().fit());
  if (view === "walk") { drawWalk(); if (state.walkCy) state.walkCy.resize().fit(); }
  if (view === "communities") loadTree();
  if (view === "documents") loadDocuments();  // documents.js
}

document.getElementById("ask-form").addEventListener("submit", ask);
document.getElementById("show-cooccurrence").addEventListener("change", showCooccurrence);
document.getElementById("chunk-close").addEventListener("click", () => { document.getElementById("chunk-panel").hidden = true; });
for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => show(tab.dataset.view));
// The placeholder asks about the open store (a name in it), not about another collection.
api("/api/inspect/placeholder").then((example) => {
  document.getElementById("question").placeholder = `Ask a question, e.g. ${example.question}`;
}).catch(() => {});
const asked = new URLSearchParams(location.search).get("q");
if (asked) { document.getElementById("question").value = asked; document.getElementById("ask-form").requestSubmit(); }
