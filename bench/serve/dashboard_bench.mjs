// Figures for the dashboard in headless Chromium (Debian's chromium, puppeteer-core from
// scripts/browser-deps), all in one run:
//   first render of the units list with 10,000 units in the record (target: median <= 500 ms),
//     from navigation start to the table drawn (performance mark "awaywork-units-rendered");
//   a 50 MiB log's first screen: navigation start to the frame after its last line is on the page
//     (the tail: issue 25), and the longest task meanwhile (PerformanceObserver "longtask");
//   a line a phase prints → shown whole on the page, as the browser's MutationObserver sees it:
//     while output keeps flowing (a line every 100 ms; target: median <= 100 ms) and in the quiet
//     case (a line after 600 ms of silence, nothing after it: the redactor holds a chunk's last
//     bytes in case a secret spans chunks and writes them once the phase is quiet for 200 ms;
//     target: median <= 400 ms). Both under a profile with a secret, so the redactor holds.
// Run: node bench/serve/dashboard_bench.mjs   (after scripts/build awaywork serve_bench)
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { launch, startWorld, api } from "../../tests/serve/browser.mjs";

const build = process.env.AW_BINARY_DIR || "build";
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];

async function firstRender(browser) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "aw-dash-bench-"));
  const config = execFileSync(path.join(build, "bench/serve/serve_bench"), ["--fill", dir]).toString().trim();
  const server = spawn(path.join(build, "src/cli/awaywork"), ["--config", config, "serve", "--json"], { stdio: ["ignore", "pipe", "ignore"] });
  const info = JSON.parse(await new Promise((r) => createInterface({ input: server.stdout }).once("line", r)));
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  const times = [];
  for (let i = 0; i < 21; i++) {
    await page.goto("about:blank");
    await page.goto(info.url);
    await page.waitForSelector("body[data-rendered=units]");
    times.push(await page.evaluate(() => performance.getEntriesByName("awaywork-units-rendered")[0].startTime));
  }
  await page.close();
  // serve writes to its state folder as it stops: the folder goes once the process is gone.
  const gone = new Promise((r) => server.once("exit", r));
  server.kill("SIGTERM");
  await gone;
  fs.rmSync(dir, { recursive: true, force: true });
  return times.slice(1); // the first load warms the browser's code cache
}

// Navigation start → the frame after the 50 MiB log's last line is on the page, and the longest
// task meanwhile, over `loads` loads of the unit's page.
async function bigLogFirstScreen(browser, w, loads = 11) {
  const { body } = await api(w, "POST", "/units", { repo: "demo", prompt: "a big log", agent: "big" });
  for (;;) {
    const u = (await api(w, "GET", "/units/" + body.id)).body;
    if (u.state !== "running") break;
    await new Promise((done) => setTimeout(done, 500));
  }
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  await page.evaluateOnNewDocument(() => {
    window.longest = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.longest = Math.max(window.longest, e.duration);
    }).observe({ type: "longtask" });
    new MutationObserver((records, self) => {
      for (const r of records)
        for (const n of r.addedNodes)
          if (n.nodeType === 1 && n.classList.contains("ln") && n.textContent === "big log end\n") {
            self.disconnect();
            requestAnimationFrame(() => setTimeout(() => { window.shown = performance.now(); }, 0));
            return;
          }
    }).observe(document, { childList: true, subtree: true });
  });
  await page.goto(w.url); // the token, into this tab's sessionStorage
  await page.waitForSelector("body[data-rendered=units]");
  const times = [], longest = [];
  for (let i = 0; i < loads; i++) {
    await page.goto("about:blank");
    await page.goto(`http://127.0.0.1:${w.port}/#/unit/${body.id}`);
    await page.waitForFunction(() => window.shown !== undefined, { timeout: 120000 });
    await page.waitForSelector("#log[data-ended=true]");
    const [t, l] = await page.evaluate(() => [window.shown, window.longest]);
    times.push(t);
    longest.push(l);
  }
  await page.close();
  return { times: times.slice(1), longest: longest.slice(1) }; // the first load warms the caches
}

// A line printed (its wall-clock ms in it) → that line shown whole on the page.
async function logLatency(browser, w, agent, word) {
  const page = await browser.newPage();
  await page.goto(w.url);
  await page.waitForSelector("body[data-rendered=units]");
  const { body } = await api(w, "POST", "/units", { repo: "demo", prompt: "tick", agent, profile: "web" });
  await page.goto(`http://127.0.0.1:${w.port}/#/unit/${body.id}`);
  await page.waitForSelector("#log");
  await page.evaluate((word) => {
    window.lags = [];
    const line = new RegExp(`tick (\\d{13}) ${word}`, "g");
    const seen = new Set(); // a line shown first unfinished, or moved into its phase's section, counts once
    new MutationObserver((records) => {
      const now = Date.now();
      for (const r of records)
        for (const n of r.addedNodes)
          for (const m of n.textContent.matchAll(line)) {
            if (seen.has(m[1])) continue;
            seen.add(m[1]);
            window.lags.push(now - Number(m[1]));
          }
    }).observe(document.querySelector("#log"), { childList: true, subtree: true, characterData: true });
  }, word);
  await page.waitForSelector("body[data-unit-state=done]", { timeout: 120000 });
  const lags = await page.evaluate(() => window.lags);
  await page.close();
  return lags;
}

const browser = await launch();
const render = await firstRender(browser);
const w = await startWorld();
const big = await bigLogFirstScreen(browser, w);
const flowing = await logLatency(browser, w, "ticker", "ok");
const quiet = await logLatency(browser, w, "quietticker", "quiet");
await w.close();
await browser.close();
const f1 = (v) => v.toFixed(1);
console.log(`dashboard first render, 10,000 units: median ${f1(median(render))} ms over ${render.length} loads (target <= 500 ms)`);
console.log(`a 50 MiB log's first screen (its last line drawn): median ${f1(median(big.times))} ms over ${big.times.length} loads; ` +
  `longest task median ${f1(median(big.longest))} ms, max ${f1(Math.max(...big.longest))} ms (0: none over 50 ms)`);
console.log(`a line printed -> shown, output flowing (a line every 100 ms): median ${median(flowing)} ms, max ${Math.max(...flowing)} ms over ${flowing.length} lines (target <= 100 ms)`);
console.log(`a line printed -> shown, after 600 ms of silence: median ${median(quiet)} ms, max ${Math.max(...quiet)} ms over ${quiet.length} lines (target <= 400 ms)`);
console.log(`quiet / flowing: ${(median(quiet) / median(flowing)).toFixed(2)}`);
process.exit(median(render) <= 500 && median(flowing) <= 100 && median(quiet) <= 400 ? 0 : 1);
