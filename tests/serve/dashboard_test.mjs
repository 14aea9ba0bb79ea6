// The dashboard in real headless Chromium against a real `awaywork serve`: the token from the
// URL, a unit started from the form with the bundled scripted agent, the live log growing, the
// diff and the verdict, a long unit cancelled, the doctor page, a profile secret nowhere on a
// page, the keyboard, 1280 and 800 px, and no console error. Screenshots: build/test-artifacts/serve.
import { test as testOf, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { launch, startWorld, collectErrors, api, missing, serverLog } from "./browser.mjs";

// Without Chromium or puppeteer-core the tests skip, saying why; under CI=true that is a failure.
const why = missing();
if (why && process.env.CI === "true") throw new Error("CI=true and " + why);
const test = why ? (name, fn) => testOf(name, { skip: why }, fn) : testOf;

const artifacts = path.join(process.env.AW_BINARY_DIR || "build", "test-artifacts", "serve");
fs.mkdirSync(artifacts, { recursive: true });

let w, browser, page, errors;
// Every request the page made that went anywhere but this `awaywork serve` (issue 25: no external
// request ever): checked at the end.
const offsite = [];

before(async () => {
  if (why) return;
  w = await startWorld();
  browser = await launch();
  page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  errors = collectErrors(page);
  page.on("request", (r) => {
    const u = new URL(r.url());
    const ours = u.protocol === "http:" && u.hostname === "127.0.0.1" && u.port === String(w.port);
    if (!ours && u.protocol !== "data:" && u.protocol !== "blob:") offsite.push(r.url());
  });
});

after(async () => {
  if (browser) await browser.close();
  if (w) await w.close();
});

const shot = (name) => page.screenshot({ path: path.join(artifacts, name + ".png"), fullPage: true });
const text = (sel) => page.$eval(sel, (e) => e.textContent);

async function startFromForm(fields) {
  await page.goto(`http://127.0.0.1:${w.port}/#/new`);
  await page.waitForSelector("body[data-rendered=new]");
  // The world has two repositories (demo, and checked with its checks): the form names one.
  await page.$eval("#repo", (e) => { e.value = ""; });
  await page.type("#repo", fields.repo || "demo");
  await page.type("#prompt", fields.prompt);
  if (fields.agent) await page.select("#agent", fields.agent);
  if (fields.profile) await page.select("#profile", fields.profile);
  await page.click("#start");
  await page.waitForFunction(() => /^#\/unit\//.test(location.hash), { timeout: 30000 });
  await page.waitForSelector("body[data-rendered=unit]");
  return page.evaluate(() => location.hash.slice("#/unit/".length));
}

test("the token moves from the fragment to sessionStorage and the address bar drops it", async () => {
  await page.goto(w.url);
  await page.waitForSelector("body[data-rendered=units]");
  assert.equal(await page.evaluate(() => location.hash), "#/");
  assert.equal(await page.evaluate(() => sessionStorage.getItem("awaywork.token")), w.token);
  assert.ok(!(await page.evaluate(() => location.href)).includes(w.token));
  await shot("units-empty-1280");
});

test("a unit started from the form shows its log, diff with counts, verdict and branch", async () => {
  const id = await startFromForm({ prompt: "Fix the typo in greet.sh" });
  await page.waitForSelector("body[data-unit-state=done]", { timeout: 60000 });
  await page.waitForSelector("#diff-files li");
  const files = await page.$$eval("#diff-files li", (lis) => lis.map((li) => li.textContent));
  assert.ok(files.some((f) => f.includes("greet.sh") && f.includes("+1") && f.includes("\u22121")), files.join("|"));
  assert.ok(files.some((f) => f.includes("CHANGES.md")), files.join("|"));
  assert.match(await text("#verdict"), /accepted/);
  assert.match(await text("#published"), new RegExp("awaywork/" + id));
  // A local repository's branch has no page (the server's branch_url is ""): named, not linked.
  assert.equal(await page.$("#published #branch-link"), null);
  await page.waitForSelector("#log[data-ended=true]");
  assert.match(await text("#log"), /scripted agent: task received: Fix the typo/);
  assert.match(await text("#timeline"), /agent/);
  assert.match(await page.$eval("#diff", (e) => e.textContent), /\+.*Hello,/);
  await shot("unit-done-1280");
});

test("the live log grows while the agent writes, and ends with the unit", async () => {
  const id = await startFromForm({ prompt: "write slowly", agent: "slow" });
  await page.waitForFunction(() => document.querySelector("#log").textContent.includes("slow agent line 3"), { timeout: 30000 });
  const early = (await text("#log")).length;
  assert.ok(!(await text("#log")).includes("slow agent line 40"), "the log is shown before the unit ends");
  await page.waitForFunction(() => document.querySelector("#log").textContent.includes("slow agent line 12"), { timeout: 30000 });
  assert.ok((await text("#log")).length > early);
  await shot("unit-live-log-1280");
  await page.waitForSelector("body[data-unit-state=done]", { timeout: 60000 });
  await page.waitForSelector("#log[data-ended=true]");
  assert.match(await text("#log"), /slow agent line 50/);
  assert.equal((await api(w, "GET", "/units/" + id)).body.state, "done");
});

test("cancelling a long unit ends it interrupted", async () => {
  await startFromForm({ prompt: "a long one", agent: "slow" });
  await page.waitForFunction(() => document.querySelector("#log").textContent.includes("slow agent line 2"), { timeout: 30000 });
  await page.waitForSelector("#cancel");
  await page.click("#cancel");
  await page.waitForSelector("body[data-unit-state=interrupted]", { timeout: 30000 });
  await page.waitForSelector("#log[data-ended=true]");
  assert.ok(!(await text("#log")).includes("slow agent line 50"));
  await shot("unit-interrupted-1280");
});

// ── watching a unit run, and acting on it (issue 25: a place to watch work happen) ──

// The lines of a phase's section: [number shown, text].
const sectionLines = (phase) => page.$$eval(`#log details[data-phase="${phase}"] .ln`, (ls) =>
  ls.map((l) => [l.dataset.n.trim(), l.textContent]));
const clockSeconds = (t) => t.split(":").reduce((a, p) => a * 60 + Number(p), 0);

let watched; // the unit of the next tests: the slow agent on `checked` (checks: one passes, one fails)

test("while a unit runs: its phase with a running clock, the log in numbered sections, no verdict yet", async () => {
  watched = await submitted({ repo: "checked", prompt: "watch it run", agent: "slow" });
  await page.waitForSelector("#phase-now[data-phase=agent] #phase-clock", { timeout: 30000 });
  assert.match(await text("#phase-now"), /Running agent .*\/slow for \d+:\d\d/);
  const first = await text("#phase-clock");
  await new Promise((done) => setTimeout(done, 2200));
  const second = await text("#phase-clock");
  assert.match(second, /^\d+:\d\d$/);
  assert.ok(clockSeconds(second) > clockSeconds(first), `the clock ticks: ${first}, then ${second}`);
  // From the phase's recorded start, not from when the page opened.
  const u = (await api(w, "GET", "/units/" + watched)).body;
  assert.equal(u.current_phase.name, "agent");
  const since = (Date.now() - Date.parse(u.current_phase.started_at)) / 1000;
  assert.ok(Math.abs(clockSeconds(await text("#phase-clock")) - since) < 3, `${await text("#phase-clock")} vs ${since} s`);
  assert.match(await text("#timeline [data-running=true]"), /agent.*running/);
  assert.match(await text("#verdict"), /No verdict yet/);
  // The running phase's section: open, its title its command, a clock, lines numbered from its
  // heading (line 1); the terminal escape line 2, "slow agent line 3" line 5.
  await page.waitForFunction(() => document.querySelector("#log").textContent.includes("slow agent line 3\n"), { timeout: 30000 });
  await page.waitForSelector('#log details[data-phase=agent][data-state=running][open] .clock');
  assert.match(await text("#log details[data-phase=agent] > summary"), /^agent: .*\/slow running · \d+:\d\d raw$/);
  const lines = await sectionLines("agent");
  assert.equal(lines[0][0], "1");
  assert.match(lines[0][1], /^── agent: .*\/slow ──\n$/);
  assert.deepEqual(lines.find(([, t]) => t === "slow agent line 3\n"), ["5", "slow agent line 3\n"]);
  assert.ok(!(await text("#log")).includes("slow agent line 50"), "shown while the unit runs");
  // Timestamps: off at first; the toggle shows each line's time of day (from the index).
  assert.equal(await page.$eval("#log", (e) => e.classList.contains("show-times")), false);
  await page.focus("#log-times");
  await page.keyboard.press("Space");
  assert.equal(await page.$eval("#log", (e) => e.classList.contains("show-times")), true);
  await page.waitForSelector('#log details[data-phase=agent] .ln[data-t]', { timeout: 10000 });
  const times = await page.$$eval("#log .ln[data-t]", (ls) => ls.map((l) => l.dataset.t));
  assert.ok(times.every((t) => /^\d\d:\d\d:\d\d $/.test(t)), times.join("|"));
  // The agent's steps while it runs (issue 25: they came only when its phase ended): each line
  // it printed a step, asked again every 2 s, each with its time; a click on the time shows the
  // step's line in the log.
  const stepOf = (want) => [...document.querySelectorAll("#steps li")]
    .find((l) => l.querySelector(".step-head").textContent === want) || null;
  await page.waitForFunction(stepOf, { timeout: 15000 }, "Saysslow agent line 3");
  assert.equal(await page.$eval("body", (b) => b.dataset.unitState), "running");
  const count = await page.$$eval("#steps li", (ls) => ls.length);
  await page.waitForFunction((n) => document.querySelectorAll("#steps li").length > n, { timeout: 15000 }, count);
  const three = await page.waitForFunction(stepOf, {}, "Saysslow agent line 3");
  const time = await three.$eval("button.step-at", (b) => b.textContent);
  assert.match(time, /^\d\d:\d\d:\d\d$/);
  await (await three.$("button.step-at")).click();
  await page.waitForSelector("#log .ln.jumped");
  assert.deepEqual(await page.$$eval("#log .ln.jumped", (ls) => ls.map((l) => l.textContent)), ["slow agent line 3\n"]);
  assert.equal(await page.$eval("#log .ln.jumped", (l) => l.dataset.n.trim()), "5");
  await shot("unit-running-sections-1280");
});

test("when it ended: a section per phase, each check named by its command, and they fold", async () => {
  await page.waitForSelector("body[data-unit-state=failed]", { timeout: 60000 });
  await page.waitForSelector("#log[data-ended=true]");
  await page.waitForSelector('#log details[data-phase="check 2"][data-state=failed]', { timeout: 10000 });
  const phases = await page.$$eval("#log details.log-section", (ds) => ds.map((d) => d.dataset.phase));
  assert.deepEqual(phases, ["agent", "check 1", "check 2"]);
  assert.match(await text('#log details[data-phase="check 1"] > summary'), /^check 1: sh -c echo check one passes exit 0 · /);
  assert.match(await text('#log details[data-phase="check 2"] > summary'), /^check 2: sh tests\/test_greet\.sh exit 1 · /);
  assert.deepEqual(await sectionLines("check 1"), [["1", "── check 1: sh -c echo check one passes ──\n"], ["2", "check one passes\n"]]);
  assert.match(await text("#timeline"), /check 2\s*sh tests\/test_greet\.sh/);
  assert.equal(await page.$("#phase-now:not([hidden])"), null, "no running phase once it ended");
  assert.equal(await page.$("#log .clock"), null, "no clock left running");
  // The sections fold with the keyboard (a <details>' summary takes Enter).
  await page.focus('#log details[data-phase=agent] > summary');
  await page.keyboard.press("Enter");
  assert.equal(await page.$eval("#log details[data-phase=agent]", (d) => d.open), false);
  await page.keyboard.press("Enter");
  assert.equal(await page.$eval("#log details[data-phase=agent]", (d) => d.open), true);
  // Each section's raw bytes as a file: from its heading to the next phase's, not folded by the
  // click (issue 25: each phase's section with a raw download).
  const id = await page.evaluate(() => location.hash.slice("#/unit/".length));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "aw-download-"));
  try {
    await browser.defaultBrowserContext().setDownloadBehavior({ policy: "allow", downloadPath: dir });
    await page.click('#log details[data-phase="check 1"] .sec-raw');
    const file = path.join(dir, `awaywork-${id}-2-check_1.log`);
    for (const until = Date.now() + 10000; !fs.existsSync(file);) {
      assert.ok(Date.now() < until, `saved: ${fs.readdirSync(dir).join(", ") || "nothing"}`);
      await new Promise((done) => setTimeout(done, 100));
    }
    await page.waitForFunction(() => document.querySelector('#log details[data-phase="check 1"] .sec-raw').dataset.bytes);
    const saved = fs.readFileSync(file, "utf8");
    assert.ok(saved.startsWith("\u2500\u2500 check 1: sh -c echo check one passes \u2500\u2500\ncheck one passes\n"), JSON.stringify(saved));
    assert.ok(!saved.includes("check 2") && !saved.includes("agent"), JSON.stringify(saved));
    assert.equal(await page.$eval('#log details[data-phase="check 1"]', (d) => d.open), true, "the click did not fold it");
  } finally {
    await browser.defaultBrowserContext().setDownloadBehavior({ policy: "default" });
    fs.rmSync(dir, { recursive: true, force: true });
  }
  // The times of an ended unit's lines are all known.
  const untimed = await page.$$eval("#log .ln:not([data-t])", (ls) => ls.length);
  assert.equal(untimed, 0);
  await page.setViewport({ width: 800, height: 900 });
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  await shot("unit-sections-800");
  await page.setViewport({ width: 1280, height: 900 });
  assert.ok(width <= 800, `the unit page with sections is ${width} px wide at 800`);
});

test("search highlights plain-text matches, steps through them, and reads no pattern", async () => {
  const before = await text("#log");
  const search = async (q) => {
    await page.$eval("#log-search", (e) => {
      e.value = "";
      e.dispatchEvent(new Event("input", { bubbles: true }));
    });
    await page.type("#log-search", q);
    await new Promise((done) => setTimeout(done, 400)); // past the input's 150 ms pause
    return page.$$eval("#log mark.hit", (ms) => ms.map((m) => m.textContent));
  };
  // "slow agent line 1" and 10 to 19, whatever the case.
  const hits = await search("SLOW AGENT LINE 1");
  assert.equal(hits.length, 11, hits.join("|"));
  assert.ok(hits.every((h) => h === "slow agent line 1"));
  assert.equal(await text("#log-search-count"), "1 of 11 matches");
  await page.keyboard.press("Enter");
  assert.equal(await text("#log-search-count"), "2 of 11 matches");
  assert.equal(await page.$eval("#log mark.current", (m) => m.parentNode.textContent), "slow agent line 10\n");
  await page.keyboard.down("Shift");
  await page.keyboard.press("Enter");
  await page.keyboard.up("Shift");
  assert.equal(await text("#log-search-count"), "1 of 11 matches");
  await page.click("#log-search-prev");
  assert.equal(await text("#log-search-count"), "11 of 11 matches");
  // Not a regular expression: these find only themselves, and break nothing.
  for (const q of [".*", "(.*)", "[a-z]+", "\\"]) assert.deepEqual(await search(q), [], q);
  assert.equal(await text("#log-search-count"), "no match");
  // The markup the agent printed is found as text and stays text.
  assert.deepEqual(await search("<img src"), ["<img src"]);
  assert.equal(await page.$("#log img, #injected"), null);
  await shot("unit-search-1280");
  await search("");
  assert.equal(await page.$$eval("#log mark", (ms) => ms.length), 0);
  assert.equal(await text("#log"), before, "the log's text is as it was");
});

test("re-run from the page makes a new unit with replay_of; cancel stops it, from the keyboard", async () => {
  await page.waitForSelector("#rerun");
  await page.focus("#rerun");
  await page.keyboard.press("Enter");
  await page.waitForFunction((old) => /^#\/unit\//.test(location.hash) && location.hash !== "#/unit/" + old, { timeout: 30000 }, watched);
  const id = await page.evaluate(() => location.hash.slice("#/unit/".length));
  await page.waitForFunction((id) => document.querySelector("h1")?.textContent === id, {}, id);
  const u = (await api(w, "GET", "/units/" + id)).body;
  assert.equal(u.replay_of, watched);
  assert.equal(u.prompt, "watch it run");
  assert.equal(u.repo, "checked");
  await page.waitForFunction((old) => document.querySelector('[data-fact="re-run of"]')?.textContent === old, {}, watched);
  await page.waitForSelector("#cancel", { timeout: 30000 });
  await page.waitForFunction(() => document.querySelector("#log").textContent.includes("slow agent line 2"), { timeout: 30000 });
  await page.focus("#cancel");
  await page.keyboard.press("Enter");
  await page.waitForSelector("body[data-unit-state=interrupted]", { timeout: 30000 });
  await page.waitForSelector("#log[data-ended=true]");
  assert.ok(!(await text("#log")).includes("slow agent line 50"));
  assert.equal((await api(w, "GET", "/units/" + id)).body.state, "interrupted");
  assert.match(await text("#verdict"), /No verdict: the unit ended before the output check ran/);
  assert.match(await text('#log details[data-phase=agent] > summary'), /agent: .*\/slow/);
  await page.waitForSelector("#rerun"); // an ended unit can be run again
  await shot("unit-rerun-cancelled-1280");
});

test("terminal escapes and markup in the log are shown inert", async () => {
  // The slow agent printed ESC[31mred ESC[0m <img src=x id=injected>.
  assert.match(await text("#log"), /\u241b\[31mred\u241b\[0m <img src=x id=injected>/);
  assert.equal(await page.$("#injected"), null);
  // The only elements in the log are the page's own: sections, their titles, lines, matches and
  // each section's raw download button.
  const tags = await page.$$eval("#log *", (es) => [...new Set(es.map((e) => e.tagName))]);
  assert.ok(tags.every((t) => ["DETAILS", "SUMMARY", "DIV", "SPAN", "MARK", "BUTTON"].includes(t)), tags.join(","));
});

test("the doctor page lists each check with a mark and its fix", async () => {
  await page.goto(`http://127.0.0.1:${w.port}/#/doctor`);
  await page.waitForSelector("body[data-rendered=doctor]", { timeout: 60000 });
  const items = await page.$$eval("#checks li", (lis) => lis.map((li) => li.textContent));
  assert.ok(items.length > 0);
  assert.ok(items.every((t) => t.startsWith("\u2714") || t.startsWith("\u2716")), items.join("|"));
  const failed = await page.$$eval("#checks li[data-ok=false]", (lis) => lis.map((li) => li.textContent));
  assert.ok(failed.every((t) => t.includes("fix:")), failed.join("|"));
  await shot("doctor-1280");
});

test("a unit with a profile secret: no page holds the secret's value", async () => {
  const id = await startFromForm({ prompt: "print the token", agent: "leaky", profile: "web" });
  await page.waitForSelector("body[data-unit-state=done]", { timeout: 60000 });
  await page.waitForSelector("#log[data-ended=true]");
  assert.match(await text("#log"), /the token is/);
  for (const hash of ["#/unit/" + id, "#/", "#/doctor"]) {
    await page.goto(`http://127.0.0.1:${w.port}/${hash}`);
    await page.waitForSelector("body[data-rendered]");
    await new Promise((r) => setTimeout(r, 500));
    assert.ok(!(await page.content()).includes(w.secret), hash);
  }
});

test("a refused unit shows every refusal of its verdict, and no secret", async () => {
  await startFromForm({ prompt: "spill the token", agent: "spill", profile: "web" });
  await page.waitForSelector("body[data-unit-state=refused]", { timeout: 60000 });
  assert.match(await text("#verdict"), /refused/);
  const refusals = await page.$$eval("#refusals li", (lis) => lis.map((li) => li.textContent));
  assert.ok(refusals.length > 0);
  assert.ok(refusals.some((r) => r.includes("config.txt")), refusals.join("|"));
  assert.ok(!(await page.content()).includes(w.secret));
  await shot("unit-refused-1280");
});

test("the list shows state badges, repo, agent, isolation, age and duration", async () => {
  await page.goto(`http://127.0.0.1:${w.port}/#/`);
  await page.waitForSelector("#units tbody tr[data-state=interrupted]");
  const row = await page.$eval("#units tbody tr[data-state=done]", (tr) => tr.textContent);
  assert.match(row, /done/);
  assert.match(row, /demo/);
  assert.match(row, /none/);
  assert.match(row, /ago/);
  await shot("units-1280");
  await page.goto(`http://127.0.0.1:${w.port}/#/?state=interrupted`);
  await page.waitForSelector("body[data-rendered=units]");
  await page.waitForFunction(() => [...document.querySelectorAll("#units tbody tr")].every((tr) => tr.dataset.state === "interrupted"));
});

test("the list filters by issue number", async () => {
  await page.goto(`http://127.0.0.1:${w.port}/#/?issue=99`);
  await page.waitForSelector("body[data-rendered=units]");
  assert.equal(await page.$eval("#filter-issue", (e) => e.value), "99");
  await page.waitForFunction(() => /No units/.test(document.querySelector("#units tbody").textContent));
});

// Issue 25, a place to watch work happen: the board. A unit's card is in the column of its state
// and moves as the state changes; view and filters live in the URL.
test("the board: a unit's card moves from running to needs review, filters kept in the URL", async () => {
  await page.goto(`http://127.0.0.1:${w.port}/#/?view=board&repo=demo`);
  await page.waitForSelector("body[data-rendered=units] #board section[data-column=refused]");
  assert.equal(await page.$eval("#view-board", (b) => b.getAttribute("aria-pressed")), "true");
  assert.equal(await page.$eval("#filter-repo", (e) => e.value), "demo");
  const columns = await page.$$eval("#board section", (ss) => ss.map((s) => s.dataset.column));
  assert.deepEqual(columns, ["queued", "running", "review", "done", "refused"]);
  // The refused unit of an earlier test is in Refused; Refused holds refused units only.
  await page.waitForSelector("#board [data-column=refused] .card");
  assert.ok((await page.$$eval("#board [data-column=refused] .card", (cs) => cs.map((c) => c.dataset.state)))
    .every((s) => s === "refused"));
  // No watcher runs in this world: Queued says so.
  assert.match(await text("#board [data-column=queued]"), /awaywork watch is not running/);
  const r = await api(w, "POST", "/units", { repo: "demo", prompt: "move me across the board", agent: "slow" });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const card = (column) => `#board [data-column=${column}] .card[data-id="${r.body.id}"]`;
  await page.waitForSelector(card("running"), { timeout: 30000 });
  assert.match(await text(card("running")), /move me across the board/);
  await shot("board-running-1280");
  // The slow agent writes SLOW.md; demo has no checks: accepted, so it waits for review.
  await page.waitForSelector(card("review"), { timeout: 60000 });
  assert.equal(await page.$(card("running")), null, "the card left Running");
  assert.equal((await api(w, "GET", "/units/" + r.body.id)).body.verdict, "accepted");
  // A unit that ended without a change to review is in Done (the interrupted ones of earlier tests).
  const done = await page.$$eval("#board [data-column=done] .card", (cs) => cs.map((c) => c.dataset.state));
  assert.ok(done.includes("interrupted") && !done.includes("refused") && !done.includes("running"), done.join(","));
  // A reload keeps the board and its filter; the keyboard switches back to the table.
  await page.reload();
  await page.waitForSelector(card("review"));
  assert.equal(await page.$eval("#filter-repo", (e) => e.value), "demo");
  await page.setViewport({ width: 800, height: 900 });
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  await shot("board-800");
  await page.setViewport({ width: 1280, height: 900 });
  assert.ok(width <= 800, `the board is ${width} px wide at 800`);
  await page.focus("#view-table");
  await page.keyboard.press("Enter");
  await page.waitForSelector("#units tbody tr[data-id]");
  assert.equal(await page.evaluate(() => location.hash), "#/?repo=demo");
  assert.equal(await page.$("#board"), null);
});

test("an issue in the form replaces repository and task, and a refused one shows why", async () => {
  await page.goto(`http://127.0.0.1:${w.port}/#/new`);
  await page.waitForSelector("body[data-rendered=new]");
  const before = errors.length;
  await page.type("#issue", "nope#1");
  assert.equal(await page.$eval("#repo", (e) => e.disabled), true);
  assert.equal(await page.$eval("#prompt", (e) => e.required), false);
  await page.click("#start");
  await page.waitForFunction(() => /nope/.test(document.getElementById("status").textContent), { timeout: 30000 });
  assert.match(await page.evaluate(() => location.hash), /^#\/new/);
  await shot("new-issue-refused");
  // Chromium logs the refused POST's 400 itself; that one line is expected, nothing else is.
  const added = errors.splice(before);
  assert.deepEqual(added, ["console: Failed to load resource: the server responded with a status of 400 (Bad Request)"]);
});

test("readable at 800 px: nothing overflows sideways", async () => {
  // A task holding a 300-character URL (issue 25: the list was 1086 px wide at 800 px).
  const url = "https://example.invalid/" + "a1b2c3d4e5".repeat(27) + "xxxxxx";
  assert.equal(url.length, 300);
  const r = await api(w, "POST", "/units", { repo: "demo", prompt: "see " + url, agent: "quoted" });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  await page.setViewport({ width: 800, height: 900 });
  for (const [hash, ready, name] of [["#/", "units", "units-800"], ["#/new", "new", "new-800"]]) {
    await page.goto(`http://127.0.0.1:${w.port}/${hash}`);
    await page.waitForSelector(`body[data-rendered=${ready}]`);
    if (ready === "units")
      await page.waitForFunction((u) => document.querySelector("#units tbody").textContent.includes(u), {},
        url.slice(0, 100));
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    await shot(name);
    assert.ok(width <= 800, `${hash} is ${width} px wide`);
  }
  await page.goto(`http://127.0.0.1:${w.port}/#/unit/${r.body.id}`);
  await page.waitForSelector("body[data-rendered=unit]");
  await page.waitForFunction((u) => document.querySelector("[data-fact=task]")?.textContent.includes(u), {}, url);
  const unitWidth = await page.evaluate(() => document.documentElement.scrollWidth);
  await shot("unit-800");
  assert.ok(unitWidth <= 800, `the unit page is ${unitWidth} px wide`);
  await page.setViewport({ width: 1280, height: 900 });
});

test("keyboard: Tab reaches the navigation and Enter follows it", async () => {
  await page.goto(`http://127.0.0.1:${w.port}/#/`);
  await page.reload(); // focus starts at the top of a fresh document
  await page.waitForSelector("body[data-rendered=units]");
  let reached = false;
  for (let i = 0; i < 10 && !reached; i++) {
    await page.keyboard.press("Tab");
    reached = await page.evaluate(() => document.activeElement && document.activeElement.id === "nav-doctor");
  }
  assert.ok(reached, "Tab reaches Doctor");
  await page.keyboard.press("Enter");
  await page.waitForSelector("body[data-rendered=doctor]", { timeout: 60000 });
});

// Trojan Source (issue 25): bidi controls and other invisible characters the agent wrote are
// shown as <U+XXXX> wherever the page shows them, and the diff says it holds hidden bidi text.
// The ZWJ of an emoji sequence is the one such character left as it is.
const RAW_HIDDEN = /[\u061C\u00AD\u200B\u200C\u200E\u200F\u202A-\u202E\u2066-\u2069\uFEFF\u{E0000}-\u{E007F}]/u;

async function noRawHiddenText(where) {
  const texts = await page.evaluate(() => [document.body.textContent,
    ...[...document.querySelectorAll("[title]")].map((e) => e.title)]);
  for (const t of texts) assert.ok(!RAW_HIDDEN.test(t), `${where}: ${JSON.stringify(t.slice(0, 300))}`);
}

async function submitted(fields) {
  const r = await api(w, "POST", "/units", { repo: "demo", ...fields });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  await page.goto(`http://127.0.0.1:${w.port}/#/unit/${r.body.id}`);
  await page.waitForFunction((id) => document.querySelector("h1")?.textContent === id, {}, r.body.id);
  return r.body.id;
}

test("bidi and invisible characters are shown in the diff, log and task, and the diff is flagged", async () => {
  await submitted({ prompt: "review the admin\u202E check\u2066 please", agent: "trojan" });
  await page.waitForSelector("#diff-files li", { timeout: 60000 });
  await page.waitForSelector("#log[data-ended=true]");
  const diff = await text("#diff");
  assert.ok(diff.includes('"user<U+202E> <U+2066>// admin only<U+2069> <U+2066>"'), diff);
  assert.match(await text("#diff-hidden"), /hidden bidirectional Unicode text/);
  const flagged = await page.$$eval("#diff-files li[data-hidden=bidi]", (lis) => lis.map((li) => li.textContent));
  assert.ok(flagged.some((f) => f.includes("auth.c") && f.includes("hidden bidirectional text")), flagged.join("|"));
  assert.ok((await page.$$("#diff .hidden-text .hidden-char")).length >= 4);
  // Inside the syntax colours too: the C string holding the controls is coloured, and they show.
  await page.waitForSelector("#diff[data-highlighted=true]");
  assert.ok((await page.$$('#diff .hidden-text [class*="hljs-"] .hidden-char')).length >= 4);
  const log = await text("#log");
  assert.ok(log.includes('"user<U+202E> <U+2066>// admin only<U+2069> <U+2066>"'), log);
  assert.ok(log.includes("tags: <U+E0041><U+E0042>"), log);
  assert.ok(log.includes("coder: \u{1F469}\u200D\u{1F4BB}"), "a ZWJ inside an emoji stays");
  assert.match(await text("[data-fact=task]"), /admin<U\+202E> check<U\+2066> please/);
  await noRawHiddenText("the unit page");
  await shot("unit-trojan-source-1280");
  await page.goto(`http://127.0.0.1:${w.port}/#/`);
  await page.waitForFunction(() => document.querySelector("#units tbody").textContent.includes("admin<U+202E>"));
  await noRawHiddenText("the list");
});

test("a refusal quoting a bidi file name shows the control", async () => {
  await submitted({ prompt: "name a file", agent: "bidiname" });
  await page.waitForSelector("body[data-unit-state=refused]", { timeout: 60000 });
  const refusals = await page.$$eval("#refusals li", (lis) => lis.map((li) => li.textContent));
  assert.ok(refusals.some((r) => r.includes("notes<U+202E>txt.sh")), refusals.join("|"));
  await noRawHiddenText("the refused unit");
});

// git C-quotes a non-ASCII name (issue 25): the file list names café.txt with its own counts, b.txt
// keeps only its line, and the diff's header lines show the name decoded.
test("a file name git quotes is listed decoded, with its own counts", async () => {
  await submitted({ prompt: "write a cafe", agent: "quoted" });
  await page.waitForSelector("#diff-files li", { timeout: 60000 });
  const files = await page.$$eval("#diff-files li", (lis) => lis.map((li) => li.textContent));
  assert.deepEqual(files, ["+1 \u22120 b.txt", "+2 \u22120 caf\u00e9.txt"]);
  const diff = await text("#diff");
  assert.ok(diff.includes("diff --git a/caf\u00e9.txt b/caf\u00e9.txt\n"), diff);
  assert.ok(diff.includes("+++ b/caf\u00e9.txt\n"), diff);
  assert.ok(!diff.includes("\\303"), diff);
  const [name, tab] = await page.evaluate(() => [
    diffGitName('diff --git a/old "b/x\\\"y\\\\z\\t\\n\\342\\200\\256"'),
    headerUnquoted('rename to "n\\tm"')]);
  assert.equal(name, 'x"y\\z\t\n\u202e');
  assert.equal(tab, "rename to n\u2409m");
});

// Issue 25, the agent's work as steps: the events awaywork parsed from a Claude Code stand-in's
// stream-json, one step each, in the transcript's order, beside the log.
let stepsUnit; // the steps agent's unit: it edits greet.sh and CHANGES.md

test("the agent's steps: the timeline matches the transcript's events", async () => {
  const id = stepsUnit = await submitted({ prompt: "fix it step by step", agent: "steps" });
  await page.waitForSelector("body[data-unit-state=done]", { timeout: 60000 });
  // The steps asked once it ended (those shown while it ran may lack the last ones).
  await page.waitForSelector("#steps-box[data-loaded=done] #steps li", { timeout: 10000 });
  const r = await api(w, "GET", `/units/${id}/events`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.recorded, true);
  const events = r.body.events;
  assert.deepEqual(events.map((e) => e.kind), ["message", "tool_call", "tool_result", "tool_call", "tool_result",
    "tool_call", "tool_result", "message", "usage"]);
  const steps = await page.$$eval("#steps li", (ls) => ls.map((l) => ({ kind: l.dataset.kind, step: l.dataset.step,
    file: l.dataset.file || "", tool: l.dataset.tool || "", text: l.querySelector(".step-head").textContent })));
  assert.deepEqual(steps.map((s) => s.kind), events.map((e) => e.kind));
  assert.deepEqual(steps.map((s) => s.tool), events.map((e) => e.tool || ""));
  assert.deepEqual(steps.map((s) => s.step), ["message", "read", "tool_result", "command", "tool_result", "edit",
    "tool_result", "message", "usage"]);
  assert.equal(steps[0].text, "SaysI will fix the greeting.");
  assert.equal(steps[1].file, "greet.sh");
  assert.equal(steps[5].file, "CHANGES.md");
  assert.equal(steps[3].text, "Run$ sed -i s/Helo,/Hello,/ greet.sh");
  assert.match(steps[2].text, /echo Helo, world/);
  // The cost the CLI printed (the result line's total_cost_usd), with the tokens.
  assert.equal(events[8].cost_usd, 0.0123);
  assert.equal(steps[8].text, "Tokens1500 in, 450 out \u00b7 $0.0123");
  assert.equal(await text("#steps-summary > p"),
    "2 messages \u00b7 3 tool calls (1 read, 1 edit, 1 command) \u00b7 1500 input and 450 output tokens \u00b7 $0.0123");
  assert.equal(await text("#steps-read"), "greet.sh");
  assert.equal(await text("#steps-edited"), "CHANGES.md");
  // The agent's words are text: its markup stays text, its bidi control is shown.
  assert.equal(steps[7].text, "SaysDone <img src=x id=stepinjected> user<U+202E> ok");
  assert.equal(await page.$("#stepinjected"), null);
  await noRawHiddenText("the steps");
  // The files the steps edited are the diff's.
  await page.waitForSelector("#diff-files li");
  const files = await page.$$eval("#diff-files li", (lis) => lis.map((li) => li.textContent));
  assert.ok(files.some((f) => f.endsWith("greet.sh")) && files.some((f) => f.endsWith("CHANGES.md")), files.join("|"));
  await shot("unit-steps-1280");
  await page.setViewport({ width: 800, height: 900 });
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  await shot("unit-steps-800");
  await page.setViewport({ width: 1280, height: 900 });
  assert.ok(width <= 800, `the unit page with its steps is ${width} px wide at 800`);
});

// Issue 25: the diff per file, folding, with a file list, syntax colours from highlight.js (served
// by awaywork serve from Debian's package: no request leaves the host), unified or side by side.
test("the diff: a section per file that folds, with colours, unified or side by side", async () => {
  await page.goto(`http://127.0.0.1:${w.port}/#/unit/${stepsUnit}`);
  const sh = 'details.diff-file[data-file="greet.sh"]', md = 'details.diff-file[data-file="CHANGES.md"]';
  await page.waitForSelector(`#diff[data-highlighted=true][data-view=unified] ${sh}[open] pre.diff .dl`, { timeout: 30000 });
  const colours = (sel) => page.$$eval(`${sel} [class*="hljs-"]`, (ss) => [...new Set(ss.map((s) => s.className))]);
  assert.ok((await colours(sh)).includes("hljs-string"), (await colours(sh)).join(","));
  assert.ok((await colours(md)).includes("hljs-section"), (await colours(md)).join(","));
  // The colours change no byte: the files' text is the patch.
  const patch = await (await fetch(`http://127.0.0.1:${w.port}/api/v1/units/${stepsUnit}/patch`,
    { headers: { Authorization: "Bearer " + w.token } })).text();
  assert.equal(await page.$$eval("#diff pre.diff", (ps) => ps.map((p) => p.textContent).join("")), patch);
  // Old and new line numbers beside each line, outside its text.
  assert.deepEqual(await page.$eval(`${sh} .dl.add`, (l) => [l.dataset.o.trim(), l.dataset.n.trim(), l.textContent]),
    ["", "4", '+echo "Hello, $name!"\n']);
  // A file folds from the keyboard; Collapse all and Expand all; the list opens a file and focuses it.
  await page.focus(`${sh} > summary`);
  await page.keyboard.press("Enter");
  assert.equal(await page.$eval(sh, (d) => d.open), false);
  await page.keyboard.press("Enter");
  assert.equal(await page.$eval(sh, (d) => d.open), true);
  await page.click("#diff-collapse");
  assert.deepEqual(await page.$$eval("#diff details.diff-file", (ds) => ds.map((d) => d.open)), [false, false]);
  const link = (await page.$$("#diff-files button.file-link"))[0];
  assert.equal(await link.evaluate((b) => b.textContent), "CHANGES.md");
  await link.focus();
  await page.keyboard.press("Enter");
  assert.equal(await page.$eval(md, (d) => d.open), true);
  assert.equal(await page.evaluate(() => document.activeElement.closest("details")?.dataset.file), "CHANGES.md");
  await page.click("#diff-expand");
  assert.deepEqual(await page.$$eval("#diff details.diff-file", (ds) => ds.map((d) => d.open)), [true, true]);
  // Side by side: the removed line faces the added one; the choice stays across a reload.
  await page.click("#diff-view-split");
  await page.waitForSelector(`${sh} table.split`);
  const rows = await page.$$eval(`${sh} table.split tr`, (trs) =>
    trs.map((tr) => [...tr.querySelectorAll("td.code")].map((td) => td.className + "|" + td.textContent)));
  assert.ok(rows.some((r) => r[0] === 'code del|echo "Helo, $name!"' && r[1] === 'code add|echo "Hello, $name!"'), JSON.stringify(rows));
  assert.ok((await colours(`${sh} table.split`)).includes("hljs-string"));
  await page.reload();
  await page.waitForSelector(`#diff[data-view=split] ${sh} table.split`, { timeout: 30000 });
  assert.equal(await page.$eval("#diff-view-split", (b) => b.getAttribute("aria-pressed")), "true");
  await shot("unit-diff-split-1280");
  await page.setViewport({ width: 800, height: 900 });
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  await shot("unit-diff-split-800");
  await page.setViewport({ width: 1280, height: 900 });
  assert.ok(width <= 800, `the side-by-side diff is ${width} px wide at 800`);
  await page.focus("#diff-view-unified");
  await page.keyboard.press("Enter");
  await page.waitForSelector(`#diff[data-view=unified] ${sh} pre.diff .dl`);
  assert.equal(await page.$(`${sh} table`), null);
});

test("a unit whose agent printed nothing says so where the steps would be", async () => {
  const r = await api(w, "GET", "/units?repo=demo&state=refused&limit=1"); // bidiname: it printed nothing
  const id = r.body.units[0].id;
  assert.deepEqual((await api(w, "GET", `/units/${id}/events`)).body, { recorded: false, events: [] });
  await page.goto(`http://127.0.0.1:${w.port}/#/unit/${id}`);
  await page.waitForSelector("#steps-none");
  assert.match(await text("#steps-none"), /No steps/);
});

// Issue 25 item 4: the transcript's redactor held a line's last bytes until more output came; the
// page shows a quiet phase's unfinished line during the pause.
test("the log shows an unfinished line while the phase is quiet", async () => {
  await submitted({ prompt: "pause", agent: "pause", profile: "web" });
  await page.waitForFunction(() => document.querySelector("#log").textContent.includes("waiting for a while"),
    { timeout: 30000 });
  assert.ok(!(await text("#log")).includes("waiting for a while done"), "shown before the phase printed more");
  await page.waitForSelector("#log[data-ended=true]", { timeout: 60000 });
  const log = await text("#log");
  assert.ok(log.includes("waiting for a while done\n"), log);
  assert.ok(log.includes("secret: [REDACTED] end\n"), log);
  assert.ok(!log.includes(w.secret.slice(0, 7)) && !log.includes(w.secret.slice(7)), log);
});

// Issue 25 item 9: a 50 MB log went whole into the page (21-30 s, freezes up to 1.4 s). The page
// shows its last 256 KiB from a line start, older parts on demand (joined to the shown ones without
// a gap or a repeat), and saves the raw file.
test("a 50 MiB log: its tail at once, older parts on demand, search, the raw file, no task of 200 ms", async () => {
  const r = await api(w, "POST", "/units", { repo: "demo", prompt: "a big log", agent: "big" });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const id = r.body.id;
  let u;
  for (const until = Date.now() + 240000; ;) {
    u = (await api(w, "GET", "/units/" + id)).body;
    if (u.state !== "running") break;
    assert.ok(Date.now() < until, "the unit with the big log ends");
    await new Promise((done) => setTimeout(done, 500));
  }
  assert.ok(u.log_bytes > 50e6, `log_bytes ${u.log_bytes}`);
  // Every task longer than 50 ms the page runs, from its first script on.
  const watch = await page.evaluateOnNewDocument(() => {
    window.longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.longTasks.push(Math.round(e.duration));
    }).observe({ type: "longtask" });
    // When the log's last line came onto the page: the steps are asked only after it.
    new MutationObserver((records, self) => {
      for (const r of records)
        for (const n of r.addedNodes)
          if (n.nodeType === 1 && n.classList.contains("ln") && n.textContent === "big log end\n") {
            window.lastLineAt = performance.now();
            self.disconnect();
            return;
          }
    }).observe(document, { childList: true, subtree: true });
  });
  await page.goto(`http://127.0.0.1:${w.port}/#/unit/${id}`);
  await page.reload(); // a new document: the observer is in it from the start
  await page.waitForSelector("#log[data-ended=true]", { timeout: 60000 });
  const lines = () => page.$eval("#log", (e) => {
    const t = [...e.querySelectorAll(".ln")].map((l) => l.textContent).join("");
    const nums = [...t.matchAll(/^line (\d{8}) /gm)].map((m) => Number(m[1]));
    let gaps = 0;
    for (let i = 1; i < nums.length; i++) if (nums[i] !== nums[i - 1] + 1) gaps++;
    return { length: t.length, first: nums[0], last: nums.at(-1), count: nums.length, gaps,
      head: t.slice(0, 5), end: t.includes("big log end\n"), start: Number(e.dataset.start),
      bytes: Number(e.dataset.bytes) };
  });
  const tail = await lines();
  assert.equal(tail.bytes, u.log_bytes);
  assert.ok(tail.start >= u.log_bytes - 256 * 1024 && tail.start < u.log_bytes - 256 * 1024 + 116, String(tail.start));
  assert.ok(tail.length < 270000, `${tail.length} characters on the page`);
  assert.equal(tail.head, "line ", "the tail begins at a line's start");
  assert.ok(tail.end, "the log's end is shown");
  // and in view: the lines out of view have a guessed height (content-visibility), the page scrolls
  // until the bottom stays put.
  await page.waitForFunction(() => {
    const box = document.querySelector("#log"), last = [...box.querySelectorAll(".ln")].at(-1);
    return last.textContent === "big log end\n"
      && Math.abs(last.getBoundingClientRect().bottom - box.getBoundingClientRect().bottom) < 40;
  }, { timeout: 10000 });
  assert.ok(tail.first > 400000, String(tail.first));
  assert.equal(tail.gaps, 0);
  // The agent's steps (a plain command agent: each line one) come after the log's first screen,
  // asked once: before, the page asked for them and laid them out first, and the first screen
  // took 291 ms instead of 178. The server sends the last 2000 and says how many it left out.
  await page.waitForSelector("#steps li", { timeout: 30000 });
  const order = await page.evaluate(() => ({ shown: window.lastLineAt,
    asked: performance.getEntriesByType("resource").filter((e) => new URL(e.name).pathname.endsWith("/events"))
      .map((e) => e.startTime) }));
  assert.equal(order.asked.length, 1, JSON.stringify(order));
  assert.ok(order.shown > 0 && order.asked[0] > order.shown, `steps asked at ${order.asked[0]} ms, the last line shown at ${order.shown} ms`);
  assert.equal(await page.$$eval("#steps li", (ls) => ls.length), 2000);
  // As many as the agent phase keeps (provider/events.h: kEventsMax, and a line saying how many
  // more it dropped), read from the end of events.jsonl.
  const all = (await api(w, "GET", `/units/${id}/events`)).body;
  assert.equal(all.left_out, all.total - 2000);
  assert.equal(await text("#steps-left-out"), `The last 2000 of ${all.total} steps; the log holds them all.`);
  assert.equal(await page.$eval("#steps li:last-child", (l) => l.dataset.kind), all.events.at(-1).kind);
  assert.match(await text("#log-range"), /Showing the last 256 KiB of 50\.\d MiB/);
  await shot("unit-big-log-1280");
  await page.click("#log-older");
  await page.waitForFunction((s) => Number(document.querySelector("#log").dataset.start) < s, {}, tail.start);
  const more = await lines();
  assert.equal(more.gaps, 0, "the older part joins the shown one without a gap or a repeat");
  assert.equal(more.last, tail.last);
  assert.equal(more.head, "line ");
  assert.ok(more.count - tail.count > 2200 && more.count - tail.count < 2290, `${more.count - tail.count} lines more`);
  // A search matching every shown line (some 4500 marks), stepped through.
  await page.$eval("#log-search", (e) => { // the query at once: no search of a part of it
    e.focus();
    e.value = "line 00";
    e.dispatchEvent(new Event("input", { bubbles: true }));
  });
  await page.waitForFunction(() => Number(document.querySelector("#log").dataset.hits) > 4000
    && !document.querySelector("#log").dataset.searching, { timeout: 30000 });
  assert.match(await text("#log-search-count"), /^1 of \d{4} matches in the part shown$/);
  await page.keyboard.press("Enter");
  assert.match(await text("#log-search-count"), /^2 of /);
  const current = await page.$eval("#log mark.current", (m) => {
    const r = m.getBoundingClientRect(), box = m.closest("#log").getBoundingClientRect();
    return { text: m.parentNode.textContent, seen: r.top >= box.top && r.bottom <= box.bottom };
  });
  assert.ok(current.seen && current.text.startsWith("line "), JSON.stringify(current));
  // The raw file, as the browser saves it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "aw-download-"));
  try {
    await browser.defaultBrowserContext().setDownloadBehavior({ policy: "allow", downloadPath: dir });
    await page.click("#log-raw");
    const file = path.join(dir, `awaywork-${id}.log`);
    for (const until = Date.now() + 60000; !(fs.existsSync(file) && fs.statSync(file).size === u.log_bytes);) {
      assert.ok(Date.now() < until, `saved: ${fs.readdirSync(dir).join(", ") || "nothing"}`);
      await new Promise((done) => setTimeout(done, 200));
    }
    const fd = fs.openSync(file, "r");
    const end = Buffer.alloc(200);
    fs.readSync(fd, end, 0, 200, u.log_bytes - 200);
    fs.closeSync(fd);
    assert.ok(end.toString().includes("big log end\n"));
  } finally {
    await browser.defaultBrowserContext().setDownloadBehavior({ policy: "default" });
    fs.rmSync(dir, { recursive: true, force: true });
  }
  // The page answered input throughout: from its first script to here (the tail, an older part,
  // the search, the download) no task the browser ran took 200 ms. Measured by the browser's own
  // long-task observer, not by a clock around the steps. Before: tasks up to 1.4 s (the page made
  // every line at once, and the search marked them in one task).
  const tasks = await page.evaluate(() => window.longTasks);
  await page.removeScriptToEvaluateOnNewDocument(watch.identifier);
  console.log(`a 50 MiB log's page: long tasks ${JSON.stringify(tasks)} ms`);
  assert.ok(Math.max(0, ...tasks) < 200, `long tasks: ${tasks.join(", ")} ms`);
  await page.$eval("#log-search", (e) => {
    e.value = "";
    e.dispatchEvent(new Event("input", { bubbles: true }));
  });
});

test("issue titles and tooltips are shown with their hidden characters", async () => {
  const [link, dd, shown] = await page.evaluate(() => {
    const a = issueLink({ repo: "o/r", number: 7, title: "fix login\u202Egnp.exe", url: "https://example.invalid/7" });
    const d = el("dd", {}, [a, " fix login\u202Egnp.exe\u200B"]);
    return [a.title, d.textContent, inert("a\u2067b\u061Cc\u200Fd\u00ADe\u0085f \u2764\uFE0F")];
  });
  assert.equal(link, "fix login<U+202E>gnp.exe");
  assert.equal(dd, "o/r#7 fix login<U+202E>gnp.exe<U+200B>");
  assert.equal(shown, "a<U+2067>b<U+061C>c<U+200F>d<U+00AD>e<U+0085>f \u2764\uFE0F");
});

// awaywork watch's state as the watcher writes it (watch/status.h: its beat, the issue slots), put
// straight into the state database: [[key, value], ...]; a null value deletes the key.
function putWatchState(rows) {
  execFileSync("python3", ["-c", `
import json, sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], timeout=30)
with db:
    for k, v in json.loads(sys.argv[2]):
        if v is None:
            db.execute("DELETE FROM watch_state WHERE key = ?", (k,))
        else:
            db.execute("INSERT OR REPLACE INTO watch_state(key, value, updated_at) VALUES(?, ?, ?)",
                       (k, json.dumps(v), int(time.time())))
db.close()
`, path.join(w.root, "state", "awaywork.db"), JSON.stringify(rows)]);
}

// This process's start time as /proc gives it (field 22): the beat of a watcher that is alive.
function selfStart() {
  const stat = fs.readFileSync("/proc/self/stat", "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[22 - 3];
}

// Issue 25: `watch`'s status (claims, queue, rate limits) on its own page, and its queue on the board.
test("the watch page: whether it runs, rate limits, claims and the queue in order", async () => {
  await page.goto(`http://127.0.0.1:${w.port}/#/watch`);
  await page.waitForSelector("body[data-rendered=watch] #watch-state");
  assert.equal(await page.$eval("#nav-watch", (a) => a.getAttribute("aria-current")), "page");
  assert.match(await text("#watch-state"), /^Not watching/);
  assert.match(await text("#watch-message"), /has not run with this state folder/);
  const now = Math.floor(Date.now() / 1000);
  const unit = (await api(w, "GET", "/units?repo=demo&limit=1")).body.units[0].id;
  const beat = { host: "watch-host", start: selfStart(), pid: process.pid, started_at: now - 600, beat_at: now - 2,
    stopped_at: 0, stopping: false, repos: [{ repo: "demo", polled_at: now - 30, next_poll: now + 30,
      rate_remaining: 4990, rate_limit: 5000, rate_reset: now + 1800, requests: 12 }] };
  putWatchState([
    ["watcher", beat],
    ["issue/demo/000000000007", { repo: "demo", number: 7, phase: "running", claim_comment: 99, claim_since: now - 60,
      unit_id: unit, attempts: 1, trigger: "labelled awaywork" }],
    ["issue/demo/000000000009", { repo: "demo", number: 9, phase: "queued", queued_at: now - 10, not_before: now + 300,
      requeued: true, attempts: 1, trigger: "retry" }],
    ["issue/demo/000000000008", { repo: "demo", number: 8, phase: "queued", queued_at: now - 20,
      trigger: "comment: fix \u202Etxt.exe please" }],
  ]);
  try {
    await page.waitForSelector("#watch-state[data-watching=true]", { timeout: 10000 });
    assert.match(await text("#watch-state"), /^Watching · watch-host pid \d+ · started 10 min ago · last beat \d+ s ago/);
    assert.equal(await page.$("#watch-message"), null);
    assert.match(await text('#watch-repos tr[data-repo=demo] .rate'), /^4990 of 5000, resets in 30 min$/);
    assert.match(await text("#watch-repos tr[data-repo=demo]"), /demo\d+ s agoin \d+ s12/);
    assert.equal(await page.$eval('#watch-claims tr[data-issue="demo#7"] a', (a) => a.getAttribute("href")), "#/unit/" + unit);
    assert.match(await text('#watch-claims tr[data-issue="demo#7"]'), /running/);
    // The queue in the order watch starts it (queued first, first), the trigger's control shown.
    assert.deepEqual(await page.$$eval("#watch-queue tbody tr", (trs) => trs.map((tr) => tr.dataset.issue)), ["demo#8", "demo#9"]);
    assert.match(await text('#watch-queue tr[data-issue="demo#8"]'), /fix <U\+202E>txt\.exe please/);
    assert.match(await text('#watch-queue tr[data-issue="demo#9"]'), /\(again\).*in 5 min/);
    await noRawHiddenText("the watch page");
    await shot("watch-1280");
    await page.setViewport({ width: 800, height: 900 });
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    await shot("watch-800");
    await page.setViewport({ width: 1280, height: 900 });
    assert.ok(width <= 800, `the watch page is ${width} px wide at 800`);
    // The board's Queued column holds the same issues, in order.
    await page.goto(`http://127.0.0.1:${w.port}/#/?view=board`);
    await page.waitForSelector("#board [data-column=queued] .card");
    assert.deepEqual(await page.$$eval("#board [data-column=queued] .card", (cs) => cs.map((c) => c.dataset.issue)), ["demo#8", "demo#9"]);
    // The watcher stops: the page says so.
    putWatchState([["watcher", { ...beat, stopped_at: now }]]);
    await page.goto(`http://127.0.0.1:${w.port}/#/watch`);
    await page.waitForSelector("#watch-state[data-watching=false]");
    assert.match(await text("#watch-message"), /awaywork watch stopped/);
  } finally {
    putWatchState([["watcher", null], ["issue/demo/000000000007", null], ["issue/demo/000000000008", null],
      ["issue/demo/000000000009", null]]);
  }
});

// Records of one pull request's units, put straight into the record database as `run --pr` and
// watch save them (copies of the unit `from`, with the pull request's fields): no forge needed.
function putPullUnits(from, pr, units) {
  execFileSync("python3", ["-c", `
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1], timeout=30)
(text,) = db.execute("SELECT record FROM units WHERE id = ?", (sys.argv[2],)).fetchone()
with db:
    for u in json.loads(sys.argv[4]):
        r = dict(json.loads(text), runner_pid=0, runner_start="", current_phase=None, ended_at=u["created_at"],
                 state="done", verdict="accepted", pull_request=sys.argv[3], issue=0, issue_url="", notes=[])
        r.update(u)
        db.execute("INSERT OR REPLACE INTO units(id, created_at, state, repo, agent, branch, runner_pid, "
                   "runner_start, record) VALUES(?,?,?,?,?,?,?,?,?)",
                   (r["id"], r["created_at"], r["state"], r["repo"], r["agent"], r["branch"], 0, "", json.dumps(r)))
db.close()
`, path.join(w.root, "state", "awaywork.db"), from, pr, JSON.stringify(units)]);
}

// Issue 26 item 7: the unit that opened a pull request and its follow-up, as one thread on each's
// page: in order, each with state, verdict and commit, linked by the keyboard, readable at 800 px.
test("a pull request's units show as one thread, linked, by keyboard and at 800 px", async () => {
  const from = (await api(w, "GET", "/units?repo=demo&limit=1")).body.units[0].id;
  const pr = "https://github.example/o/r/pull/9";
  putPullUnits(from, pr, [
    { id: "pr-open-unit", created_at: "2026-01-01T10:00:00.000Z", branch: "awaywork/pr-open-unit", commit: "a".repeat(40) },
    { id: "pr-fix-unit", created_at: "2026-01-01T11:00:00.000Z", branch: "awaywork/pr-open-unit", commit: "b".repeat(40),
      issue: 9, issue_url: pr, notes: ["follow-up of pull request #9 (branch awaywork/pr-open-unit)"] },
  ]);
  await page.goto(`http://127.0.0.1:${w.port}/#/unit/pr-fix-unit`);
  await page.reload(); // focus starts at the top of a fresh document
  await page.waitForSelector("#thread li[data-unit=pr-open-unit]");
  const rows = await page.$$eval("#thread li", (lis) => lis.map((li) => [li.dataset.unit, li.dataset.role, li.textContent]));
  assert.deepEqual(rows.map((r) => r.slice(0, 2)), [["pr-open-unit", "opening"], ["pr-fix-unit", "follow-up"]]);
  assert.match(rows[0][2], new RegExp("done accepted at " + "a".repeat(12)));
  assert.match(rows[1][2], new RegExp("done accepted at " + "b".repeat(12)));
  assert.equal(await page.$eval("#thread-pull", (a) => a.getAttribute("href")), pr);
  assert.equal(await text("#thread-pull"), "Pull request #9");
  assert.equal(await text("#thread-title"), "Pull request thread");
  assert.equal(await page.$eval("#thread [aria-current=page]", (e) => e.textContent), "pr-fix-unit");
  // The pull request the unit published to, under Published (issue 25 defect 6), linked.
  assert.equal(await page.$eval("#published #pull-request", (a) => a.getAttribute("href")), pr);
  assert.match(await text("#published"), /^Branch awaywork\/pr-open-unit at b{12}; draft pull request #9$/);
  // and the branch, on the forge the pull request is on (the issue's "links to ... the branch"), as
  // the server gives it (published.branch_url).
  assert.equal(await page.$eval("#published #branch-link", (a) => a.getAttribute("href")),
    "https://github.example/o/r/tree/awaywork/pr-open-unit");
  let reached = false;
  for (let i = 0; i < 60 && !reached; i++) {
    await page.keyboard.press("Tab");
    reached = await page.evaluate(() => document.activeElement?.getAttribute("href") === "#/unit/pr-open-unit");
  }
  assert.ok(reached, "Tab reaches the opening unit's link in the thread");
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => document.querySelector("h1")?.textContent === "pr-open-unit");
  await page.waitForSelector("#thread li[data-unit=pr-fix-unit] a[href='#/unit/pr-fix-unit']");
  await page.setViewport({ width: 800, height: 900 });
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  await shot("unit-thread-800");
  await page.setViewport({ width: 1280, height: 900 });
  assert.ok(width <= 800, `the unit page with a thread is ${width} px wide`);
});

// Issue 29 item 8: a GitLab unit's links follow GitLab's layout: the merge request's and the
// issue's addresses as recorded (nested groups, /-/), and the branch at /-/tree/BRANCH, not
// GitHub's /tree/BRANCH.
test("a GitLab unit links its merge request, its issue and its branch the GitLab way", async () => {
  const from = (await api(w, "GET", "/units?repo=demo&limit=1")).body.units[0].id;
  const mr = "https://gitlab.example/grp/sub/app/-/merge_requests/3";
  const issue = "https://gitlab.example/grp/sub/app/-/issues/42";
  putPullUnits(from, mr, [
    { id: "gl-unit", created_at: "2026-01-02T10:00:00.000Z", branch: "awaywork/gl-unit", commit: "c".repeat(40),
      issue: 42, issue_url: issue, forge_repo: "grp/sub/app" },
  ]);
  await page.goto(`http://127.0.0.1:${w.port}/#/unit/gl-unit`);
  await page.reload();
  await page.waitForSelector("#published #branch-link");
  assert.equal(await page.$eval("#published #branch-link", (a) => a.getAttribute("href")),
    "https://gitlab.example/grp/sub/app/-/tree/awaywork/gl-unit");
  assert.equal(await page.$eval("#published #pull-request", (a) => a.getAttribute("href")), mr);
  assert.ok(await page.$(`a.issue[href="${issue}"]`), "the issue is linked to its GitLab page");
  // Named as GitLab names it (before: "draft pull request", no number): under Published, and the
  // thread's heading and link.
  assert.match(await text("#published"), /^Branch awaywork\/gl-unit at c{12}; draft merge request !3$/);
  await page.waitForSelector("#thread li[data-unit=gl-unit]");
  assert.equal(await text("#thread-title"), "Merge request thread");
  assert.equal(await text("#thread-pull"), "Merge request !3");
  assert.equal(await page.$eval("#thread-pull", (a) => a.getAttribute("href")), mr);
});

test("no request left for anywhere but awaywork serve", () => {
  assert.deepEqual(offsite, []);
});

test("the page logged no console error", () => {
  // On failure: which resource each error came from, and the server's side of it (a live log
  // that failed or ended says so there).
  assert.deepEqual(errors, [], errors.length === 0 ? undefined :
    `the page logged ${errors.length} error(s):\n  ${errors.join("\n  ")}\n` +
    `every error the page logged, with where it came from:\n  ${errors.where.join("\n  ")}\n` +
    `awaywork serve's stderr:\n${serverLog(w)}`);
});
