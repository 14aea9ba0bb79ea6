// Figures for the dashboard in headless Chromium (Debian's chromium, puppeteer-core from
// scripts/browser-deps):
//   first render of the units list with 10,000 units in the record (target: median <= 500 ms),
//     from navigation start to the table drawn (performance mark "awaywork-units-rendered");
//   bytes written by a phase → shown on the page (target: median <= 100 ms): an agent prints
//     "tick <wall-clock ms>" every 100 ms; the page's log is watched with a MutationObserver.
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
  server.kill("SIGTERM");
  fs.rmSync(dir, { recursive: true, force: true });
  return times.slice(1); // the first load warms the browser's code cache
}

async function logLatency(browser) {
  const w = await startWorld();
  const page = await browser.newPage();
  await page.goto(w.url);
  await page.waitForSelector("body[data-rendered=units]");
  const { body } = await api(w, "POST", "/units", { repo: "demo", prompt: "tick", agent: "ticker" });
  await page.goto(`http://127.0.0.1:${w.port}/#/unit/${body.id}`);
  await page.waitForSelector("#log");
  await page.evaluate(() => {
    window.lags = [];
    const seen = new Set(); // a line shown first unfinished, or moved into its phase's section, counts once
    new MutationObserver((records) => {
      const now = Date.now();
      for (const r of records)
        for (const n of r.addedNodes)
          for (const m of n.textContent.matchAll(/tick (\d{13})/g)) {
            if (seen.has(m[1])) continue;
            seen.add(m[1]);
            window.lags.push(now - Number(m[1]));
          }
    }).observe(document.querySelector("#log"), { childList: true, subtree: true });
  });
  await page.waitForSelector("body[data-unit-state=done]", { timeout: 120000 });
  const lags = await page.evaluate(() => window.lags);
  await page.close();
  await w.close();
  return lags;
}

const browser = await launch();
const render = await firstRender(browser);
const lags = await logLatency(browser);
await browser.close();
console.log(`dashboard first render, 10,000 units: median ${median(render).toFixed(1)} ms over ${render.length} loads (target <= 500 ms)`);
console.log(`phase bytes -> shown on the page: median ${median(lags)} ms, max ${Math.max(...lags)} ms over ${lags.length} lines (target <= 100 ms)`);
process.exit(median(render) <= 500 && median(lags) <= 100 ? 0 : 1);
