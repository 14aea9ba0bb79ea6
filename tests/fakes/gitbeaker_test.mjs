// @gitbeaker/rest (npm, pinned by scripts/test-data), unchanged, against the fake GitLab
// (fake_gitlab.py, issue 29): it lists a nested project's issues and an issue's notes across pages
// (following the fake's Link headers), creates a note and a merge request, reads and re-sets the
// merge request's reviewers (the reviewers API's shape, GitLab's rules for reviewer_ids), and
// reports the fake's 404 as its own error. Run: node --test tests/fakes/gitbeaker_test.mjs
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync, existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createInterface } from "node:readline";

const here = dirname(fileURLToPath(import.meta.url));
const python = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
const dataDir = process.env.AWAYWORK_TEST_DATA_DIR || "/var/cache/awaywork/test-data";
const entry = join(dataDir, "node_modules/@gitbeaker/rest/dist/index.mjs");
const missing = existsSync(entry) ? "" : `@gitbeaker/rest is not in ${dataDir}; run scripts/test-data`;
if (missing && process.env.CI === "true") throw new Error(`${missing} (CI=true: no skip)`);

const PROJECT = "grp/sub/app";
let fake, host, controlUrl, token, folder, api;

// The fake's /_fake/ routes (no auth, not logged).
async function control(method, path, body) {
  const r = await fetch(`${controlUrl}/_fake/${path}`, {
    method,
    headers: { "Content-Type": "application/json" },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await r.text();
  assert.ok(r.ok, `${method} /_fake/${path}: ${r.status} ${text}`);
  return JSON.parse(text);
}

before(async () => {
  if (missing) return;
  folder = mkdtempSync(join(tmpdir(), "fake-gitlab-gitbeaker-"));
  fake = spawn(python, [join(here, "fake_gitlab.py"), "--port", "0", "--state",
    join(folder, "state")], { stdio: ["ignore", "pipe", "inherit"] });
  const first = await new Promise((resolve) => createInterface({ input: fake.stdout })
    .once("line", resolve));
  const info = JSON.parse(first);
  host = info.api_url.slice(0, -"/api/v4".length);
  controlUrl = info.control_url;
  token = (await control("POST", "users", { username: "alice" })).token;
  const src = join(folder, "src");
  const gitEnv = { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@example.invalid",
    GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@example.invalid",
    GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
  execFileSync("git", ["init", "-q", "-b", "main", src], { env: gitEnv });
  writeFileSync(join(src, "README"), "hello\n");
  execFileSync("git", ["-C", src, "add", "README"], { env: gitEnv });
  execFileSync("git", ["-C", src, "commit", "-qm", "first"], { env: gitEnv });
  execFileSync("git", ["-C", src, "checkout", "-qb", "feature"], { env: gitEnv });
  writeFileSync(join(src, "feature"), "feature\n");
  execFileSync("git", ["-C", src, "add", "feature"], { env: gitEnv });
  execFileSync("git", ["-C", src, "commit", "-qm", "feature"], { env: gitEnv });
  await control("POST", "projects", { path: PROJECT, source: src });
  await control("POST", "members/grp", { username: "alice", access_level: 40 });
  await control("POST", `members/${PROJECT}`, { username: "bob", access_level: 30 });
  for (let n = 1; n <= 45; n++)
    await control("POST", `projects/${PROJECT}/issues`, { title: `issue ${n}` });
  for (let n = 1; n <= 25; n++)
    await control("POST", `projects/${PROJECT}/issues/1/notes`,
      { body: `note ${n}`, system: n % 5 === 0 });
  const { Gitlab } = await import(pathToFileURL(entry).href);
  api = new Gitlab({ host, token });
});

after(() => {
  if (fake) fake.kill("SIGTERM");
  if (folder) rmSync(folder, { recursive: true, force: true });
});

const when = { skip: missing || false };

test("gitbeaker_lists_issues_and_notes_across_the_fakes_pages", when, async () => {
  const mark = (await control("GET", "log")).length;
  const issues = await api.Issues.all({ projectId: PROJECT, perPage: 20 });
  assert.deepEqual(issues.map((i) => i.iid).sort((a, b) => a - b),
    Array.from({ length: 45 }, (_, k) => k + 1));
  const log = (await control("GET", "log")).slice(mark);
  assert.equal(log.length, 3, JSON.stringify(log));  // 20 + 20 + 5, by the Link header
  assert.ok(log.every((e) => e.auth === "private-token" && e.username === "alice"));
  const notes = await api.IssueNotes.all(PROJECT, 1, { perPage: 10, sort: "asc" });
  assert.equal(notes.length, 25);
  assert.equal(notes.filter((n) => n.system).length, 5);
  const expanded = await api.Issues.all({ projectId: PROJECT, perPage: 20, maxPages: 1,
    showExpanded: true });
  assert.equal(expanded.data.length, 20);
  assert.equal(expanded.paginationInfo.total, 45);
  assert.equal(expanded.paginationInfo.totalPages, 3);
  assert.equal(expanded.paginationInfo.next, 2);
});

test("gitbeaker_creates_a_note_and_a_merge_request_and_reads_them_back", when, async () => {
  const note = await api.IssueNotes.create(PROJECT, 2, "from gitbeaker");
  assert.equal(note.body, "from gitbeaker");
  assert.equal(note.author.username, "alice");
  const listed = await api.IssueNotes.all(PROJECT, 2);
  assert.deepEqual(listed.map((n) => n.body), ["from gitbeaker"]);
  const mr = await api.MergeRequests.create(PROJECT, "feature", "main", "from gitbeaker",
    { description: "a merge request" });
  assert.equal(mr.source_branch, "feature");
  assert.equal(mr.target_branch, "main");
  const got = await api.MergeRequests.show(PROJECT, mr.iid);
  assert.equal(got.title, "from gitbeaker");
  assert.equal(got.author.username, "alice");
  assert.match(got.sha, /^[0-9a-f]{40}$/);
  await assert.rejects(
    api.MergeRequests.create(PROJECT, "feature", "main", "again"),
    (e) => e.cause?.response?.status === 409 || /409|Conflict|already exists/.test(String(e)));
});

test("gitbeaker_reads_and_re_sets_a_merge_requests_reviewers", when, async () => {
  const mr = await control("POST", `projects/${PROJECT}/merge_requests`,
    { username: "alice", source: "feature", title: "reviewed" });
  await control("POST", `projects/${PROJECT}/merge_requests/${mr.iid}/reviewers`,
    { username: "bob", state: "requested_changes" });
  const before = await api.MergeRequests.showReviewers(PROJECT, mr.iid);
  assert.equal(before.length, 1);
  assert.equal(before[0].user.username, "bob");
  assert.equal(before[0].state, "requested_changes");
  assert.ok(before[0].created_at);
  const bob = before[0].user.id;
  // Taken off and put back: a new review request, unreviewed again (awaywork's re-request).
  await api.MergeRequests.edit(PROJECT, mr.iid, { reviewerIds: [] });
  assert.equal((await api.MergeRequests.showReviewers(PROJECT, mr.iid)).length, 0);
  const edited = await api.MergeRequests.edit(PROJECT, mr.iid, { reviewerIds: [bob] });
  assert.deepEqual(edited.reviewers.map((u) => u.username), ["bob"]);
  const after = await api.MergeRequests.showReviewers(PROJECT, mr.iid);
  assert.equal(after[0].state, "unreviewed");
});

test("gitbeaker_reports_the_fakes_404_as_its_error", when, async () => {
  await assert.rejects(api.Issues.show(999, { projectId: PROJECT }),
    (e) => e.cause?.response?.status === 404 || /404|Not Found/.test(String(e)));
});
