// Isolation user with the OS sandbox reaches the inference proxy: the worker's sandbox has its own
// empty network, and the proxy's socket is one the worker alone may connect to (a POSIX ACL entry,
// under a 128-bit random name in the owner's unlistable helper folder), bridged onto
// 127.0.0.1:4180 inside. The agent asks the fake vendor (tests/fakes over TLS) through it; the
// vendor sees the real key, never the run token.
#include <dirent.h>
#include <glob.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <regex>
#include <thread>

#include <fmt/format.h>

#include "fake_server.h"
#include "user_pipeline.h"

namespace aw::test {
namespace {

// The agent: one request through the proxy's bridge with the run token, the answer into the
// clone; then it says so and waits (bounded) for the test to look at the socket from outside.
const char* kAskAgent = R"(#!/usr/bin/python3
import json, os, time, urllib.request
req = urllib.request.Request(
    os.environ["AWAYWORK_INFERENCE_URL"] + "/v1/messages",
    data=json.dumps({"model": "m", "max_tokens": 16,
                     "messages": [{"role": "user", "content": "a title"}]}).encode(),
    headers={"content-type": "application/json", "anthropic-version": "2023-06-01",
             "x-api-key": os.environ["AWAYWORK_RUN_TOKEN"]})
answer = json.load(urllib.request.urlopen(req, timeout=60))
with open("answer.txt", "w") as f:
    f.write(answer["content"][0]["text"] + "\n")
with open(os.path.join(os.environ["AWAYWORK_OUTPUTS"], "asked"), "w") as f:
    f.write(os.environ["AWAYWORK_INFERENCE_URL"])
for _ in range(1200):
    if os.path.exists(os.path.join(os.environ["AWAYWORK_OUTPUTS"], "go")):
        break
    time.sleep(0.1)
)";

std::vector<std::string> glob_all(const std::string& pattern) {
  std::vector<std::string> out;
  glob_t g{};
  if (::glob(pattern.c_str(), 0, nullptr, &g) == 0)
    for (size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
  ::globfree(&g);
  return out;
}

// The first match that is a socket (or a folder) of uid.
std::string owned_by(const std::vector<std::string>& paths, uid_t uid, bool socket) {
  for (const auto& p : paths) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) == 0 && st.st_uid == uid &&
        (socket ? S_ISSOCK(st.st_mode) : S_ISDIR(st.st_mode)))
      return p;
  }
  return {};
}

constexpr uid_t kNobody = 65534;

TEST_F(UserPipeline, SandboxedWorkerAsksTheModelThroughASocketOnlyTheWorkerCanOpen) {
  AW_NEED_USERS(u);
  world(*u, {{"a.txt", "x\n"}});
  use_test_secret_store();
  ASSERT_NO_FATAL_FAILURE(make_tls_certificate(root));
  FakeServer fake;
  std::string fake_log = root + "/fake.jsonl";
  ASSERT_TRUE(
      fake.start("fake_anthropic.py", fake_log, {"--tls", root + "/cert.pem", root + "/key.pem"}));
  store_secret("MODEL_KEY", kAnthropicKey);
  ASSERT_EQ(sh(fmt::format("chown -R {}: {}/xdg", u->owner, root)), 0);
  std::string agent = root + "/agents/ask";
  std::ofstream(agent) << kAskAgent;
  ::chmod(agent.c_str(), 0755);
  std::ofstream(config) << "state_dir: " << root << "/state\n"
                        << "agent: model\n"
                        << "agents:\n  model:\n    provider: command\n"
                        << "    inference: upstream\n    command: [" << agent << "]\n"
                        << "inference:\n  upstream:\n    api: anthropic\n"
                        << "    url: https://localhost:" << fake.port() << "\n"
                        << "    credential: MODEL_KEY\n"
                        << "    ca_file: " << root << "/cert.pem\n"
                        << "repos:\n  src:\n    path: " << src << "\n"
                        << "isolation: user\nworker_user: " << kWorker << "\n"
                        << "sandbox: {mode: required, limits: off}\n";
  ::chmod(config.c_str(), 0644);

  RunOutput r;
  std::atomic<bool> over{false};
  std::thread unit([&] {
    r = run_as_owner("ask the model",
                     {"XDG_CONFIG_HOME=" + root + "/xdg", "AWAYWORK_SECRET_BACKEND=file"});
    over = true;
  });
  // While the agent waits: the proxy's socket in the owner's helper folder, and the worker's
  // outputs folder where the agent said it had asked. (A bound, not a timed assertion.)
  std::string sock, outputs;
  for (int i = 0; i < 1200 && !over && (sock.empty() || outputs.empty()); ++i) {
    sock = owned_by(glob_all("/tmp/awaywork-helper-*/inference-*.sock"), u->owner_uid, true);
    for (const auto& asked : glob_all("/tmp/awaywork-*/outputs/asked")) {
      std::string dir = asked.substr(0, asked.rfind('/'));
      if (owned_by({dir}, u->worker.uid, false) == dir) outputs = dir;
    }
    ::usleep(100 * 1000);
  }
  EXPECT_FALSE(sock.empty()) << "no inference socket of the owner's in a helper folder";
  EXPECT_FALSE(outputs.empty()) << "the agent did not get its answer";
  if (!sock.empty()) {
    std::string name = sock.substr(sock.rfind('/') + 1);
    EXPECT_TRUE(std::regex_match(name, std::regex("inference-[0-9a-f]{32}\\.sock"))) << name;
    // The worker may connect; another unprivileged user may not (nor list the folder).
    EXPECT_EQ(run_as(u->worker.uid, u->worker.gid, [&] { return connect_result(sock); }), "ok");
    EXPECT_EQ(run_as(kNobody, kNobody, [&] { return connect_result(sock); }), "EACCES");
    std::string helper_dir = sock.substr(0, sock.rfind('/'));
    EXPECT_EQ(run_as(u->worker.uid, u->worker.gid,
                     [&] {
                       DIR* d = ::opendir(helper_dir.c_str());
                       if (d) ::closedir(d);
                       return std::string(d ? "listed" : "closed");
                     }),
              "closed");
  }
  if (!outputs.empty()) {
    EXPECT_EQ(sh(fmt::format("touch {}/go", outputs)), 0);
  }
  unit.join();

  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(r.record["state"], "done");
  EXPECT_EQ(r.record["sandbox"].get<std::string>().rfind("sandboxed: network none", 0), 0u)
      << r.out;
  std::string branch = r.record["branch"];
  EXPECT_EQ(owner_git(src, "show " + branch + ":answer.txt"), "Fake title\n");
  // The vendor saw the real key and never the run token.
  auto reqs = log_lines(read(fake_log));
  ASSERT_EQ(reqs.size(), 1u) << read(fake_log);
  EXPECT_EQ(reqs[0]["headers"].value("x-api-key", ""), kAnthropicKey);
  EXPECT_EQ(reqs[0].dump().find("awrun-"), std::string::npos) << "a run token reached the vendor";
  std::string notes = r.record["notes"].dump();
  EXPECT_NE(notes.find("1 request(s) forwarded"), std::string::npos) << notes;
  // The socket and its folder went with the unit.
  if (!sock.empty()) {
    EXPECT_FALSE(exists(sock));
    EXPECT_FALSE(exists(sock.substr(0, sock.rfind('/'))));
  }
  auto where = locations(r);
  if (where.is_object())
    std::filesystem::remove_all(
        std::filesystem::path(where["clone"].get<std::string>()).parent_path());
}

}  // namespace
}  // namespace aw::test
