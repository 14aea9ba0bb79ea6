// @octokit/rest (npm, pinned by scripts/test-data), unchanged, against the fake GitHub over TLS
// with a test CA (NODE_EXTRA_CA_CERTS, set by the test for the child it runs): it paginates
// issues by the fake's Link headers (octokit.paginate), reads a pull request, creates a comment
// and reads it back, reads check runs, annotations, the combined status and a job's log (through
// the fake's 302, as GitHub answers). Run: node --test tests/fakes/octokit_test.mjs
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync, execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync, existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createInterface } from "node:readline";

const here = dirname(fileURLToPath(import.meta.url));
const python = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
const dataDir = process.env.AWAYWORK_TEST_DATA_DIR || "/var/cache/awaywork/test-data";
const restEntry = join(dataDir, "node_modules/@octokit/rest/dist-src/index.js");
const missing = existsSync(restEntry)
  ? ""
  : `@octokit/rest is not in ${dataDir}; run scripts/test-data`;
if (missing && process.env.CI === "true") throw new Error(`${missing} (CI=true: no skip)`);

let fake, api, controlUrl, token, folder, ca;

// The test CA, the fake and its world are made here; octokit runs in a child process so that
// NODE_EXTRA_CA_CERTS (read at Node's start) holds the test CA.
function makeCa() {
  const py = `import sys; sys.path.insert(0, ${JSON.stringify(here)})
from github_testlib import make_ca; print("\\n".join(make_ca(${JSON.stringify(folder)})))`;
  return execFileSync(python, ["-c", py], { encoding: "utf8" }).trim().split("\n");
}

// The fake's plain control listener (control_url): this process need not trust the test CA.
async function control(method, path, body) {
  const r = await fetch(`${controlUrl}/_fake/${path}`,
    { method, body: body ? JSON.stringify(body) : undefined });
  assert.ok(r.ok, `${method} /_fake/${path}: ${r.status}`);
  return r.json();
}

function octokit(script) {
  // The child: the real @octokit/rest, its baseUrl the fake, the token in its auth option.
  const code = `import { Octokit } from ${JSON.stringify(pathToFileURL(restEntry).href)};
const octokit = new Octokit({ auth: process.env.FAKE_TOKEN, baseUrl: process.env.FAKE_API,
  userAgent: "awaywork-octokit-test" });
const out = await (async () => { ${script} })();
process.stdout.write(JSON.stringify(out));`;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", code], {
    encoding: "utf8",
    env: { PATH: process.env.PATH, HOME: folder, NODE_EXTRA_CA_CERTS: ca, FAKE_API: api,
           FAKE_TOKEN: token },
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

before(async () => {
  if (missing) return;
  folder = mkdtempSync(join(tmpdir(), "fake-github-octokit-"));
  const [caFile, cert, key] = makeCa();
  ca = caFile;
  fake = spawn(python, [join(here, "fake_github.py"), "--port", "0", "--state",
    join(folder, "state"), "--tls", cert, key], { stdio: ["ignore", "pipe", "inherit"] });
  const first = await new Promise((resolve) => createInterface({ input: fake.stdout })
    .once("line", resolve));
  const info = JSON.parse(first);
  api = `https://localhost:${info.port}`;
  controlUrl = info.control_url;
  token = (await control("POST", "users", { login: "alice" })).token;
  const src = join(folder, "src");
  execFileSync("git", ["init", "-q", "-b", "main", src]);
  writeFileSync(join(src, "README"), "hello\n");
  const gitEnv = { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@example.com",
    GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@example.com" };
  execFileSync("git", ["-C", src, "add", "README"], { env: gitEnv });
  execFileSync("git", ["-C", src, "commit", "-qm", "first"], { env: gitEnv });
  execFileSync("git", ["-C", src, "checkout", "-qb", "feature"], { env: gitEnv });
  writeFileSync(join(src, "f"), "f\n");
  execFileSync("git", ["-C", src, "add", "f"], { env: gitEnv });
  execFileSync("git", ["-C", src, "commit", "-qm", "feature"], { env: gitEnv });
  await control("POST", "repos", { owner: "alice", name: "r", source: src });
  for (let n = 1; n <= 35; n++) {
    const labels = n % 2 ? ["odd"] : [];
    await control("POST", "repos/alice/r/issues", { title: `issue ${n}`, labels });
  }
});

after(() => {
  if (fake) fake.kill("SIGTERM");
  if (folder) rmSync(folder, { recursive: true, force: true });
});

const when = { skip: missing || false };

test("octokit_rest_paginates_issues_from_the_fake_by_its_link_headers", when, async () => {
  const mark = (await control("GET", "log")).length;
  const numbers = octokit(`const all = await octokit.paginate(octokit.rest.issues.listForRepo,
    { owner: "alice", repo: "r", per_page: 10 });
    return all.map((i) => i.number);`);
  assert.deepEqual(numbers, Array.from({ length: 35 }, (_, k) => 35 - k));
  const log = (await control("GET", "log")).slice(mark);
  assert.equal(log.length, 4);
  assert.ok(log.slice(1).every((e) => e.path.startsWith("/repositories/")), JSON.stringify(log));
  assert.ok(log.every((e) => e.user_agent.startsWith("awaywork-octokit-test")));
  const odd = octokit(`return (await octokit.paginate(octokit.rest.issues.listForRepo,
    { owner: "alice", repo: "r", labels: "odd", per_page: 100 })).length;`);
  assert.equal(odd, 18);
});

test("octokit_rest_creates_a_comment_and_reads_a_draft_pull_request", when, async () => {
  const out = octokit(`
    const repo = { owner: "alice", repo: "r" };
    const c = await octokit.rest.issues.createComment({ ...repo, issue_number: 3,
      body: "from octokit" });
    const listed = await octokit.rest.issues.listComments({ ...repo, issue_number: 3 });
    const pr = await octokit.rest.pulls.create({ ...repo, head: "feature", base: "main",
      title: "t", draft: true });
    const got = await octokit.rest.pulls.get({ ...repo, pull_number: pr.data.number });
    let refused = 0;
    try {
      await octokit.rest.pulls.create({ ...repo, head: "nope", base: "main", title: "t" });
    } catch (e) {
      refused = e.status;
    }
    return { status: c.status, author: c.data.user.login, bodies: listed.data.map((x) => x.body),
             draft: got.data.draft, head: got.data.head.ref, refused,
             remaining: Number(got.headers["x-ratelimit-remaining"]) };`);
  assert.equal(out.status, 201);
  assert.equal(out.author, "alice");
  assert.deepEqual(out.bodies, ["from octokit"]);
  assert.equal(out.draft, true);
  assert.equal(out.head, "feature");
  assert.equal(out.refused, 422);
  assert.ok(out.remaining < 5000 && out.remaining > 4900);
});

test("octokit_rest_reads_check_runs_statuses_and_a_jobs_log_through_its_redirect", when,
  async () => {
    const run = await control("POST", "repos/alice/r/check-runs", {
      branch: "feature", name: "build", conclusion: "failure", log: "step 1\nerror: boom\n",
      annotations: [{ path: "f", start_line: 1, message: "E: boom" }] });
    await control("POST", `repos/alice/r/statuses/${run.head_sha}`,
      { state: "error", context: "ci/ext" });
    const out = octokit(`
      const repo = { owner: "alice", repo: "r" };
      const runs = await octokit.rest.checks.listForRef({ ...repo, ref: "feature" });
      const notes = await octokit.rest.checks.listAnnotations({ ...repo,
        check_run_id: runs.data.check_runs[0].id });
      const combined = await octokit.rest.repos.getCombinedStatusForRef({ ...repo,
        ref: "feature" });
      const job = await octokit.rest.actions.getJobForWorkflowRun({ ...repo,
        job_id: runs.data.check_runs[0].id });
      const log = await octokit.rest.actions.downloadJobLogsForWorkflowRun({ ...repo,
        job_id: runs.data.check_runs[0].id });
      return { names: runs.data.check_runs.map((x) => x.conclusion + " " + x.name),
               note: notes.data[0].message, state: combined.data.state,
               job: job.data.conclusion, status: log.status,
               log: typeof log.data === "string" ? log.data : "",
               location: log.headers.location || "" };`);
    assert.deepEqual(out.names, ["failure build"]);
    assert.equal(out.note, "E: boom");
    assert.equal(out.state, "failure");
    assert.equal(out.job, "failure");
    // fetch follows GitHub's 302 to the log (a client that does not sees the Location).
    if (out.status === 302) assert.match(out.location, /\/_logs\/alice\/r\/jobs\//);
    else assert.equal(out.log, "step 1\nerror: boom\n");
  });
