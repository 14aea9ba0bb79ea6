// The unit page on a 50 MiB log, the page alone (web/ from a folder, no build needed): from
// navigation start to the frame after the log's last line is on the page, and the longest task
// meanwhile (PerformanceObserver "longtask"), in headless Chromium against a stand-in for the API
// (this script serves index.html, app.js, style.css from the folder, and one ended unit whose
// log is 50 MiB of numbered lines, its marks and its parts, and its agent's last 2000 steps as
// the real server gives them). Given more folders, alternates them in the same run and prints
// the first's ratio to each: a change of web/ measured against its bases.
// Run: node bench/serve/log_page_bench.mjs [WEB] [BASE_WEB...]
//   e.g. mkdir /tmp/base && git archive main web | tar -x -C /tmp/base
//        node bench/serve/log_page_bench.mjs web /tmp/base/web
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { launch } from "../../tests/serve/browser.mjs";
import { watchBigLogEnd } from "../common/big_log_watch.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const webs = process.argv.slice(2).length ? process.argv.slice(2) : [path.join(here, "../../web")];
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];

// The log as world.py's "big" agent writes it, after its phase's heading.
const parts = ["\u2500\u2500 agent: big \u2500\u2500\n"];
const pad = "0".repeat(100);
for (let i = 1, n = Math.floor((50 * 1048576) / 115); i <= n; i++) parts.push(`line ${String(i).padStart(8, "0")} ${pad}\n`);
parts.push("big log end\n");
const log = Buffer.from(parts.join(""));
const newlines = [];
for (let i = log.indexOf(10); i >= 0; i = log.indexOf(10, i + 1)) newlines.push(i);
const lineAt = (off) => { // newlines before byte off
  let lo = 0, hi = newlines.length;
  while (lo < hi) { const m = (lo + hi) >> 1; if (newlines[m] < off) lo = m + 1; else hi = m; }
  return lo;
};
// GET /units/u1/events as the real server answers for that agent since 55a0511: a plain command
// agent's every line is a step ("message"), the last 2000 of them with total and left_out.
const stepLines = parts.slice(1).map((l) => l.slice(0, -1));
const steps = JSON.stringify({ recorded: true, events: stepLines.slice(-2000).map((text) => ({ kind: "message", text })),
  total: stepLines.length, left_out: Math.max(0, stepLines.length - 2000) });
const unit = { id: "u1", state: "done", verdict: "accepted", repo: "demo", agent: "big", prompt: "a big log",
  created_at: "2026-12-06T00:00:00Z", started_at: "2026-12-06T00:00:00Z", ended_at: "2026-12-06T00:00:30Z",
  phases: [{ name: "agent", argv: ["big"], end: "exited", exit_code: 0, outcome: "ok", duration_ms: 30000 }],
  log_bytes: log.length, patch_files: 0, published: null, current_phase: null };

function serve(web) {
  return new Promise((listening) => {
    const server = http.createServer((req, res) => {
      const u = new URL(req.url, "http://x"), q = u.searchParams;
      const send = (type, body, extra = {}) => { res.writeHead(200, { "Content-Type": type, ...extra }); res.end(body); };
      const file = { "/": "index.html", "/app.js": "app.js", "/style.css": "style.css" }[u.pathname];
      const types = { html: "text/html", js: "text/javascript", css: "text/css" };
      if (file) return send(types[file.split(".")[1]], fs.readFileSync(path.join(web, file)));
      if (u.pathname === "/highlight.min.js") return send("text/javascript", "");
      if (u.pathname === "/api/v1/units/u1") return send("application/json", JSON.stringify(unit));
      if (u.pathname === "/api/v1/units/u1/events") return send("application/json", steps);
      if (u.pathname === "/api/v1/units/u1/thread") return send("application/json", '{"thread":null}');
      if (u.pathname === "/api/v1/units/u1/marks")
        return send("application/json", JSON.stringify({ indexed: true, bytes: log.length, more: false, times: [],
          phases: [{ name: "agent", offset: 0, line: 0, at: Date.parse(unit.started_at) }], line: lineAt(Number(q.get("offset") || 0)) }));
      if (u.pathname === "/api/v1/units/u1/log")
        return send("application/octet-stream", log.subarray(Number(q.get("offset") || 0), q.has("end") ? Number(q.get("end")) : log.length));
      res.writeHead(404, { "Content-Type": "application/json" });
      res.end('{"error":"not in this stand-in","status":404}');
    });
    server.listen(0, "127.0.0.1", () => listening(server));
  });
}

async function loads(browser, web, n) {
  const server = await serve(web);
  const base = `http://127.0.0.1:${server.address().port}`;
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  await watchBigLogEnd(page);
  await page.goto(`${base}/#token=${"0123456789abcdef".repeat(4)}`);
  const shown = [], longest = [], all = [];
  for (let i = 0; i < n; i++) {
    await page.goto("about:blank");
    await page.goto(`${base}/#/unit/u1`);
    await page.waitForFunction(() => window.shown !== undefined, { timeout: 120000 });
    await page.waitForSelector("#log[data-ended=true]");
    const [s, l] = await page.evaluate(() => [window.shown, window.longest]);
    shown.push(s);
    longest.push(l);
    // Then the steps laid out too (after the first screen, since issue 25's deferral), and the
    // longest task of the whole load.
    await page.waitForFunction(() => document.querySelector("#steps li") || !document.querySelector("#steps-box")); // a page before the steps: none
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 100))));
    all.push(await page.evaluate(() => window.longest));
  }
  await page.close();
  await new Promise((done) => server.close(done));
  return { shown: shown.slice(1), longest: longest.slice(1), all: all.slice(1) }; // the first load warms the caches
}

const browser = await launch();
const got = webs.map(() => ({ shown: [], longest: [], all: [] }));
for (let round = 0; round < 3; round++)
  for (let i = 0; i < webs.length; i++) {
    const r = await loads(browser, webs[i], 6);
    got[i].shown.push(...r.shown);
    got[i].longest.push(...r.longest);
    got[i].all.push(...r.all);
  }
await browser.close();
webs.forEach((web, i) => console.log(`${web}: a 50 MiB log's first screen (its last line drawn) median ` +
  `${median(got[i].shown).toFixed(1)} ms over ${got[i].shown.length} loads; longest task median ` +
  `${median(got[i].longest).toFixed(1)} ms, max ${Math.max(...got[i].longest).toFixed(1)} ms (0: none over 50 ms); ` +
  `with the steps shown too: longest task median ${median(got[i].all).toFixed(1)} ms, max ${Math.max(...got[i].all).toFixed(1)} ms`));
for (let i = 1; i < webs.length; i++) // each folder after the first is a base of the first
  console.log(`first screen ${webs[0]} / ${webs[i]}: ${(median(got[0].shown) / median(got[i].shown)).toFixed(2)}`);
