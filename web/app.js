// The awaywork dashboard: one page over the local API (/api/v1). Every text that comes from a
// unit (log, diff, prompt, refusals) is set with textContent, never parsed as HTML, and its
// control, bidi and invisible characters are shown as symbols (inert()).
"use strict";

const TOKEN_KEY = "awaywork.token";
const view = document.getElementById("view");
const statusBox = document.getElementById("status");
let pageAbort = null; // aborts the current page's fetches and timers when the route changes

// The token arrives in the URL fragment (never sent to the server); it moves to sessionStorage
// and leaves the address bar at once.
(function takeToken() {
  const m = /^#token=([0-9a-f]{16,128})/.exec(location.hash);
  if (m) {
    sessionStorage.setItem(TOKEN_KEY, m[1]);
    history.replaceState(null, "", location.pathname + "#/");
  }
})();

function token() {
  return sessionStorage.getItem(TOKEN_KEY) || "";
}

// el("a", {href: "#/"}, "text", child...): attributes as properties or attributes, children as
// nodes or text.
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "style") Object.assign(e.style, v); // CSSOM: the page's CSP forbids style attributes
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    // A tooltip (an issue's title) is read like text; a value or href must stay as given.
    else if (k === "title" || k.startsWith("aria-")) e.setAttribute(k, inert(String(v)));
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  // Every text goes through inert(): titles, refusals, prompts, names and errors can all come
  // from the agent or an issue's author.
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(inert(String(c))));
  }
  return e;
}

function say(message) {
  statusBox.textContent = inert(message || ""); // an API error can quote a repository or issue
}

class ApiError extends Error {}

async function api(path, options = {}) {
  const headers = Object.assign({ Authorization: "Bearer " + token() }, options.headers || {});
  const res = await fetch("/api/v1" + path, Object.assign({}, options, { headers }));
  const type = res.headers.get("Content-Type") || "";
  if (!res.ok) {
    let message = res.status + " " + res.statusText;
    if (type.startsWith("application/json")) message = (await res.json()).error || message;
    throw new ApiError(message);
  }
  return type.startsWith("application/json") ? res.json() : res.text();
}

function postJSON(path, body, signal) {
  return api(path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body || {}),
    signal,
  });
}

// A fetch error on a page being left is not an error.
function quiet(err) {
  if (err && err.name === "AbortError") return;
  say(err && err.message ? err.message : String(err));
}

// "OWNER/REPO#N" linked to the forge's page (the server gives only http(s) URLs), titled.
function issueLink(issue) {
  if (!issue) return "—";
  const label = `${issue.repo || ""}#${issue.number}`;
  const attrs = { title: issue.title || "", class: "issue" };
  if (issue.url && /^https?:\/\//.test(issue.url)) {
    attrs.href = issue.url;
    attrs.rel = "noreferrer noopener";
    attrs.target = "_blank";
    return el("a", attrs, label);
  }
  return el("span", attrs, label);
}

function badge(state) {
  return el("span", { class: "badge " + state }, state);
}

function ms(n) {
  if (n === null || n === undefined) return "—";
  if (n < 1000) return n + " ms";
  const s = n / 1000;
  if (s < 120) return s.toFixed(1) + " s";
  const m = Math.floor(s / 60);
  return m < 120 ? m + " min " + Math.round(s % 60) + " s" : Math.floor(m / 60) + " h " + (m % 60) + " min";
}

function age(iso) {
  const t = Date.parse(iso);
  if (isNaN(t)) return "—";
  const s = Math.max(0, (Date.now() - t) / 1000);
  if (s < 60) return Math.round(s) + " s ago";
  if (s < 3600) return Math.round(s / 60) + " min ago";
  if (s < 86400) return Math.round(s / 3600) + " h ago";
  return Math.round(s / 86400) + " d ago";
}

// Terminal output made inert: ESC and the other control characters become visible symbols
// (U+2400 block), so an escape sequence is shown, never interpreted.
function controlPictures(text) {
  return text.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, (c) =>
    c === "\x7f" ? "\u2421" : String.fromCharCode(0x2400 + c.charCodeAt(0))
  );
}

// The bidirectional controls: text after one displays in another order than it is stored and
// compiled (Trojan Source, CVE-2021-42574).
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;
// Characters that show nothing or change what is around them, each shown as <U+XXXX>: the format
// characters (\p{Cf}: bidi controls, zero-width spaces and joiners, word joiner, BOM, soft
// hyphen, the tag characters that smuggle ASCII past a reader), C1 controls, line and paragraph
// separators, the blank letters (Hangul fillers, Khmer inherent vowels, the grapheme joiner) and
// variation selectors (a run of them can carry bytes after an emoji).
const HIDDEN = /[\p{Cf}\u0080-\u009F\u034F\u115F\u1160\u17B4\u17B5\u2028\u2029\u3164\uFE00-\uFE0F\uFFA0\u{E0100}-\u{E01EF}]/gu;
// Kept where an emoji needs them: a ZWJ between two pictographs (👩‍💻), one text or emoji
// presentation selector after an emoji (❤️).
// Alternations, not one [class]: Chromium 156 never matches a class of properties before "$"
// against an astral character (/[\p{Extended_Pictographic}]$/u.test("👩") is false there).
const EMOJI_BEFORE = /(?:\p{Extended_Pictographic}|\p{Emoji_Modifier}|\uFE0F)$/u;
const EMOJI_AFTER = /^\p{Extended_Pictographic}/u;
const EMOJI_BASE = /\p{Emoji}$/u;

// context: the text shown just before this one (the previous chunk of a streamed log).
function invisiblesShown(text, context = "") {
  return text.replace(HIDDEN, (c, at, s) => {
    const before = (at >= 2 ? "" : context) + s.slice(Math.max(0, at - 2), at);
    if (c === "\u200D" && EMOJI_BEFORE.test(before) && EMOJI_AFTER.test(s.slice(at + 1, at + 3))) return c;
    if ((c === "\uFE0E" || c === "\uFE0F") && EMOJI_BASE.test(before)) return c;
    return "<U+" + c.codePointAt(0).toString(16).toUpperCase().padStart(4, "0") + ">";
  });
}

// Hostile text made inert for display: nothing in it is interpreted or hidden.
function inert(text, context = "") {
  return invisiblesShown(controlPictures(text), context);
}

function sleep(msec, signal) {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, msec);
    signal.addEventListener("abort", () => {
      clearTimeout(t);
      reject(new DOMException("left", "AbortError"));
    });
  });
}

function setNav(which) {
  for (const id of ["units", "new", "watch", "doctor"]) {
    const a = document.getElementById("nav-" + id);
    if (id === which) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
}

function show(...nodes) {
  view.replaceChildren(...nodes.filter((n) => n !== null && n !== undefined));
}

// ── the units list ──────────────────────────────────────────────────────────────────────────

const STATES = ["", "running", "done", "failed", "refused", "skipped", "timed_out", "interrupted", "lost"];

// The board's columns: where a unit stands for the one who watches. Queued holds the issues
// `awaywork watch` has queued (no unit yet); needs review, an ended unit whose verdict accepted a
// change (its diff or branch waits for a person); done, every other ended unit but a refused one.
const COLUMNS = [["queued", "Queued"], ["running", "Running"], ["review", "Needs review"], ["done", "Done"], ["refused", "Refused"]];

function columnOf(u) {
  if (u.state === "running" || u.state === "refused") return u.state;
  if (u.state === "done" && u.verdict === "accepted" && u.patch_files > 0) return "review";
  return "done";
}

function unitCard(u) {
  return el("li", { class: "card", "data-id": u.id, "data-state": u.state },
    el("div", { class: "card-head" }, badge(u.state), el("span", { class: "muted", title: u.created_at }, age(u.created_at))),
    el("a", { class: "card-id", href: "#/unit/" + u.id }, u.id),
    u.prompt ? el("div", { class: "card-task" }, u.prompt) : null,
    el("div", { class: "muted" }, u.repo, u.issue ? [" · ", issueLink(u.issue)] : null,
      u.state === "running" ? "" : " · " + ms(u.duration_ms)));
}

// An issue `awaywork watch` queued: a card without a unit yet.
function queuedCard(q) {
  return el("li", { class: "card queued", "data-issue": `${q.repo}#${q.issue}` },
    el("div", { class: "card-head" }, el("span", { class: "badge" }, "queued"),
      el("span", { class: "muted", title: q.queued_at || "" }, q.queued_at ? age(q.queued_at) : "")),
    el("span", { class: "card-id" }, `${q.repo}#${q.issue}`),
    el("div", { class: "muted" }, q.trigger || "", q.attempts ? ` · attempt ${q.attempts + 1}` : "",
      q.not_before ? ` · not before ${q.not_before}` : ""));
}

function board(units, watcher, filters) {
  const cols = Object.fromEntries(COLUMNS.map(([k]) => [k, []]));
  for (const u of units) cols[columnOf(u)].push(unitCard(u));
  // The queue is of issues: the repo and issue filters apply; a state filter other than none hides it.
  const queue = (watcher && Array.isArray(watcher.queue) ? watcher.queue : []).filter((q) =>
    (!filters.repo || q.repo === filters.repo) && (!filters.issue || String(q.issue) === filters.issue) && !filters.state);
  cols.queued = queue.map(queuedCard);
  const empty = (k) => k === "queued" && watcher && !watcher.watching ? "Nothing queued: awaywork watch is not running." : "None.";
  return COLUMNS.map(([k, title]) =>
    el("section", { class: "column", "data-column": k, "aria-labelledby": "col-" + k },
      el("h2", { id: "col-" + k }, title, " ", el("span", { class: "count muted" }, String(cols[k].length))),
      cols[k].length ? el("ul", { class: "cards" }, cols[k]) : el("p", { class: "muted" }, empty(k))));
}

async function unitsPage(signal, params) {
  setNav("units");
  const state = params.get("state") || "";
  const repo = params.get("repo") || "";
  const issue = /^[1-9][0-9]{0,8}$/.test(params.get("issue") || "") ? params.get("issue") : "";
  const offset = parseInt(params.get("offset") || "0", 10) || 0;
  // Table or board: kept in the URL with the filters, so a link or a reload shows the same.
  const asBoard = params.get("view") === "board";
  const go = (changes) => {
    const p = new URLSearchParams({ view: asBoard ? "board" : "", state, repo, issue, offset: String(offset) });
    for (const [k, v] of Object.entries(changes)) p.set(k, v);
    for (const k of [...p.keys()]) if (!p.get(k) || p.get(k) === "0") p.delete(k);
    location.hash = "#/" + (p.toString() ? "?" + p : "");
  };
  const stateSel = el("select", { id: "filter-state", onchange: (e) => go({ state: e.target.value, offset: "0" }) },
    STATES.map((s) => el("option", { value: s, selected: s === state }, s || "any state")));
  const repoIn = el("input", { id: "filter-repo", value: repo, placeholder: "any repo", size: 16,
    onchange: (e) => go({ repo: e.target.value.trim(), offset: "0" }) });
  const issueIn = el("input", { id: "filter-issue", value: issue, placeholder: "any issue", size: 8,
    inputmode: "numeric", onchange: (e) => go({ issue: e.target.value.trim().replace(/^#/, ""), offset: "0" }) });
  const toggle = el("div", { class: "view-toggle", role: "group", "aria-label": "Show as" },
    el("button", { type: "button", id: "view-table", "aria-pressed": String(!asBoard), onclick: () => go({ view: "", offset: "0" }) }, "Table"),
    el("button", { type: "button", id: "view-board", "aria-pressed": String(asBoard), onclick: () => go({ view: "board", offset: "0" }) }, "Board"));
  const body = el("tbody");
  const pager = el("div", { class: "pager" });
  const boardBox = el("div", { id: "board", class: "board" });
  show(
    el("h1", {}, "Units"),
    el("div", { class: "filters" },
      toggle,
      el("label", { for: "filter-state" }, "State "), stateSel,
      el("label", { for: "filter-repo" }, "Repo "), repoIn,
      el("label", { for: "filter-issue" }, "Issue "), issueIn),
    asBoard ? boardBox : el("table", { id: "units" },
      el("thead", {}, el("tr", {},
        ["State", "Unit", "Repo", "Agent", "Isolation", "Started", "Duration", "Issue"].map((h) =>
          el("th", { scope: "col", class: "col-" + h.toLowerCase() }, h)))),
      body),
    asBoard ? null : pager
  );
  let lastSeen = "";
  for (;;) {
    // The board shows the newest 200 units (no pages: a column is read top down).
    const q = new URLSearchParams({ limit: asBoard ? "200" : "50", offset: String(asBoard ? 0 : offset) });
    if (state) q.set("state", state);
    if (repo) q.set("repo", repo);
    if (issue) q.set("issue", issue);
    const [page, watcher] = await Promise.all([api("/units?" + q, { signal }),
      asBoard ? api("/watcher", { signal }).catch((err) => { if (err.name === "AbortError") throw err; return null; }) : null]);
    // Redrawn only when something changed: a focused link in the table keeps its focus.
    const seen = JSON.stringify(page.units.map((u) => [u.id, u.state, u.duration_ms, u.verdict])) + page.total +
      JSON.stringify(watcher ? [watcher.watching, watcher.queue] : null) +
      Math.floor(Date.now() / 60000); // and once a minute, for the ages
    if (seen === lastSeen) {
      await sleep(2000, signal);
      continue;
    }
    lastSeen = seen;
    if (asBoard) {
      // The focused card keeps its focus when the board is drawn again (its link is found anew).
      const focused = document.activeElement && boardBox.contains(document.activeElement)
        ? document.activeElement.closest("[data-id]")?.dataset.id : null;
      boardBox.replaceChildren(...board(page.units, watcher, { state, repo, issue }));
      if (focused) boardBox.querySelector(`[data-id="${CSS.escape(focused)}"] a`)?.focus();
      if (document.body.dataset.rendered !== "units") document.body.dataset.rendered = "units";
      await sleep(2000, signal);
      continue;
    }
    body.replaceChildren(...page.units.map((u) =>
      el("tr", { "data-id": u.id, "data-state": u.state },
        el("td", {}, badge(u.state)),
        el("td", { class: "id" }, el("a", { href: "#/unit/" + u.id }, u.id), el("div", { class: "muted" }, u.prompt)),
        el("td", {}, u.repo),
        el("td", { class: "col-agent" }, u.agent),
        el("td", { class: "col-isolation" }, u.isolation),
        el("td", { title: u.created_at }, age(u.created_at)),
        el("td", {}, u.state === "running" ? "running" : ms(u.duration_ms)),
        el("td", { class: "col-issue" }, issueLink(u.issue)))));
    if (!page.units.length)
      body.append(el("tr", {}, el("td", { colspan: 8, class: "muted" }, "No units yet. Start one from New unit.")));
    pager.replaceChildren(
      el("span", { class: "muted" }, `${page.total} unit${page.total === 1 ? "" : "s"}`),
      el("button", { disabled: offset === 0, onclick: () => go({ offset: String(Math.max(0, offset - 50)) }) }, "Newer"),
      el("button", { disabled: page.next_offset === null, onclick: () => go({ offset: String(page.next_offset) }) }, "Older"));
    if (document.body.dataset.rendered !== "units") {
      document.body.dataset.rendered = "units";
      performance.mark("awaywork-units-rendered"); // read by bench/serve/dashboard_bench.mjs
    }
    await sleep(2000, signal);
  }
}

// ── one unit ────────────────────────────────────────────────────────────────────────────────

// Each phase with its command (a check is its command, not "check 1" alone), a bar for its
// duration and how it ended; the running one with its clock.
function phaseTimeline(u) {
  const total = Math.max(1, ...u.phases.map((p) => p.duration_ms || 0));
  const label = (p) => el("span", { class: "phase-name" }, p.name,
    Array.isArray(p.argv) && p.argv.length ? el("code", { class: "phase-cmd" }, p.argv.join(" ")) : null);
  const rows = u.phases.map((p) =>
    el("div", { class: "phase", "data-phase": p.name },
      label(p),
      el("div", { class: "bar " + (p.end === "exited" && p.exit_code === 0 ? "" : "bad"),
        style: { width: `${Math.max(1, (100 * (p.duration_ms || 0)) / total)}%` } }),
      el("span", {}, `${p.outcome || p.end} · ${ms(p.duration_ms)}`)));
  if (u.state === "running") {
    const p = u.current_phase;
    rows.push(p
      ? el("div", { class: "phase", "data-phase": p.name, "data-running": "true" }, label(p),
        el("div", { class: "bar running", style: { width: "30%" } }), el("span", {}, "running \u00b7 ", clockSince(p.started_at)))
      : el("div", { class: "phase", "data-running": "true" }, el("span", {}, "\u2026"),
        el("div", { class: "bar running", style: { width: "30%" } }), el("span", {}, "between phases")));
  }
  return rows.length ? rows : [el("p", { class: "muted" }, "No phase has run yet.")];
}

function facts(u) {
  const rows = [
    ["State", badge(u.state)], ["Reason", u.reason], ["Repo", u.repo], ["Agent", u.agent],
    ["Profile", u.profile], ["Isolation", u.isolation], ["Sandbox", u.sandbox],
    ["Started", u.created_at], ["Ended", u.ended_at], ["Duration", ms(u.duration_ms)],
    ["Base", u.base_ref ? `${u.base_ref} (${(u.base_commit || "").slice(0, 12)})` : ""],
    ["Issue", u.issue ? [issueLink(u.issue), u.issue.title ? " " + u.issue.title : ""] : ""],
    ["Task", u.prompt], ["Notes", (u.notes || []).join("\n")],
    ["Re-run of", u.replay_of && /^[a-z0-9-]+$/.test(u.replay_of) ? el("a", { href: "#/unit/" + u.replay_of }, u.replay_of) : ""],
  ].filter(([, v]) => v !== "" && v !== undefined && v !== null);
  return el("dl", { class: "facts" }, rows.map(([k, v]) => [el("dt", {}, k), el("dd", { "data-fact": k.toLowerCase() }, v)]));
}

function verdictSection(u) {
  const refusals = (u.refusals || []).map((r) => el("li", {}, r));
  return [
    el("p", { id: "verdict" }, u.verdict ? `Verdict: ${u.verdict}`
      : u.state === "running" ? "No verdict yet: the output check runs once the phases have ended."
      : "No verdict: the unit ended before the output check ran."),
    refusals.length ? el("ul", { class: "refusals", id: "refusals" }, refusals) : null,
  ].filter(Boolean);
}

function requestsSection(u) {
  const reqs = Array.isArray(u.checked_requests) ? u.checked_requests : [];
  if (!reqs.length) return [el("p", { class: "muted" }, "No requests.")];
  return reqs.map((r) =>
    el("div", { class: "req" },
      el("strong", {}, r.type || "request"), r.title ? ": " + r.title : "",
      r.body ? el("div", { class: "muted" }, r.body) : null));
}

// What the forge calls the unit's pull request, with its number as the forge writes it: GitHub's
// "pull request #N", GitLab's "merge request !N" (the server's kind, from the recorded address).
function pullName(pull) {
  const mr = pull.kind === "merge_request";
  const n = Number.isInteger(pull.number) ? (mr ? " !" : " #") + pull.number : "";
  return (mr ? "merge request" : "pull request") + n;
}

// The draft pull request (merge request) the unit opened, linked like an issue (the server gives
// only http(s) URLs; checked again here, since an href with javascript: would run).
function pullLink(pull) {
  const label = pullName(pull);
  if (pull.url && /^https?:\/\//.test(pull.url))
    return el("a", { id: "pull-request", href: pull.url, rel: "noreferrer noopener", target: "_blank" }, label);
  return el("span", { id: "pull-request" }, label);
}

// The published branch on the forge, linked to the page the server gives (published.branch_url:
// from the repository's forge config, else from the pull request's or issue's address; "" when
// none is known, as for a local repository), else the name alone. Only http(s), checked here
// again, since an href with javascript: would run.
function branchOnForge(u) {
  const href = u.published.branch_url;
  const name = el("code", {}, u.published.branch);
  if (typeof href !== "string" || !/^https?:\/\//.test(href)) return name;
  return el("a", { id: "branch-link", href, rel: "noreferrer noopener", target: "_blank" }, name);
}

function publishedSection(u) {
  if (!u.published) return [el("p", { class: "muted" }, "Nothing published.")];
  const pull = u.published.pull_request;
  return [el("p", { id: "published" }, "Branch ", branchOnForge(u), " at ",
    el("code", {}, (u.published.commit || "").slice(0, 12)), pull ? ["; draft ", pullLink(pull)] : "")];
}

// The pull request a unit opened or follows up, as one thread (GET /units/ID/thread, issue 26):
// the opening unit, then its follow-ups in order, each with its state, verdict and commit, linked
// to its own page. The pull request's link is the record's address only (http(s), checked again
// here), never anything the pull request's text says; ids are the record's ([a-z0-9-]).
function threadSection(t, current) {
  const pull = t.pull_request || {};
  const name = pullName(pull);
  const label = name[0].toUpperCase() + name.slice(1);
  const head = pull.url && /^https?:\/\//.test(pull.url)
    ? el("a", { id: "thread-pull", href: pull.url, rel: "noreferrer noopener", target: "_blank" }, label)
    : el("span", { id: "thread-pull" }, label);
  const items = t.units.map((u) => {
    const here = u.id === current;
    const name = here ? el("strong", { "aria-current": "page" }, u.id) : el("a", { href: "#/unit/" + u.id }, u.id);
    return el("li", { "data-unit": u.id, "data-role": u.follow_up ? "follow-up" : "opening" },
      u.follow_up ? "follow-up " : "opened it ", name, " ", badge(u.state),
      u.verdict ? " " + u.verdict : "",
      u.commit ? [" at ", el("code", {}, u.commit.slice(0, 12))] : "");
  });
  return [el("p", {}, head, " \u2014 ", t.units.length === 1 ? "1 unit" : t.units.length + " units",
    t.truncated ? " (the first shown; see `awaywork units` for the rest)" : ""),
  el("ol", { id: "thread", class: "thread" }, items)];
}

// git C-quotes a path holding a byte it calls unusual (core.quotePath, which awaywork's git sets):
// `"a/caf\303\251.txt"`. The text of the quoted string at s[at] (the bytes decoded as UTF-8, an
// invalid sequence shown as U+FFFD) and the index after its closing quote; null if malformed.
const C_ESCAPES = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, "\\": 92 };
function gitQuoted(s, at) {
  if (s[at] !== '"') return null;
  const bytes = [];
  const utf8 = new TextEncoder();
  for (let i = at + 1; i < s.length;) {
    if (s[i] === '"') return [new TextDecoder().decode(new Uint8Array(bytes)), i + 1];
    if (s[i] !== "\\") {
      const ch = String.fromCodePoint(s.codePointAt(i));
      bytes.push(...utf8.encode(ch));
      i += ch.length;
    } else if (/^[0-3][0-7]{2}$/.test(s.slice(i + 1, i + 4))) {
      bytes.push(parseInt(s.slice(i + 1, i + 4), 8));
      i += 4;
    } else if (Object.hasOwn(C_ESCAPES, s[i + 1] ?? "")) {
      bytes.push(C_ESCAPES[s[i + 1]]);
      i += 2;
    } else return null;
  }
  return null;
}

// The new name of a `diff --git` line, whose two names are each bare (a/x b/y) or C-quoted; null
// when the line is neither. Two bare names split at the last " b/" (git quotes a name holding a
// quote, so a quote starts a quoted name).
function diffGitName(line) {
  if (!line.startsWith("diff --git ")) return null;
  const rest = line.slice("diff --git ".length);
  let a, b;
  if (rest.startsWith('"')) {
    const q = gitQuoted(rest, 0);
    if (!q || rest[q[1]] !== " ") return null;
    a = q[0];
    b = rest.slice(q[1] + 1);
  } else if (rest.includes(' "')) {
    a = rest.slice(0, rest.indexOf(' "'));
    b = rest.slice(a.length + 1);
  } else {
    const m = /^(a\/.*) (b\/.*)$/.exec(rest);
    if (!m) return null;
    [a, b] = [m[1], m[2]];
  }
  if (b.startsWith('"')) {
    const q = gitQuoted(b, 0);
    if (!q || q[1] !== b.length) return null;
    b = q[0];
  }
  return a.startsWith("a/") && b.startsWith("b/") ? b.slice(2) : null;
}

// A decoded name may hold a tab or a newline: shown as control pictures, as every other control.
const namePictured = (name) => name.replace(/[\t\n]/g, (c) => String.fromCharCode(0x2400 + c.charCodeAt(0)));

// A header line with each C-quoted name shown decoded (café.txt, not "caf\303\251.txt").
const headerUnquoted = (line) => line.replace(/"(?:[^"\\]|\\.)*"/g, (q) => {
  const d = gitQuoted(q, 0);
  return d && d[1] === q.length ? namePictured(d[0]) : q;
});

// ── the diff ──
// Parsed into files, each a <details> (it folds) under a file list with +/− counts; shown unified
// or side by side (the choice is kept in localStorage), with syntax colours from highlight.js
// (served by `awaywork serve` from Debian's libjs-highlight.js; without it the diff is plain).
// As on GitHub, hidden text is flagged: a warning above, its files marked in the list, its lines
// marked and each such character shown as a highlighted <U+XXXX>, inside the colours too. A file's
// header runs from its `diff --git` line to its first hunk: a `+++`/`---` there names the file;
// after, it is content.

const DIFF_VIEW_KEY = "awaywork.diffView";
const HL_FILE_LINES = 3000; // a file with more diff lines than this is shown without colours
const HL_TOTAL_LINES = 10000; // nor past this many lines in one diff
const FOLDED_LINES = 1500; // a file with more lines starts folded (drawn when opened)

let highlighter = null; // a promise of highlight.js (window.hljs) or null, loaded once
function loadHighlighter() {
  if (!highlighter)
    highlighter = new Promise((resolve) => {
      const s = el("script", { src: "/highlight.min.js" });
      s.addEventListener("load", () => resolve(window.hljs && typeof window.hljs.highlight === "function" ? window.hljs : null));
      s.addEventListener("error", () => resolve(null));
      document.head.append(s);
    }).then((hljs) => {
      // Debian 12's package is 9.18.5 (kept patched by Debian); its EOL notice would go to the console.
      if (hljs && hljs.configure) hljs.configure({ hideUpgradeWarningAcceptNoSupportOrSecurityUpdates: true });
      return hljs;
    });
  return highlighter;
}

// highlight.js's language for a file name: its extension or its whole name (Makefile), or null.
function languageOf(hljs, name) {
  if (!hljs) return null;
  const base = name.split("/").pop().toLowerCase();
  const ext = base.includes(".") ? base.split(".").pop() : base;
  for (const n of [ext, base]) if (/^[a-z0-9_+-]{1,20}$/.test(n) && hljs.getLanguage(n)) return n;
  return null;
}

// The lines colored: for each line its tokens [class, text], or null when highlight.js fails or
// its output is not the code's text exactly (then the colours are dropped, never the text). Its
// HTML is parsed in a document of its own (inert: nothing in it runs or loads), and only its
// text and <span class="hljs-…"> are taken: no markup reaches the page.
function highlightLines(hljs, lang, lines) {
  const code = lines.join("\n");
  let html;
  try {
    // highlight(code, {language}) from 11 on (Debian 13); highlight(language, code) before.
    html = /^(1[1-9]|[2-9][0-9])\./.test(String(hljs.versionString || ""))
      ? hljs.highlight(code, { language: lang, ignoreIllegals: true }).value
      : hljs.highlight(lang, code, true).value;
  } catch {
    return null;
  }
  const doc = new DOMParser().parseFromString("<div>" + html + "</div>", "text/html");
  const out = [[]];
  const walk = (node, cls) => {
    for (const c of node.childNodes) {
      if (c.nodeType === Node.TEXT_NODE) {
        c.data.split("\n").forEach((part, i) => {
          if (i) out.push([]);
          if (part) out[out.length - 1].push([cls, part]);
        });
      } else if (c.nodeType === Node.ELEMENT_NODE && c.tagName === "SPAN") {
        const k = [...c.classList].filter((x) => /^hljs-[a-z_-]{1,40}$/.test(x)).join(" ");
        walk(c, k ? (cls ? cls + " " + k : k) : cls);
      } else throw new Error("unexpected markup");
    }
  };
  try {
    walk(doc.body.firstChild, "");
  } catch {
    return null;
  }
  if (out.length !== lines.length) return null;
  for (let i = 0; i < lines.length; i++) if (out[i].map((t) => t[1]).join("") !== lines[i]) return null;
  return out;
}

function parseDiff(text) {
  const files = [];
  let cur = null, hunk = null;
  const lines = text.split("\n");
  if (lines.length && lines[lines.length - 1] === "") lines.pop();
  for (const line of lines) {
    if (line.startsWith("diff --git ") || !cur) {
      cur = { name: diffGitName(line) ?? line.slice("diff --git ".length), header: [], hunks: [], add: 0, del: 0, hidden: "" };
      files.push(cur);
      hunk = null;
      if (!line.startsWith("diff --git ") && line !== "") cur.name = "";
    }
    if (!hunk && !line.startsWith("@@")) {
      cur.header.push({ text: headerUnquoted(line) });
      continue;
    }
    if (line.startsWith("@@")) {
      const m = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
      hunk = { head: { text: line }, old: m ? Number(m[1]) : 0, new: m ? Number(m[2]) : 0, lines: [] };
      cur.hunks.push(hunk);
      continue;
    }
    const t = line[0] === "+" || line[0] === "-" || line[0] === "\\" ? line[0] : " ";
    if (t === "+") cur.add++;
    if (t === "-") cur.del++;
    hunk.lines.push({ t, text: t === " " && line[0] !== " " ? line : line.slice(1) });
  }
  // Hidden text, flagged per file (bidi first) and per line.
  for (const f of files)
    for (const l of [...f.header, ...f.hunks.flatMap((h) => [h.head, ...h.lines])]) {
      const pictured = controlPictures(l.text);
      l.hidden = invisiblesShown(pictured) !== pictured ? (BIDI.test(l.text) ? "bidi" : "invisible") : "";
      if (l.hidden && f.hidden !== "bidi") f.hidden = l.hidden;
    }
  return files;
}

// The colours of each content line of a file, [class, text] tokens keyed by the line object; a
// side's lines are highlighted together, hunk by hunk (a string or comment across lines keeps
// its colour). budget: lines still allowed in this diff.
function colourFile(hljs, f, budget) {
  const lang = languageOf(hljs, f.name);
  const n = f.hunks.reduce((a, h) => a + h.lines.length, 0);
  if (!lang || n > HL_FILE_LINES || n > budget.left) return null;
  budget.left -= n;
  const tokens = new Map();
  for (const h of f.hunks)
    for (const side of ["-", "+"]) {
      const ls = h.lines.filter((l) => l.t === " " || l.t === side);
      const hl = ls.length ? highlightLines(hljs, lang, ls.map((l) => l.text)) : [];
      if (hl) ls.forEach((l, i) => { if (!tokens.has(l) || side === "+") tokens.set(l, hl[i]); });
    }
  return tokens;
}

// A text shown inert into a node: control pictures, and each hidden character a marked <U+XXXX>.
function appendInert(node, text, context = "") {
  const shown = invisiblesShown(controlPictures(text), context);
  if (!/<U\+[0-9A-F]{4,6}>/.test(shown)) {
    node.append(shown);
    return;
  }
  for (const [i, part] of shown.split(/(<U\+[0-9A-F]{4,6}>)/).entries())
    if (part) node.append(i % 2 ? el("span", { class: "hidden-char" }, part) : document.createTextNode(part));
}

// One line's text: its tokens each a span of their colour, or the text alone.
function lineText(node, l, toks) {
  if (!toks) return appendInert(node, l.text);
  let before = "";
  for (const [cls, text] of toks) {
    const target = cls ? node.appendChild(el("span", { class: cls })) : node;
    appendInert(target, text, before);
    before = text;
  }
}

function markHidden(node, hidden) {
  if (!hidden) return;
  node.classList.add("hidden-text");
  node.title = hidden === "bidi" ? "hidden bidirectional text on this line" : "invisible characters on this line";
}

const pad = (n) => (n === "" ? "" : String(n)).padStart(5);

// Unified: the header, then each hunk's lines with their old and new numbers (generated content:
// copying copies the diff's text).
function unifiedBody(f, tokens) {
  const pre = el("pre", { class: "diff" });
  for (const h of f.header) {
    const s = el("span", { class: "diff-head" });
    markHidden(s, h.hidden);
    appendInert(s, h.text);
    s.append("\n");
    pre.append(s);
  }
  for (const h of f.hunks) {
    const s = el("span", { class: "hunk" });
    markHidden(s, h.head.hidden);
    appendInert(s, h.head.text);
    s.append("\n");
    pre.append(s);
    let o = h.old, n = h.new;
    for (const l of h.lines) {
      const cls = l.t === "+" ? "add" : l.t === "-" ? "del" : l.t === "\\" ? "note" : "ctx";
      const s = el("span", { class: "dl " + cls, "data-o": pad(l.t === "+" || l.t === "\\" ? "" : o), "data-n": pad(l.t === "-" || l.t === "\\" ? "" : n) });
      if (l.t !== "+" && l.t !== "\\") o++;
      if (l.t !== "-" && l.t !== "\\") n++;
      markHidden(s, l.hidden);
      s.append(l.t === "\\" ? "\\" : l.t);
      lineText(s, l, l.t === "\\" ? null : tokens && tokens.get(l));
      s.append("\n");
      pre.append(s);
    }
  }
  return pre;
}

// Side by side: old on the left, new on the right; a run of deletions faces the additions after it.
function splitBody(f, tokens) {
  const head = el("pre", { class: "diff diff-header" });
  for (const h of f.header) {
    const s = el("span", { class: "diff-head" });
    markHidden(s, h.hidden);
    appendInert(s, h.text);
    s.append("\n");
    head.append(s);
  }
  const body = el("tbody");
  const cell = (l, no, side) => {
    if (!l) return [el("td", { class: "no empty" }), el("td", { class: "code empty" })];
    const td = el("td", { class: "code " + (l.t === " " ? "ctx" : side) });
    markHidden(td, l.hidden);
    lineText(td, l, tokens && tokens.get(l));
    return [el("td", { class: "no", "data-n": String(no) }), td];
  };
  for (const h of f.hunks) {
    const hh = el("td", { colspan: 4, class: "hunk" });
    markHidden(hh, h.head.hidden);
    appendInert(hh, h.head.text);
    body.append(el("tr", {}, hh));
    let o = h.old, n = h.new;
    for (let i = 0; i < h.lines.length;) {
      const l = h.lines[i];
      if (l.t === " ") {
        body.append(el("tr", {}, cell(l, o++, "old"), cell(l, n++, "new")));
        i++;
        continue;
      }
      if (l.t === "\\") {
        body.append(el("tr", {}, el("td", { colspan: 4, class: "note" }, "\\" + l.text)));
        i++;
        continue;
      }
      const dels = [], adds = [];
      while (i < h.lines.length && h.lines[i].t === "-") dels.push(h.lines[i++]);
      while (i < h.lines.length && h.lines[i].t === "+") adds.push(h.lines[i++]);
      for (let k = 0; k < Math.max(dels.length, adds.length); k++)
        body.append(el("tr", {}, cell(dels[k], dels[k] ? o++ : 0, "del"), cell(adds[k], adds[k] ? n++ : 0, "add")));
    }
  }
  return el("div", { class: "diff-split" }, head,
    el("table", { class: "diff split" }, el("colgroup", {}, el("col", { class: "no" }), el("col", {}), el("col", { class: "no" }), el("col", {})), body));
}

function hiddenFlag(f) {
  return f.hidden ? el("span", { class: "hidden-flag" },
    f.hidden === "bidi" ? " \u26a0 hidden bidirectional text" : " \u26a0 invisible characters") : null;
}

// The diff's section: a warning for hidden text, the view's buttons, the file list, the files.
function diffSection(text, hljs) {
  const files = parseDiff(text);
  const budget = { left: HL_TOTAL_LINES };
  const tokens = files.map((f) => (hljs ? colourFile(hljs, f, budget) : null));
  let mode = localStorage.getItem(DIFF_VIEW_KEY) === "split" ? "split" : "unified";
  const box = el("div", { id: "diff", class: "diff-files-box", "data-view": mode, "data-highlighted": String(tokens.some(Boolean)) });
  const sections = files.map((f, i) => {
    const lines = f.hunks.reduce((a, h) => a + h.lines.length, 0);
    const d = el("details", { class: "diff-file", "data-file": inert(namePictured(f.name)), "data-lines": String(lines) },
      el("summary", {}, el("span", { class: "plus" }, "+" + f.add), " ", el("span", { class: "minus" }, "\u2212" + f.del), " ",
        el("code", {}, namePictured(f.name)), hiddenFlag(f)));
    // Drawn when first opened; a long file starts folded.
    const draw = () => {
      if (d.dataset.drawn === mode) return;
      d.dataset.drawn = mode;
      d.querySelector(":scope > .diff-body")?.remove();
      const b = mode === "split" ? splitBody(f, tokens[i]) : unifiedBody(f, tokens[i]);
      b.classList.add("diff-body");
      d.append(b);
    };
    d.addEventListener("toggle", () => { if (d.open) draw(); });
    d.open = lines <= FOLDED_LINES;
    if (d.open) draw();
    d.draw = draw;
    return d;
  });
  box.append(...sections);
  const setMode = (m) => {
    mode = m;
    localStorage.setItem(DIFF_VIEW_KEY, m);
    box.dataset.view = m;
    unifiedBtn.setAttribute("aria-pressed", String(m === "unified"));
    splitBtn.setAttribute("aria-pressed", String(m === "split"));
    for (const d of sections) if (d.open) d.draw();
  };
  const unifiedBtn = el("button", { type: "button", id: "diff-view-unified", "aria-pressed": String(mode === "unified"), onclick: () => setMode("unified") }, "Unified");
  const splitBtn = el("button", { type: "button", id: "diff-view-split", "aria-pressed": String(mode === "split"), onclick: () => setMode("split") }, "Side by side");
  const anyHidden = files.some((f) => f.hidden), anyBidi = files.some((f) => f.hidden === "bidi");
  const warning = anyBidi
    ? "This diff contains hidden bidirectional Unicode text: the marked lines may be read or " +
      "compiled differently from how they display (Trojan Source). Each such character is shown as <U+…>."
    : "This diff contains invisible Unicode characters: the marked lines hold text a reader " +
      "would not see. Each such character is shown as <U+…>.";
  return [
    anyHidden ? el("p", { class: "warning", id: "diff-hidden", role: "alert" }, "\u26a0 " + warning) : null,
    el("div", { class: "diff-tools" },
      el("div", { class: "view-toggle", role: "group", "aria-label": "Diff view" }, unifiedBtn, splitBtn),
      el("button", { type: "button", id: "diff-expand", onclick: () => sections.forEach((d) => { d.open = true; }) }, "Expand all"),
      el("button", { type: "button", id: "diff-collapse", onclick: () => sections.forEach((d) => { d.open = false; }) }, "Collapse all"),
      hljs ? null : el("span", { class: "muted", id: "diff-plain" }, "No syntax colours: highlight.js is not installed (libjs-highlight.js).")),
    // The list: each name a button that opens its file and moves the focus there.
    el("ul", { class: "files", id: "diff-files" }, files.map((f, i) =>
      el("li", { "data-hidden": f.hidden || undefined },
        el("span", { class: "plus" }, "+" + f.add), " ", el("span", { class: "minus" }, "\u2212" + f.del), " ",
        el("button", { type: "button", class: "file-link", onclick: () => {
          sections[i].open = true;
          sections[i].draw();
          const s = sections[i].querySelector("summary");
          s.focus();
          s.scrollIntoView({ block: "start" });
        } }, namePictured(f.name)),
        hiddenFlag(f)))),
    box,
  ].filter(Boolean);
}

// ── the log ──
// A 50 MB log put whole into the page froze it (a relayout per 256 KiB chunk, issue 25): the page
// shows the log's last LOG_TAIL bytes, older parts on demand (the log route's offset and end), and
// the raw file as a download. While a running unit's log grows, what is shown stays under
// LOG_KEEP bytes: the oldest lines leave (and can be shown again).
//
// The log is one section per phase (a <details>: it folds), each line numbered from its phase's
// heading and, with "Timestamps", the time it was written. Where the sections begin, the line
// numbers and the times come from the transcript's index (the marks route), never from the log's
// text: an agent can print a line that looks like a heading.
const LOG_TAIL = 256 << 10;
const LOG_KEEP = 1 << 20;
const LINE_MAX = 64 << 10; // a line longer than this is shown in parts
// Work on a large log is cut into tasks the browser can answer input between (issue 25: a task
// over 200 ms is a page that does not answer): lines are made LOG_SLICE bytes at a time, for
// SLICE_MS at most before the next frame, and a search highlights lines SLICE_MS per task.
const LOG_SLICE = 16 << 10;
const SLICE_MS = 25;
// How often a running unit's steps are asked again (each answer adds only the new ones).
const STEPS_POLL_MS = 2000;

// A new task: what waits for input runs first (scheduler.yield() where the browser has it).
function nextTask() {
  if (globalThis.scheduler && typeof scheduler.yield === "function") return scheduler.yield();
  return new Promise((resolve) => setTimeout(resolve, 0));
}

// After the next frame: lines added to the page are laid out a slice at a time, not all at once
// in one frame (a hidden page draws no frame: then a task).
function nextFrame() {
  if (document.hidden) return nextTask();
  return new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
}

function sizeText(n) {
  if (n < 1024) return n + " B";
  if (n < 1 << 20) return Math.round(n / 1024) + " KiB";
  return (n / (1 << 20)).toFixed(1) + " MiB";
}

// Where to begin showing bytes read from the middle of the log: after the first newline (a whole
// line), or, with none in the first 4 KiB, at the first byte that begins a UTF-8 character.
function lineStart(bytes) {
  const nl = bytes.subarray(0, 4096).indexOf(10);
  if (nl >= 0) return nl + 1;
  let i = 0;
  while (i < 3 && i < bytes.length && (bytes[i] & 0xc0) === 0x80) i++;
  return i;
}

// How many of the bytes form whole characters: the end, less a last character cut short.
function wholeChars(bytes) {
  let i = bytes.length - 1;
  while (i > 0 && bytes.length - i < 4 && (bytes[i] & 0xc0) === 0x80) i--;
  if (i < 0) return 0;
  const lead = bytes[i];
  const len = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return i + len <= bytes.length ? bytes.length : i;
}

function joined(a, b) {
  if (!a.length) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

const two = (n) => String(n).padStart(2, "0");

// A running phase's clock: "0:07", "12:03", "1:02:03".
function clock(msec) {
  const s = Math.max(0, Math.floor(msec / 1000));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
  return h ? `${h}:${two(m)}:${two(s % 60)}` : `${m}:${two(s % 60)}`;
}

// The time of day a log line was written (local, 24 h).
function timeOfDay(msec) {
  const d = new Date(msec);
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

// Each element with data-since (ms since the epoch: a phase's recorded start) shows the time
// since then; called once a second while the page shows a running unit.
function tickClocks(root) {
  for (const e of root.querySelectorAll("[data-since]")) {
    const text = clock(Date.now() - Number(e.dataset.since));
    if (e.textContent !== text) e.textContent = text;
  }
}

// A running clock from a recorded start (ISO 8601); the page ticks it.
function clockSince(iso, attrs = {}) {
  const since = Date.parse(iso);
  if (isNaN(since)) return el("span", attrs, "");
  return el("span", Object.assign({ class: "clock", "data-since": String(since) }, attrs), clock(Date.now() - since));
}

// A phase named with its command: "check 1: sh tests/test_greet.sh".
function phaseTitle(name, argv) {
  return Array.isArray(argv) && argv.length ? `${name}: ${argv.join(" ")}` : name;
}

// Where needle occurs in text: plain text (never a pattern: a query is no regular expression),
// case-insensitive where lowercasing keeps the lengths (then an index in one is one in the other).
function occurrences(text, needle) {
  const out = [];
  if (!needle) return out;
  let hay = text, pin = needle;
  const lowText = text.toLowerCase(), lowNeedle = needle.toLowerCase();
  if (lowText.length === text.length && lowNeedle.length === needle.length) [hay, pin] = [lowText, lowNeedle];
  for (let at = hay.indexOf(pin); at >= 0; at = hay.indexOf(pin, at + pin.length)) out.push(at);
  return out;
}

// The log on the unit page. Each line a record {node, start, end, abs, first, text, sec, t}: its
// bytes [start, end) of the transcript, its line number in the transcript (abs, 0-based; null when
// unknown), whether it begins a line (a line longer than LINE_MAX comes in parts), its text made
// inert, its section and its time. While the last line has no newline it is shown in one more
// node, rewritten as it grows (so a quiet phase's unfinished line shows at once). The byte offsets
// are exact, so older parts join the shown ones without a gap or a repeat.
class LogView {
  constructor(id, signal) {
    this.id = id;
    this.signal = signal;
    this.box = el("div", { id: "log", class: "log", tabindex: 0, role: "log", "aria-label": "Log" });
    this.loose = el("div", { class: "log-lines" }); // lines before the first heading, or all without an index
    this.box.append(this.loose);
    this.sections = []; // {name, offset, line, at, details, title, status, body}, in order
    this.lines = [];
    this.times = []; // [offset, line, ms] from the index, in order
    this.marksTo = 0; // the marks of every byte before this are known
    this.start = 0; // the first byte shown
    this.end = 0; // the byte after the last one received
    this.carry = new Uint8Array(0); // the last line's bytes so far (shown in partial)
    this.partial = null; // its node
    this.nextAbs = null; // the line number of the byte at end - carry.length
    this.atLineStart = true; // the last line shown ended with a newline
    // Resolved at the frame after the log's bytes up to `screenTo` are on the page (or follow()
    // ended or failed): what the page fetches besides the log (the agent's steps) waits for it,
    // so the first screen does not wait for them (issue 25: a 50 MiB log's first screen went
    // from 178 to 291 ms when the steps were fetched and laid out before it).
    this.screenTo = Infinity;
    this.firstScreen = new Promise((resolve) => { this.screenShown = resolve; });
    this.lastText = ""; // the end of the last line, the context of the next one's inert()
    this.query = "";
    this.hits = []; // the <mark>s of the search, in order
    this.current = -1;
    this.older = el("button", { id: "log-older", type: "button", hidden: true,
      onclick: () => this.showOlder().catch(quiet) }, "Show older");
    this.range = el("span", { id: "log-range", class: "muted" });
    this.raw = el("button", { id: "log-raw", type: "button", onclick: () => this.download().catch(quiet) },
      "Download the raw log");
    this.timesBox = el("input", { type: "checkbox", id: "log-times",
      onchange: () => this.box.classList.toggle("show-times", this.timesBox.checked) });
    let typing = null;
    this.search = el("input", { type: "search", id: "log-search", placeholder: "Search the log", size: 22,
      autocomplete: "off", spellcheck: "false",
      oninput: () => {
        clearTimeout(typing);
        typing = setTimeout(() => this.find(this.search.value), 150);
      },
      onkeydown: (e) => {
        if (e.key !== "Enter") return;
        e.preventDefault();
        clearTimeout(typing);
        if (this.search.value !== this.query) this.find(this.search.value);
        else this.step(e.shiftKey ? -1 : 1);
      } });
    this.prev = el("button", { type: "button", id: "log-search-prev", "aria-label": "Previous match",
      onclick: () => this.step(-1) }, "\u2191");
    this.next = el("button", { type: "button", id: "log-search-next", "aria-label": "Next match",
      onclick: () => this.step(1) }, "\u2193");
    this.count = el("span", { id: "log-search-count", class: "muted", "aria-live": "polite" });
    this.tools = el("div", { class: "log-tools" },
      el("label", { class: "search" }, el("span", { class: "visually-hidden" }, "Search the log"), this.search),
      this.prev, this.next, this.count,
      el("label", { for: "log-times" }, this.timesBox, " Timestamps"),
      this.older, this.range, this.raw);
    // Whether the reader is at the bottom (then new lines scroll into view), kept from scroll
    // events: reading it on every chunk would force a layout per chunk, and the page froze so.
    // A scroll event can come after more lines arrived: at or below where the page last scrolled
    // to is still following; only the reader scrolls above it.
    this.atBottom = true;
    this.autoTop = 0; // where scrollDown() last put the view
    this.scrollDue = false;
    this.box.addEventListener("scroll", () => {
      const box = this.box;
      this.atBottom = box.scrollTop >= this.autoTop - 4 || box.scrollTop + box.clientHeight >= box.scrollHeight - 4;
    });
  }

  // Once per frame at most: to the bottom, if the reader was there.
  // A line out of view has a guessed height until it is laid out (style.css: content-visibility),
  // so the lines the scroll brings into view can grow the log: it scrolls again, frame by frame,
  // until the bottom stays put.
  scrollDown() {
    if (this.scrollDue) return;
    this.scrollDue = true;
    let frames = 0;
    const down = () => {
      this.scrollDue = false;
      if (!this.atBottom) return;
      const box = this.box;
      if (frames > 0 && box.scrollTop + box.clientHeight >= box.scrollHeight - 1) return;
      box.scrollTop = box.scrollHeight;
      this.autoTop = box.scrollTop;
      if (++frames < 20) {
        this.scrollDue = true;
        requestAnimationFrame(down);
      }
    };
    requestAnimationFrame(down);
  }

  request(query) {
    return fetch(`/api/v1/units/${this.id}/log?${query}`, {
      headers: { Authorization: "Bearer " + token() }, signal: this.signal });
  }

  async failed(res) {
    const type = res.headers.get("Content-Type") || "";
    return new ApiError(type.startsWith("application/json") ? (await res.json()).error : res.status + " " + res.statusText);
  }

  // ── sections, numbers and times, from the index ──

  // The marks of the log from byte `offset` (up to `end`): the phases' sections, the times; the
  // line number of byte `offset`, or null. A unit without an index shows one unnumbered block.
  async marks(offset, end) {
    const q = new URLSearchParams({ offset: String(offset) });
    if (end !== undefined) q.set("end", String(end));
    let m;
    try {
      m = await api(`/units/${this.id}/marks?${q}`, { signal: this.signal });
    } catch (err) {
      if (err.name === "AbortError") throw err;
      return offset === 0 ? 0 : null; // numbers from the start need no index
    }
    for (const p of m.phases || []) this.addSection(p);
    for (const t of m.times || []) {
      const last = this.times.at(-1);
      if (!last || t[0] > last[0]) this.times.push(t);
      else if (!this.times.some((have) => have[0] === t[0])) {
        this.times.push(t);
        this.times.sort((a, b) => a[0] - b[0]);
      }
    }
    if (end === undefined && m.bytes > this.marksTo) this.marksTo = m.bytes;
    this.timeLines();
    return Number.isInteger(m.line) ? m.line : null;
  }

  // The marks since the last one known: new phases and times (a running unit's, once a second).
  refresh() {
    const last = this.times.at(-1);
    return this.marks(last ? last[0] : this.marksTo);
  }

  addSection(p) {
    if (!Number.isInteger(p.offset) || this.sections.some((s) => s.offset === p.offset)) return;
    const title = el("span", { class: "sec-title" }, p.name);
    const status = el("span", { class: "sec-status muted" });
    const body = el("div", { class: "log-lines" });
    const sec = { name: p.name, offset: p.offset, line: p.line, at: p.at, title, status, body, key: "" };
    // The phase's own bytes as a file (issue 25: each section with a raw download). A button in
    // the summary: its click must not fold the section.
    const raw = el("button", { type: "button", class: "sec-raw", "aria-label": `Download the raw log of ${p.name}`,
      onclick: (e) => {
        e.preventDefault();
        e.stopPropagation();
        this.download(sec).catch(quiet);
      } }, "raw");
    sec.raw = raw;
    const details = el("details", { class: "log-section", open: true, "data-phase": p.name },
      el("summary", {}, title, " ", status, " ", raw), body);
    sec.details = details;
    const after = this.sections.findIndex((s) => s.offset > p.offset);
    if (after < 0) {
      this.sections.push(sec);
      this.box.append(details);
    } else {
      this.sections.splice(after, 0, sec);
      this.box.insertBefore(details, this.sections[after + 1].details);
    }
    // Lines already shown that are this phase's (the index came after its bytes) move into it.
    const moved = [];
    for (let i = this.lines.length - 1; i >= 0 && this.lines[i].start >= sec.offset - 1; i--) {
      const r = this.lines[i];
      if (r.start < sec.offset) {
        if (this.separator(r.start, r.end, r.text)) { // the newline before the heading
          if (r.node) r.node.remove();
          r.node = null;
        }
        break;
      }
      if (this.sectionAt(r.start) === sec) moved.unshift(r);
    }
    for (const r of moved) {
      r.sec = sec;
      if (r.node) body.append(r.node);
      this.label(r);
    }
    if (this.partial) this.showPartial();
  }

  // The section byte `offset` is in; null before the first heading.
  sectionAt(offset) {
    for (let i = this.sections.length - 1; i >= 0; i--) if (this.sections[i].offset <= offset) return this.sections[i];
    return null;
  }

  bodyOf(sec) {
    return sec ? sec.body : this.loose;
  }

  // The newline just before a heading: a line of its own only in the bytes, not on the page.
  separator(start, end, raw) {
    return raw === "\n" && end - start === 1 && this.sections.some((s) => s.offset === end);
  }

  // The line number (from the phase's heading, which is line 1) and the time, as data-n and
  // data-t: the page's CSS shows them before the line, where they are not copied with it.
  label(r) {
    if (!r.node) return;
    const n = r.first && r.abs !== null ? String(r.sec ? r.abs - r.sec.line + 1 : r.abs + 1) : "";
    const padded = n.padStart(5);
    if (r.node.dataset.n !== padded) r.node.dataset.n = padded;
    if (r.t !== undefined) r.node.dataset.t = timeOfDay(r.t) + " ";
  }

  // The time of the line starting at byte `start`: the last mark at or before it, once every mark
  // up to it is known.
  timeAt(start) {
    if (start >= this.marksTo) return undefined;
    let lo = 0, hi = this.times.length - 1, found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.times[mid][0] <= start) { found = mid; lo = mid + 1; } else hi = mid - 1;
    }
    return found < 0 ? undefined : this.times[found][2];
  }

  // Lines still without a time get theirs (the newest first; older lines had theirs already).
  timeLines() {
    for (let i = this.lines.length - 1; i >= 0; i--) {
      const r = this.lines[i];
      if (r.t !== undefined) break;
      r.t = this.timeAt(r.start);
      if (r.t !== undefined) this.label(r);
    }
  }

  // ── lines ──

  // Whole lines (or a part of an overlong one) of bytes beginning at byte `at`, as records; abs
  // is the line number of byte `at` (null: unknown), first whether it begins a line.
  records(bytes, at, abs, first) {
    const out = [];
    const text = new TextDecoder().decode(bytes);
    const parts = text.split("\n");
    let pos = 0;
    for (let i = 0; i < parts.length; i++) {
      const last = i === parts.length - 1;
      if (last && parts[i] === "") break;
      // A newline byte is never inside a UTF-8 character: the i-th "\n" is the i-th byte 10.
      const end = last ? bytes.length : bytes.indexOf(10, pos) + 1;
      const raw = last ? parts[i] : parts[i] + "\n";
      const r = { node: null, start: at + pos, end: at + end, abs, first, text: inert(raw, this.lastText), sec: null, t: undefined };
      r.sec = this.sectionAt(r.start);
      this.lastText = raw.slice(-2);
      if (!this.separator(r.start, r.end, raw)) {
        r.node = document.createElement("span");
        r.node.className = "ln";
        r.node.textContent = r.text;
      }
      r.t = this.timeAt(r.start);
      this.label(r);
      out.push(r);
      pos = end;
      first = !last;
      if (!last && abs !== null) abs++;
    }
    return { out, abs, first };
  }

  // Records into their sections' bodies, after what they hold (append) or before it.
  place(recs, append) {
    let i = 0;
    while (i < recs.length) {
      const sec = recs[i].sec, frag = document.createDocumentFragment();
      for (; i < recs.length && recs[i].sec === sec; i++) if (recs[i].node) frag.append(recs[i].node);
      const body = this.bodyOf(sec);
      if (append) body.append(frag);
      else body.insertBefore(frag, body.firstChild);
    }
  }

  // The last line while it has no newline, shown as it is, in its section.
  showPartial() {
    if (!this.carry.length) {
      if (this.partial) this.partial.remove();
      this.partial = null;
      return;
    }
    if (!this.partial) {
      this.partial = document.createElement("span");
      this.partial.className = "ln partial";
    }
    const start = this.end - this.carry.length;
    const text = inert(new TextDecoder().decode(this.carry, { stream: true }), this.lastText);
    if (this.partial.textContent !== text) this.partial.textContent = text;
    const sec = this.sectionAt(start);
    const n = this.atLineStart && this.nextAbs !== null ? String(sec ? this.nextAbs - sec.line + 1 : this.nextAbs + 1) : "";
    this.partial.dataset.n = n.padStart(5);
    const body = this.bodyOf(sec);
    if (this.partial.parentNode !== body || this.partial !== body.lastChild) body.append(this.partial);
    if (this.query) {
      this.highlight(this.partial, text, true);
      this.recount();
    }
  }

  // New bytes at the end: whole lines (or a part of an overlong one) become records; the rest
  // waits in `carry`, shown as it is.
  append(value) {
    let buf = joined(this.carry, value);
    const at = this.end - this.carry.length;
    let cut = buf.lastIndexOf(10) + 1;
    if (cut === 0 && buf.length > LINE_MAX) cut = wholeChars(buf);
    this.end += value.length;
    if (cut > 0) {
      if (this.partial) this.partial.remove();
      const made = this.records(buf.subarray(0, cut), at, this.nextAbs, this.atLineStart);
      this.nextAbs = made.abs;
      this.atLineStart = made.first;
      this.place(made.out, true);
      for (const r of made.out) this.lines.push(r);
      if (this.query) this.findIn(made.out);
      buf = buf.slice(cut);
    }
    this.carry = buf;
    this.showPartial();
  }

  // Following a growing log: the oldest lines leave once more than LOG_KEEP bytes are shown.
  trim() {
    let shown = this.end - this.start;
    if (shown <= LOG_KEEP || !this.lines.length) return;
    let i = 0;
    while (i < this.lines.length - 1 && shown > LOG_KEEP / 2) {
      const r = this.lines[i++];
      if (r.node) r.node.remove();
      shown -= r.end - r.start;
    }
    this.lines.splice(0, i);
    this.start = this.lines[0].start;
    if (this.query) this.recount();
  }

  update() {
    const set = (node, text) => { if (node.textContent !== text) node.textContent = text; };
    this.older.hidden = this.start === 0;
    set(this.older, `Show older (${sizeText(Math.min(LOG_TAIL, this.start))} more of ${sizeText(this.start)} not shown)`);
    set(this.range, this.start > 0 ? `Showing the last ${sizeText(this.end - this.start)} of ${sizeText(this.end)}` : "");
    this.box.dataset.start = String(this.start);
    this.box.dataset.bytes = String(this.end);
  }

  // Each section's title (its command) and status (its outcome, or a running clock), from the
  // unit's record: its phases and the one running now.
  phases(u) {
    const done = new Map((u.phases || []).map((p) => [p.name, p]));
    const now = u.state === "running" ? u.current_phase : null;
    for (const sec of this.sections) {
      const p = done.get(sec.name);
      const running = !p && now && now.name === sec.name;
      const argv = p ? p.argv : running ? now.argv : null;
      const state = p ? (p.end === "exited" && p.exit_code === 0 ? "ok" : "failed") : running ? "running" : "";
      const key = [phaseTitle(sec.name, argv), state, p ? p.duration_ms : running ? now.started_at : ""].join("\u0000");
      if (key === sec.key) continue;
      sec.key = key;
      sec.title.textContent = inert(phaseTitle(sec.name, argv));
      sec.details.dataset.state = state;
      if (p) sec.status.replaceChildren(inert(`${p.outcome || p.end} \u00b7 ${ms(p.duration_ms)}`));
      else if (running) sec.status.replaceChildren("running \u00b7 ", clockSince(now.started_at));
      else sec.status.replaceChildren();
    }
  }

  // The live log from byte `from` (a line start is looked for after it), then new bytes as the
  // phases write them, from a streaming fetch (the Authorization header goes with it; EventSource
  // could not send it).
  // The first screen is drawn: resolve firstScreen once, at the next frame.
  screenDrawn() {
    const resolve = this.screenShown;
    if (!resolve) return;
    this.screenShown = null;
    nextFrame().then(resolve);
  }

  async follow(from, to = from) {
    this.screenTo = to;
    try {
      await this.followFrom(from);
    } finally {
      this.screenDrawn();
    }
  }

  async followFrom(from) {
    const [line, res] = await Promise.all([this.marks(from), this.request(`offset=${from}`)]);
    if (!res.ok) throw await this.failed(res);
    const reader = res.body.getReader();
    this.start = this.end = from;
    this.nextAbs = line;
    this.atLineStart = from === 0;
    let first = from > 0;
    this.update();
    if (this.end >= this.screenTo) this.screenDrawn(); // nothing to wait for
    for (;;) {
      const { value, done } = await reader.read();
      if (value && value.length) {
        let bytes = value;
        if (first) {
          const skip = lineStart(bytes);
          if (skip > 0 && bytes[skip - 1] === 10) {
            this.atLineStart = true;
            if (this.nextAbs !== null) this.nextAbs++;
          }
          bytes = bytes.subarray(skip);
          this.start = this.end = from + skip;
          first = false;
        }
        // A read can hold hundreds of KiB (the tail of a large log at once): made into lines a
        // slice per task.
        let t0 = performance.now();
        for (let i = 0; i < bytes.length; i += LOG_SLICE) {
          if (i > 0 && performance.now() - t0 >= SLICE_MS) {
            await nextFrame();
            t0 = performance.now();
          }
          this.append(bytes.subarray(i, i + LOG_SLICE));
          if (this.atBottom) {
            this.trim();
            this.scrollDown();
          }
          this.update();
        }
        if (this.end >= this.screenTo) this.screenDrawn();
      }
      if (done) break;
    }
    if (this.carry.length) { // a last line without its newline
      if (this.partial) this.partial.remove();
      this.partial = null;
      const made = this.records(this.carry, this.end - this.carry.length, this.nextAbs, this.atLineStart);
      this.place(made.out, true);
      for (const r of made.out) this.lines.push(r);
      if (this.query) this.findIn(made.out);
      this.carry = new Uint8Array(0);
    }
    await this.marks(this.marksTo).catch(quiet); // the unit ended: its last marks
    this.box.dataset.ended = "true";
  }

  // The LOG_TAIL bytes before the first one shown, put before it; the lines being read stay where
  // they are on the screen.
  async showOlder() {
    if (this.start === 0 || this.older.disabled) return;
    this.older.disabled = true;
    try {
      const from = Math.max(0, this.start - LOG_TAIL);
      const [line, res] = await Promise.all([this.marks(from, this.start), this.request(`offset=${from}&end=${this.start}`)]);
      if (!res.ok) throw await this.failed(res);
      let bytes = new Uint8Array(await res.arrayBuffer());
      const skip = from > 0 ? lineStart(bytes) : 0;
      const atStart = from === 0 || (skip > 0 && bytes[skip - 1] === 10);
      const abs = line === null ? null : line + (from > 0 && atStart ? 1 : 0);
      bytes = bytes.subarray(skip);
      // Made into lines a slice per task (cut after a newline: a slice ends where a line does),
      // then put on the page at once: the lines shown never have a gap.
      const keep = this.lastText;
      this.lastText = "";
      const out = [];
      let at = 0, n = abs, first = atStart;
      while (at < bytes.length) {
        if (at > 0) await nextTask();
        let cut = Math.min(bytes.length, at + LOG_SLICE);
        if (cut < bytes.length) {
          const nl = bytes.lastIndexOf(10, cut - 1);
          cut = nl >= at ? nl + 1 : Math.min(bytes.length, bytes.indexOf(10, cut) + 1 || bytes.length);
        }
        const made = this.records(bytes.subarray(at, cut), from + skip + at, n, first);
        for (const r of made.out) out.push(r);
        n = made.abs;
        first = made.first;
        at = cut;
      }
      this.lastText = keep;
      const box = this.box, height = box.scrollHeight, top = box.scrollTop;
      this.place(out, false);
      this.lines = out.concat(this.lines);
      this.start = from + skip;
      if (this.query) this.find(this.query, true);
      box.scrollTop = top + (box.scrollHeight - height);
      // Moved by the page, not the reader: following resumes only at the bottom.
      this.autoTop = Infinity;
      this.atBottom = box.scrollTop + box.clientHeight >= box.scrollHeight - 4;
    } finally {
      this.older.disabled = false;
      this.update();
    }
  }

  // The line holding byte `offset` (a step's, from /events) shown: older parts are loaded until
  // it is on the page, its section opened, the line marked and scrolled to; the log stops
  // following. False when the log does not reach that byte (yet).
  async jumpTo(offset) {
    if (!Number.isSafeInteger(offset) || offset < 0) return false;
    await this.firstScreen;
    while (offset < this.start) {
      const before = this.start;
      await this.showOlder();
      if (this.start >= before) return false;
    }
    let node = null;
    if (this.partial && offset >= this.end - this.carry.length) node = this.partial;
    else if (offset < this.end) {
      let lo = 0, hi = this.lines.length - 1, found = -1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        if (this.lines[mid].start <= offset) { found = mid; lo = mid + 1; } else hi = mid - 1;
      }
      // A heading's separator has no node of its own: the heading's line follows it.
      for (let i = found; i >= 0 && i < this.lines.length && !node; i++) node = this.lines[i].node;
    }
    if (!node) return false;
    for (const old of this.box.querySelectorAll(".ln.jumped")) old.classList.remove("jumped");
    node.classList.add("jumped");
    const details = node.closest("details");
    if (details) details.open = true;
    this.atBottom = false;
    this.autoTop = Infinity;
    node.scrollIntoView({ block: "center", inline: "nearest" });
    this.box.dataset.jumped = String(offset);
    return true;
  }

  // ── search ──
  // Plain text in what the page shows (the inert text, as it reads), case-insensitive; each match
  // a <mark>, the current one scrolled to. The line's text stays the same text, in parts.

  highlight(node, text, partial = false) {
    const at = occurrences(text, this.query);
    if (!at.length) {
      if (node.childNodes.length !== 1 || node.firstChild.nodeType !== Node.TEXT_NODE) node.textContent = text;
      return [];
    }
    const parts = [], marks = [];
    let pos = 0;
    for (const a of at) {
      if (a > pos) parts.push(document.createTextNode(text.slice(pos, a)));
      const m = el("mark", { class: partial ? "hit partial-hit" : "hit" });
      m.textContent = text.slice(a, a + this.query.length);
      parts.push(m);
      marks.push(m);
      pos = a + this.query.length;
    }
    if (pos < text.length) parts.push(document.createTextNode(text.slice(pos)));
    node.replaceChildren(...parts);
    return marks;
  }

  findIn(recs) {
    for (const r of recs) if (r.node) this.hits.push(...this.highlight(r.node, r.text));
    this.recount();
  }

  // A new query: every line shown searched again. keep: the current match stays (more lines came).
  // The lines are searched SLICE_MS at a time, one task each: a query typed meanwhile starts over
  // (the older search stops at its next slice). Lines that arrive meanwhile are searched as they
  // come (findIn); the matches are counted in the page's order once all are searched.
  async find(query, keep = false) {
    const run = (this.findRun = (this.findRun || 0) + 1);
    const before = this.hits[this.current];
    const shown = this.lines.slice();
    this.query = query;
    this.hits = [];
    this.current = -1;
    this.box.dataset.searching = "true";
    let t0 = performance.now();
    const slice = async () => {
      if (performance.now() - t0 < SLICE_MS) return true;
      await nextTask();
      t0 = performance.now();
      return run === this.findRun;
    };
    for (const node of new Set([...this.box.querySelectorAll("mark.hit")].map((m) => m.parentNode))) {
      if (node) node.textContent = node.textContent; // one text node again
      if (!(await slice())) return;
    }
    if (query) {
      for (const r of shown) {
        if (r.node) this.highlight(r.node, r.text);
        if (!(await slice())) return;
      }
      if (this.partial) this.showPartial();
    }
    delete this.box.dataset.searching;
    this.hits = [...this.box.querySelectorAll("mark.hit:not(.partial-hit)")];
    this.recount();
    if (keep && before) {
      const again = this.hits.findIndex((m) => m.textContent === before.textContent);
      if (again >= 0) this.current = again;
    } else if (this.hits.length) this.step(1);
  }

  recount() {
    this.hits = this.hits.filter((m) => m.isConnected && !m.classList.contains("partial-hit"));
    if (this.current >= this.hits.length) this.current = this.hits.length - 1;
    // The unfinished last line's matches count too (they are stepped to once the line is whole).
    const pending = this.partial && this.partial.isConnected ? this.partial.querySelectorAll("mark.hit").length : 0;
    const n = this.hits.length + pending;
    const where = this.start > 0 ? " in the part shown" : "";
    const of = this.current >= 0 ? `${this.current + 1} of ` : "";
    const text = !this.query ? "" : n ? `${of}${n} match${n === 1 ? "" : "es"}${where}` : `no match${where}`;
    if (this.count.textContent !== text) this.count.textContent = text;
    this.box.dataset.hits = String(n);
  }

  // The next (1) or previous (-1) match, its section unfolded and scrolled into view.
  step(by) {
    if (!this.hits.length) return;
    if (this.current >= 0) this.hits[this.current].classList.remove("current");
    this.current = (this.current + by + this.hits.length) % this.hits.length;
    const m = this.hits[this.current];
    m.classList.add("current");
    const details = m.closest("details");
    if (details) details.open = true;
    this.atBottom = false; // the reader is looking at a match: the log stops following
    this.autoTop = Infinity;
    m.scrollIntoView({ block: "center", inline: "nearest" });
    this.recount();
  }

  // The raw log (as the transcript holds it now, redacted as on the page) saved as a file. The
  // request carries the token in its header, so a plain link cannot fetch it: the page fetches it
  // and hands the browser a blob: URL to save.
  // The raw log as a file; given a section, that phase's bytes alone: from its heading to the
  // next phase's (to the end for the last), as awaywork-ID-N-NAME.log (N its place, NAME made of
  // safe characters: a phase's name is the configuration's, still not a path).
  async download(sec) {
    const button = sec ? sec.raw : this.raw;
    let query = "download=1", name = `awaywork-${this.id}.log`;
    if (sec) {
      const i = this.sections.indexOf(sec), next = this.sections[i + 1];
      query += `&offset=${sec.offset}` + (next ? `&end=${next.offset}` : "");
      name = `awaywork-${this.id}-${i + 1}-${sec.name.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 60)}.log`;
    }
    button.disabled = true;
    try {
      const res = await this.request(query);
      if (!res.ok) throw await this.failed(res);
      const blob = await res.blob();
      const url = URL.createObjectURL(blob);
      const a = el("a", { href: url, download: name, hidden: true });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60000);
      button.dataset.bytes = String(blob.size);
      button.dataset.file = name;
    } finally {
      button.disabled = false;
    }
  }
}

// ── the agent's steps ──
// The transcript events awaywork parsed from the agent's CLI output (GET /units/ID/events, from
// runs/ID/events.jsonl, written as the agent works; events.json for a unit recorded before): one
// step per event, in order, each with its time and the log offset of its line (ms, offset). A tool
// call is told by what it did: a file read, a file edited, a command run, or another tool; its
// input is the agent's JSON, read here only for a path or a command (shown as text, like all).

const READ_TOOLS = /^(read|readfile|read_file|view|glob|grep|ls|list|search|find|read_many_files|list_directory)$/;
const EDIT_TOOLS = /^(edit|multiedit|write|writefile|write_file|edit_file|notebookedit|apply_patch|str_replace|str_replace_editor|replace|create|delete|patch)$/;
const COMMAND_TOOLS = /^(bash|shell|sh|exec|exec_command|run|run_shell_command|command|local_shell|terminal)$/;

function toolInput(text) {
  try {
    const j = JSON.parse(text);
    return j && typeof j === "object" && !Array.isArray(j) ? j : {};
  } catch {
    return {};
  }
}

function stepOf(e) {
  if (e.kind !== "tool_call") return { step: e.kind };
  const input = toolInput(e.text);
  const tool = String(e.tool || "").toLowerCase().replace(/[^a-z_]/g, "");
  const file = [input.file_path, input.path, input.filePath, input.notebook_path, input.filename]
    .find((v) => typeof v === "string" && v !== "");
  const cmd = Array.isArray(input.command) ? input.command.join(" ") : [input.command, input.cmd]
    .find((v) => typeof v === "string" && v !== "");
  if (COMMAND_TOOLS.test(tool) || (cmd && !file)) return { step: "command", command: cmd || e.text };
  if (EDIT_TOOLS.test(tool)) return { step: "edit", file };
  if (READ_TOOLS.test(tool)) return { step: "read", file };
  return { step: "tool" };
}

const firstLine = (t, n = 160) => {
  const line = String(t || "").split("\n")[0];
  return line.length > n ? line.slice(0, n) + "\u2026" : line;
};

// A cost as the agent's CLI reported it (usage events' cost_usd, US dollars): "$0.0123"; 0 when
// it reported none (codex and gemini print no cost: then none is shown, never a guess).
const costOf = (e) => (Number.isFinite(e.cost_usd) && e.cost_usd > 0 ? e.cost_usd : 0);
const usd = (v) => (v < 0.00005 ? "<$0.0001" : "$" + v.toFixed(4));

function stepItem(e, i) {
  const s = stepOf(e);
  const text = String(e.text || "");
  let head;
  if (s.step === "message") head = [el("span", { class: "step-kind" }, "Says"), firstLine(text)];
  else if (s.step === "read") head = [el("span", { class: "step-kind" }, "Read"), el("code", {}, s.file || firstLine(text))];
  else if (s.step === "edit") head = [el("span", { class: "step-kind" }, "Edit"), el("code", {}, s.file || firstLine(text)), el("span", { class: "muted" }, " " + e.tool)];
  else if (s.step === "command") head = [el("span", { class: "step-kind" }, "Run"), el("code", {}, "$ " + firstLine(s.command, 200))];
  else if (s.step === "tool") head = [el("span", { class: "step-kind" }, e.tool || "Tool"), el("code", {}, firstLine(text))];
  else if (s.step === "tool_result") head = [el("span", { class: "step-kind" }, "\u21b3 " + (e.tool || "result")), el("span", { class: "muted" }, firstLine(text) || "(empty)")];
  else if (s.step === "error") head = [el("span", { class: "step-kind bad" }, "Error"), firstLine(text)];
  else head = [el("span", { class: "step-kind" }, "Tokens"), `${e.input_tokens} in, ${e.output_tokens} out`,
    costOf(e) ? ` \u00b7 ${usd(costOf(e))}` : null];
  // The whole text, folded, when the line shown is not all of it.
  const more = text && s.step !== "usage" && firstLine(text, s.step === "command" ? 200 : 160) !== text
    ? el("details", {}, el("summary", {}, "all of it"), el("pre", { class: "step-text" }, text)) : null;
  // When it happened; a click shows its line in the log (the steps box's listener: LogView.jumpTo).
  const at = Number.isSafeInteger(e.offset) && e.offset >= 0
    ? el("button", { type: "button", class: "step-at", "data-offset": String(e.offset),
      title: "Show this step's line in the log",
      "aria-label": `Show step ${i + 1}'s line in the log` + (Number.isSafeInteger(e.ms) ? ` (${timeOfDay(e.ms)})` : "") },
    Number.isSafeInteger(e.ms) ? timeOfDay(e.ms) : "log")
    : Number.isSafeInteger(e.ms) ? el("span", { class: "step-at muted" }, timeOfDay(e.ms)) : null;
  return el("li", { class: "step", "data-kind": e.kind, "data-step": s.step, "data-n": String(i + 1),
    "data-file": s.file, "data-tool": e.tool || undefined }, at, el("div", { class: "step-head" }, head), more);
}

// The counts above the steps: messages (the model's turns; a plain command agent's lines), tool calls by what they did, files, tokens
// and the cost the CLI reported.
function stepsSummary(events) {
  const n = { message: 0, tool_call: 0, read: 0, edit: 0, command: 0, error: 0 };
  const read = new Set(), edited = new Set();
  let tin = 0, tout = 0, cost = 0;
  for (const e of events) {
    const s = stepOf(e);
    if (e.kind in n) n[e.kind]++;
    if (s.step in n && s.step !== e.kind) n[s.step]++;
    if (s.step === "read" && s.file) read.add(s.file);
    if (s.step === "edit" && s.file) edited.add(s.file);
    if (e.kind === "usage") {
      tin += e.input_tokens || 0;
      tout += e.output_tokens || 0;
      cost += costOf(e);
    }
  }
  const plural = (k, w) => `${k} ${w}${k === 1 ? "" : "s"}`;
  return el("div", { id: "steps-summary", class: "steps-summary" },
    el("p", {}, [plural(n.message, "message"), plural(n.tool_call, "tool call") +
      ` (${n.read} read, ${n.edit} edit, ${n.command} command)`, n.error ? plural(n.error, "error") : null,
      el("span", { id: "steps-tokens" }, `${tin} input and ${tout} output tokens`),
      cost ? el("span", { id: "steps-cost", title: "As the agent's CLI reported it" }, usd(cost)) : null].filter(Boolean)
      .flatMap((x, i) => (i ? [" \u00b7 ", x] : [x]))),
    read.size || edited.size ? el("p", { class: "muted" },
      read.size ? ["Read: ", el("span", { id: "steps-read" }, [...read].join(", "))] : null,
      read.size && edited.size ? "; " : null,
      edited.size ? ["edited: ", el("span", { id: "steps-edited" }, [...edited].join(", "))] : null) : null);
}

const stepsLeftOut = (r) => (Number(r.left_out) > 0
  ? el("p", { class: "muted", id: "steps-left-out" }, `The last ${r.events.length} of ${r.total} steps; the log holds them all.`)
  : null);

function stepsSection(r, u) {
  if (!r || !r.recorded || !r.events.length) {
    const why = u.state === "running" ? "No steps yet: they appear here as the agent works."
      : "No steps: the agent's output held no events awaywork reads (a plain command agent, or it ended first).";
    return [el("p", { class: "muted", id: "steps-none" }, why)];
  }
  return [stepsSummary(r.events), stepsLeftOut(r), el("ol", { id: "steps", class: "steps" }, r.events.map((e, i) => stepItem(e, i + (Number(r.left_out) || 0))))].filter(Boolean);
}

// The steps box brought up to date with an answer of /events. While the unit runs the page asks
// again every STEPS_POLL_MS: only the steps not shown yet are added (the file only grows), the
// oldest leave past the answer's count, and a list scrolled to its end stays there. Rebuilding
// 2000 steps each time was one long task per poll.
function showSteps(box, r, u) {
  const ol = box.querySelector("#steps");
  const left = Number(r && r.left_out) || 0;
  const from = box.stepsTotal !== undefined ? box.stepsTotal - left : -1;
  if (!ol || !r || !r.recorded || !r.events.length || !(Number(r.total) >= box.stepsTotal) || from < 0 || from > r.events.length) {
    box.replaceChildren(...stepsSection(r, u));
  } else if (from < r.events.length) {
    const atEnd = ol.scrollTop + ol.clientHeight >= ol.scrollHeight - 4;
    ol.append(...r.events.slice(from).map((e, i) => stepItem(e, left + from + i)));
    while (ol.children.length > r.events.length) ol.firstElementChild.remove();
    box.querySelector("#steps-summary").replaceWith(stepsSummary(r.events));
    const had = box.querySelector("#steps-left-out"), note = stepsLeftOut(r);
    if (had && note) had.replaceWith(note);
    else if (had) had.remove();
    else if (note) ol.before(note);
    if (atEnd) ol.scrollTop = ol.scrollHeight;
  }
  box.stepsTotal = r && r.recorded && r.events.length ? Number(r.total) || r.events.length : undefined;
}

function unitButtons(u, id, signal) {
  const buttons = [badge(u.state)];
  if (u.state === "running")
    buttons.push(el("button", { type: "button", class: "danger", id: "cancel", onclick: async (e) => {
      e.target.disabled = true;
      try { await postJSON(`/units/${id}/cancel`, {}, signal); say(""); } catch (err) { quiet(err); }
    } }, "Cancel"));
  // A re-run is `awaywork replay`: the recorded repository, base commit, task, agent and profile,
  // as a new unit (its record says replay_of); the page then shows the new unit.
  if (u.state !== "running" && u.prompt)
    buttons.push(el("button", { type: "button", id: "rerun", onclick: async (e) => {
      e.target.disabled = true;
      try {
        const r = await postJSON(`/units/${id}/replay`, {}, signal);
        say("");
        location.hash = "#/unit/" + r.id;
      } catch (err) { quiet(err); e.target.disabled = false; }
    } }, "Re-run"));
  if (u.verdict === "accepted" && u.state !== "running")
    buttons.push(el("button", { type: "button", id: "apply", onclick: async (e) => {
      e.target.disabled = true;
      try { const r = await postJSON(`/units/${id}/apply`, {}, signal); say(""); e.target.textContent = r.branch ? "Applied: " + r.branch : "Applied"; }
      catch (err) { quiet(err); e.target.disabled = false; }
    } }, u.published ? "Apply again" : "Apply"));
  return buttons;
}

// What runs now, with a clock from the phase's recorded start; between phases, that the unit is
// preparing or checking.
function phaseNow(u) {
  if (u.state !== "running") return [];
  const p = u.current_phase;
  if (!p) return [el("span", { class: "muted" }, u.phases.length ? "Between phases (collecting, checking or starting the next)" : "Preparing (cloning, starting the isolation)")];
  return ["Running ", el("strong", {}, p.name), Array.isArray(p.argv) && p.argv.length ? el("code", {}, " " + p.argv.join(" ")) : "",
    " for ", clockSince(p.started_at, { id: "phase-clock" })];
}

async function unitPage(signal, id) {
  setNav("");
  const head = el("div", { class: "actions" });
  const now = el("p", { id: "phase-now", class: "phase-now", "aria-live": "off" });
  const factsBox = el("div");
  const timeline = el("div", { class: "timeline", id: "timeline" });
  const log = new LogView(id, signal);
  const diffBox = el("div", {}, el("p", { class: "muted" }, "The diff appears when the unit ends."));
  const verdictBox = el("div"), requestsBox = el("div"), publishedBox = el("div");
  // Shown only for a unit of a pull request (it opened one or follows one up).
  const threadTitle = el("h2", { id: "thread-title", hidden: true }, "Pull request thread");
  const threadBox = el("section", { id: "thread-box", "aria-labelledby": "thread-title", hidden: true });
  const stepsBox = el("div", { id: "steps-box" }, el("p", { class: "muted" }, "Loading the agent's steps\u2026"));
  // A step's time is a button: its line shown in the log (older parts loaded when it is before them).
  stepsBox.addEventListener("click", (e) => {
    const at = e.target.closest("button.step-at");
    if (at) log.jumpTo(Number(at.dataset.offset)).catch(quiet);
  });
  // The log and, beside it (below it when narrow), the agent's steps.
  show(el("h1", {}, id), head, now, factsBox, threadTitle, threadBox, el("h2", {}, "Phases"), timeline,
    el("div", { class: "work" },
      el("div", { class: "work-log" }, el("h2", {}, "Log"), log.tools, log.box),
      el("section", { class: "work-steps", "aria-labelledby": "steps-title" }, el("h2", { id: "steps-title" }, "Agent steps"), stepsBox)),
    el("h2", {}, "Diff"), diffBox, el("h2", {}, "Verdict"), verdictBox, el("h2", {}, "Requests"), requestsBox,
    el("h2", {}, "Published"), publishedBox);
  const ticker = setInterval(() => tickClocks(view), 1000);
  signal.addEventListener("abort", () => clearInterval(ticker));
  let logDone = null;
  let shownDiff = false;
  let headKey = "", nowKey = "", stepsKey = "", threadKey = "";
  // The steps, asked after the log's first screen is drawn (the log comes first: issue 25), then
  // every STEPS_POLL_MS while the unit runs (the agent's steps are written as it works) and once
  // more when it ended; no more after that. One request at a time; a change meanwhile asks again.
  let stepsUnit = null, stepsBusy = false;
  const loadSteps = async () => {
    if (stepsBusy) return;
    stepsBusy = true;
    try {
      await log.firstScreen;
      while (stepsUnit) {
        const u = stepsUnit;
        stepsUnit = null;
        try {
          const r = await api(`/units/${id}/events`, { signal });
          showSteps(stepsBox, r, u);
          stepsBox.dataset.loaded = u.state;
          if (u.state !== "running") stepsKey = "ended";
        } catch (err) {
          if (err.name === "AbortError") return;
          stepsBox.replaceChildren(el("p", { class: "muted" }, err.message));
        }
      }
    } finally {
      stepsBusy = false;
    }
  };
  for (;;) {
    const u = await api("/units/" + id, { signal });
    // The log from its last LOG_TAIL bytes (u.log_bytes: its size when the unit was read), before
    // anything else is asked: its first screen is the page's.
    if (!logDone) logDone = log.follow(Math.max(0, (u.log_bytes || 0) - LOG_TAIL), u.log_bytes || 0).catch(quiet);
    else if (u.state === "running") await log.refresh().catch(quiet);
    const sk = u.state === "running" ? "running|" + Math.floor(Date.now() / STEPS_POLL_MS) : u.state;
    if (sk !== stepsKey && stepsKey !== "ended") {
      stepsKey = sk;
      stepsUnit = u;
      loadSteps();
    }
    // The thread: asked again when this unit's state or publication changes (a follow-up that
    // starts meanwhile shows on the next one, or on a reload).
    const tk = [u.state, u.pull_request, u.commit].join("|");
    if (tk !== threadKey) {
      threadKey = tk;
      try {
        const r = await api(`/units/${id}/thread`, { signal });
        threadTitle.hidden = threadBox.hidden = !r.thread;
        // Named as the forge names it: a GitLab unit's is a merge request's thread.
        const mr = r.thread && r.thread.pull_request && r.thread.pull_request.kind === "merge_request";
        threadTitle.textContent = mr ? "Merge request thread" : "Pull request thread";
        threadBox.replaceChildren(...(r.thread ? threadSection(r.thread, id) : []));
      } catch (err) {
        if (err.name === "AbortError") throw err;
        threadTitle.hidden = threadBox.hidden = false;
        threadBox.replaceChildren(el("p", { class: "muted" }, err.message));
      }
    }
    document.body.dataset.unitState = u.state;
    // The buttons are made again only when what they offer changes: a focused button stays.
    const key = [u.state, u.verdict, Boolean(u.published)].join("|");
    if (key !== headKey) {
      headKey = key;
      head.replaceChildren(...unitButtons(u, id, signal));
    }
    const cur = u.state === "running" && u.current_phase ? u.current_phase : null;
    const phaseKey = [u.state, cur ? cur.name + cur.started_at : "", u.phases.length].join("|");
    if (phaseKey !== nowKey) {
      nowKey = phaseKey;
      now.replaceChildren(...phaseNow(u));
      now.hidden = u.state !== "running";
      if (cur) now.dataset.phase = cur.name;
      else delete now.dataset.phase;
    }
    factsBox.replaceChildren(facts(u));
    timeline.replaceChildren(...phaseTimeline(u));
    log.phases(u);
    verdictBox.replaceChildren(...verdictSection(u));
    requestsBox.replaceChildren(...requestsSection(u));
    publishedBox.replaceChildren(...publishedSection(u));
    document.body.dataset.rendered = "unit";
    if (u.state !== "running") {
      if (!shownDiff) {
        shownDiff = true;
        if (!u.patch_files) {
          diffBox.replaceChildren(el("p", { class: "muted" }, "No patch: the agent changed nothing, or the unit ended before it was collected."));
        } else {
          try {
            const [text, hljs] = await Promise.all([api(`/units/${id}/patch`, { signal }), loadHighlighter()]);
            diffBox.replaceChildren(...diffSection(text, hljs));
          } catch (err) {
            if (err.name === "AbortError") throw err;
            diffBox.replaceChildren(el("p", { class: "muted" }, err.message));
          }
        }
      }
      await logDone;
      log.phases(u);
      return;
    }
    await sleep(1000, signal);
  }
}

// ── watch ───────────────────────────────────────────────────────────────────────────────────
// What `awaywork watch` on this state folder is doing (GET /watcher): whether it runs, each
// repository's polls and rate limit, the issues it has claimed and the ones queued, in the order
// it starts them. Refreshed every 2 s; the issue texts (triggers) are the forge's, shown inert.

// "in 30 s" / "12 s ago" for an ISO time, titled with the time itself.
function when(iso) {
  if (!iso) return el("span", { class: "muted" }, "\u2014");
  const t = Date.parse(iso);
  if (isNaN(t)) return el("span", {}, iso);
  const s = Math.round((t - Date.now()) / 1000);
  const span = Math.abs(s) < 60 ? Math.abs(s) + " s" : Math.abs(s) < 3600 ? Math.round(Math.abs(s) / 60) + " min"
    : Math.abs(s) < 86400 ? Math.round(Math.abs(s) / 3600) + " h" : Math.round(Math.abs(s) / 86400) + " d";
  return el("time", { datetime: iso, title: iso }, s > 0 ? "in " + span : span + " ago");
}

function table(id, heads, rows, none) {
  if (!rows.length) return el("p", { class: "muted", id: id + "-none" }, none);
  return el("div", { class: "table-wrap" }, el("table", { id },
    el("thead", {}, el("tr", {}, heads.map((h) => el("th", { scope: "col" }, h)))),
    el("tbody", {}, rows)));
}

function watchView(v) {
  const running = v.watching;
  const state = running ? (v.stopping ? "Stopping" : "Watching") : "Not watching";
  const status = el("p", { id: "watch-state", class: "phase-now", "data-watching": String(Boolean(running)) },
    el("strong", {}, state),
    v.host ? [" \u00b7 ", el("code", {}, `${v.host} pid ${v.pid}`)] : null,
    v.started_at ? [" \u00b7 started ", when(v.started_at)] : null,
    v.beat_at ? [" \u00b7 last beat ", when(v.beat_at)] : null,
    v.stopped_at ? [" \u00b7 stopped ", when(v.stopped_at)] : null);
  const rate = (r) => r.rate_limit
    ? [`${r.rate_limit.remaining} of ${r.rate_limit.limit}`, r.rate_limit.reset_at ? [", resets ", when(r.rate_limit.reset_at)] : null]
    : el("span", { class: "muted" }, "not seen yet");
  const unitLink = (id) => id && /^[a-z0-9-]+$/.test(id) ? el("a", { href: "#/unit/" + id }, id) : el("span", { class: "muted" }, "\u2014");
  const issue = (c) => el("span", { class: "issue" }, `${c.repo}#${c.issue}`);
  return [
    status,
    v.message ? el("p", { class: "warning", id: "watch-message" }, v.message) : null,
    el("h2", {}, "Repositories"),
    table("watch-repos", ["Repo", "Last poll", "Next poll", "Requests", "Rate limit"],
      (v.repos || []).map((r) => el("tr", { "data-repo": r.repo }, el("td", {}, r.repo), el("td", {}, when(r.polled_at)),
        el("td", {}, when(r.next_poll_at)), el("td", {}, String(r.requests)), el("td", { class: "rate" }, rate(r)))),
      "No repository polled yet."),
    el("h2", {}, "Claims"),
    table("watch-claims", ["Issue", "Phase", "Since", "Unit", "Attempts", "Trigger"],
      (v.claims || []).map((c) => el("tr", { "data-issue": `${c.repo}#${c.issue}` }, el("td", {}, issue(c)), el("td", {}, c.phase),
        el("td", {}, when(c.since)), el("td", { class: "id" }, unitLink(c.unit)), el("td", {}, String(c.attempts)),
        el("td", {}, c.trigger))),
      "No issue claimed."),
    el("h2", {}, "Queue"),
    table("watch-queue", ["#", "Issue", "Queued", "Not before", "Trigger", "Attempts"],
      (v.queue || []).map((q, i) => el("tr", { "data-issue": `${q.repo}#${q.issue}` }, el("td", {}, String(i + 1)),
        el("td", {}, issue(q), q.requeued ? el("span", { class: "muted" }, " (again)") : null),
        el("td", {}, when(q.queued_at)), el("td", {}, when(q.not_before)), el("td", {}, q.trigger), el("td", {}, String(q.attempts)))),
      "Nothing queued."),
  ].filter(Boolean);
}

async function watchPage(signal) {
  setNav("watch");
  show(el("h1", {}, "Watch"), el("p", { class: "muted" }, "Reading the watcher's state\u2026"));
  const box = el("div", { id: "watch" });
  let last = "";
  for (;;) {
    const v = await api("/watcher", { signal });
    const seen = JSON.stringify(v) + Math.floor(Date.now() / 10000); // and every 10 s, for the ages
    if (seen !== last) {
      last = seen;
      box.replaceChildren(...watchView(v));
      if (document.body.dataset.rendered !== "watch") {
        show(el("h1", {}, "Watch"), box);
        document.body.dataset.rendered = "watch";
      }
    }
    await sleep(2000, signal);
  }
}

// ── doctor ──────────────────────────────────────────────────────────────────────────────────

async function doctorPage(signal) {
  setNav("doctor");
  show(el("h1", {}, "Doctor"), el("p", { class: "muted" }, "Checking…"));
  const d = await api("/doctor", { signal });
  const checks = d.checks.map((c) =>
    el("li", { "data-ok": String(c.ok) },
      el("span", { class: "mark " + (c.ok ? "ok" : "bad"), "aria-label": c.ok ? "passed" : "failed" }, c.ok ? "\u2714" : "\u2716"),
      c.name, c.detail ? el("span", { class: "muted" }, " (" + c.detail + ")") : null,
      c.fix ? el("pre", { class: "fix" }, "fix: " + c.fix) : null));
  show(el("h1", {}, "Doctor"),
    el("p", { id: "doctor-summary" }, `Isolation ${d.isolation}: ` + (d.ok ? "every check passed." : "some checks failed; each shows its fix.")),
    el("ul", { class: "checks", id: "checks" }, checks));
  document.body.dataset.rendered = "doctor";
}

// ── new unit ────────────────────────────────────────────────────────────────────────────────

async function newPage(signal) {
  setNav("new");
  const cfg = await api("/config", { signal });
  const options = (names, none) => [el("option", { value: "" }, none), ...names.map((n) => el("option", { value: n }, n))];
  const repo = el("input", { id: "repo", name: "repo", required: true, list: "repos", value: cfg.repos.length === 1 ? cfg.repos[0] : "" });
  const prompt = el("textarea", { id: "prompt", name: "prompt", required: true });
  // An issue instead of a task: the unit's task is built from it (repo and task then unused).
  // GitLab's project paths (GROUP/SUBGROUP/PROJECT) are taken as GitHub's OWNER/REPO.
  const issue = el("input", { id: "issue", name: "issue", placeholder: "NAME#N or PATH#N", size: 24,
    title: "a repos: name, or its github: OWNER/REPO or gitlab: GROUP/PROJECT, then # and the issue's number",
    pattern: "[^#\\s]+#[1-9][0-9]*", oninput: () => {
      const fromIssue = issue.value.trim() !== "";
      repo.required = prompt.required = !fromIssue;
      repo.disabled = prompt.disabled = fromIssue;
    } });
  const agent = el("select", { id: "agent", name: "agent" }, options(cfg.agents, cfg.default_agent ? `default (${cfg.default_agent})` : "default"));
  const profile = el("select", { id: "profile", name: "profile" }, options(cfg.profiles, "default"));
  const seconds = el("input", { id: "unit_seconds", name: "unit_seconds", type: "number", min: 1, placeholder: `${cfg.unit_minutes * 60}` });
  const submit = el("button", { class: "primary", type: "submit", id: "start" }, "Start unit");
  const form = el("form", { class: "new", onsubmit: async (e) => {
    e.preventDefault();
    submit.disabled = true;
    const body = issue.value.trim() ? { issue: issue.value.trim() } : { repo: repo.value.trim(), prompt: prompt.value };
    if (agent.value) body.agent = agent.value;
    if (profile.value) body.profile = profile.value;
    if (seconds.value) body.unit_seconds = parseInt(seconds.value, 10);
    try {
      const r = await postJSON("/units", body, signal);
      say("");
      location.hash = "#/unit/" + r.id;
    } catch (err) {
      quiet(err);
      submit.disabled = false;
    }
  } },
    el("label", {}, "Repository", repo), el("datalist", { id: "repos" }, cfg.repos.map((n) => el("option", { value: n }))),
    el("label", {}, "Task", prompt),
    el("label", {}, "Or an issue (its text becomes the task)", issue),
    el("label", {}, "Agent", agent), el("label", {}, "Profile", profile),
    el("label", {}, "Time limit (seconds, optional)", seconds), el("div", {}, submit));
  show(el("h1", {}, "New unit"), form);
  document.body.dataset.rendered = "new";
}

// ── routing ─────────────────────────────────────────────────────────────────────────────────

function route() {
  if (pageAbort) pageAbort.abort();
  pageAbort = new AbortController();
  const signal = pageAbort.signal;
  say("");
  delete document.body.dataset.rendered;
  delete document.body.dataset.unitState;
  if (!token()) {
    show(el("h1", {}, "No token"), el("p", {}, "Open the URL that `awaywork serve` printed (it ends in #token=…)."));
    return;
  }
  const hash = location.hash.replace(/^#/, "") || "/";
  const [path, query] = hash.split("?");
  const unit = /^\/unit\/([a-z0-9-]+)$/.exec(path);
  let page;
  if (unit) page = unitPage(signal, unit[1]);
  else if (path === "/doctor") page = doctorPage(signal);
  else if (path === "/watch") page = watchPage(signal);
  else if (path === "/new") page = newPage(signal);
  else page = unitsPage(signal, new URLSearchParams(query || ""));
  page.catch(quiet);
}

window.addEventListener("hashchange", route);
route();
