// Debian's Chromium, headless, driven by puppeteer-core (scripts/browser-deps), and the world of
// world.py (a real `awaywork serve` over a real repository). Shared by dashboard_test.mjs and
// bench/serve/dashboard_bench.mjs.
import { spawn } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const modules = process.env.AW_BROWSER_NODE_MODULES || "/var/cache/awaywork/browser-deps/node_modules";
const require = createRequire(path.join(modules, "noop.js"));

export const CHROMIUM = process.env.AW_CHROMIUM || "/usr/lib/chromium/chromium";

// Why the browser tests cannot run here ("" when they can): Chromium or puppeteer-core missing.
export function missing() {
  if (!fs.existsSync(CHROMIUM)) return `no Chromium at ${CHROMIUM} (scripts/deps installs Debian's chromium)`;
  if (!fs.existsSync(path.join(modules, "puppeteer-core"))) return `no puppeteer-core in ${modules} (run scripts/browser-deps)`;
  return "";
}

export function launch() {
  const puppeteer = require("puppeteer-core");
  const args = ["--disable-dev-shm-usage", "--disable-gpu", "--no-first-run", "--no-default-browser-check"];
  // Chromium refuses to start as root with its own sandbox on (the user namespace it needs is
  // not offered to root in a container): --no-sandbox is needed as root, and only then.
  if (process.getuid && process.getuid() === 0) args.push("--no-sandbox");
  return puppeteer.launch({ executablePath: CHROMIUM, headless: true, args });
}

// Starts world.py (`python3 tests/serve/world.py`): resolves to {root, port, token, url,
// secret, config, server_log, close()}. extraEnv reaches the server (and so the units it starts).
export function startWorld(extraEnv = {}) {
  const child = spawn("python3", [path.join(here, "world.py")], {
    stdio: ["pipe", "pipe", "inherit"],
    env: { ...process.env, ...extraEnv },
  });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once("line", (line) => {
      const w = JSON.parse(line);
      w.close = () => new Promise((done) => { child.once("exit", done); child.stdin.end(); });
      resolve(w);
    });
    child.once("exit", (code) => reject(new Error("world.py exited " + code)));
  });
}

// Console errors and uncaught exceptions of a page, collected for the no-error check. The texts are
// what the tests compare; errors.where keeps every one with where it came from (for "Failed to
// load resource", the resource's URL), for the message of a failed check. It is not enumerable,
// so assert.deepEqual(errors, [...]) still compares the texts alone.
export function collectErrors(page) {
  const errors = [];
  Object.defineProperty(errors, "where", { value: [], enumerable: false });
  page.on("console", (m) => {
    if (m.type() !== "error") return;
    const loc = m.location() || {};
    errors.push("console: " + m.text());
    const line = loc.lineNumber >= 0 ? ":" + loc.lineNumber : "";
    errors.where.push(`console: ${m.text()} [at ${loc.url || "no URL"}${line}]`);
  });
  page.on("pageerror", (e) => {
    errors.push("pageerror: " + e.message);
    errors.where.push("pageerror: " + (e.stack || e.message));
  });
  return errors;
}

// What `awaywork serve` wrote to stderr so far (each request, each live log that failed).
export function serverLog(w) {
  try {
    return fs.readFileSync(w.server_log, "utf8");
  } catch (e) {
    return `(no server log at ${w.server_log}: ${e.message})`;
  }
}

export async function api(w, method, route, body) {
  const res = await fetch(`http://127.0.0.1:${w.port}/api/v1${route}`, {
    method,
    headers: { Authorization: "Bearer " + w.token, "Content-Type": "application/json" },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: await res.json() };
}
