// A FAKE GitHub for a C++ test: starts tests/fakes/fake_github.py (its contract: tests/fakes/
// README.md, section "fake_github.py"), reads the JSON line it prints when ready, and steers it
// through /_fake/ with a tiny HTTP/1.1 client (fake_forge.h) on its plain control listener (plain
// even when the fake serves TLS). Test code only; header-only (nlohmann::json and POSIX).
//
//   aw::test::FakeGithub gh;
//   ASSERT_TRUE(gh.start(tmp + "/gh")) << gh.error();  // or gh.start(dir, {"--tls", cert, key})
//   std::string token = gh.add_user("alice");         // ghp_... (fake)
//   gh.add_repo("alice", "r", "/path/to/a/checkout");  // a bare copy behind git http-backend
//   gh.control("POST", "repos/alice/r/issues", {{"user", "bob"}, {"title", "fix it"}});
//   ... point awaywork at gh.api_url() (clone_url: gh.git_url() + "/alice/r.git") ...
//   for (auto& e : gh.log()) if (e["write"]) EXPECT_EQ(e["login"], "awaywork-bot");
// Or started by its constructor (state under DIR/fake-state), as the forge tests do:
//   aw::test::FakeGitHub fake(tmp);  ASSERT_FALSE(fake.api_url().empty()) << fake.why();
//   std::string token = fake.user("aw-bot");  auto [status, body] = fake.api("GET", "/user",
//   token);
#pragma once

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "fake_forge.h"

namespace aw::test {

class FakeGithub : public FakeForge {
 public:
  FakeGithub() : FakeForge("fake_github.py", "awaywork-fake-github-fixture") {}
  // Started at once, its state under dir/fake-state; api_url() is "" when it did not start.
  explicit FakeGithub(const std::string& dir, const std::vector<std::string>& extra = {})
      : FakeGithub() {
    start(dir + "/fake-state", extra);
  }

  // state_dir: the fake's bare repositories and state.json; extra: e.g. {"--tls", cert, key}.
  bool start(const std::string& state_dir, const std::vector<std::string>& extra = {}) {
    auto info = launch(state_dir, extra, "control_url");
    if (info.is_null()) return false;
    std::string url = info["control_url"];
    control_port_ = std::stoi(url.substr(url.rfind(':') + 1));
    return true;
  }

  int port() const { return port_; }
  // api_url(): http(s)://127.0.0.1:PORT; git_url(): + "/OWNER/NAME.git".
  const std::string& why() const { return error_; }

  // The API itself, for a fake without TLS (with TLS, use a TLS client).
  Reply api(const std::string& method, const std::string& path,
            const nlohmann::json& body = nullptr, const std::string& token = "") {
    return request(port_, method, path, body, headers(token));
  }

  // As a user (token "" = anonymous), a fake without TLS: status (-1: no answer) and body.
  // (A template so that only a std::string token picks it: api(m, p, nullptr, "t") is the above.)
  template <class Token, class = std::enable_if_t<std::is_same_v<Token, std::string>>>
  std::pair<int, nlohmann::json> api(const std::string& method, const std::string& path,
                                     const Token& token, const nlohmann::json& body = nullptr) {
    Reply r = request(port_, method, path, body, headers(token));
    return {r.status ? r.status : -1, r.body};
  }

  std::string add_user(const std::string& login, const std::string& type = "User") {
    auto u = control("POST", "users", {{"login", login}, {"type", type}});
    return u.is_object() ? u["token"].get<std::string>() : "";
  }
  std::string user(const std::string& login, const std::string& type = "User") {
    return add_user(login, type);
  }
  // A GitHub App's installation (a workflow's github.token is github-actions[bot]'s): a Bot
  // whose ghs_... token GET /user refuses with 403 "Resource not accessible by integration".
  std::string installation(const std::string& login = "github-actions[bot]") {
    auto u = control("POST", "users", {{"login", login}, {"installation", true}});
    return u.is_object() ? u["token"].get<std::string>() : "";
  }
  nlohmann::json add_repo(const std::string& owner, const std::string& name,
                          const std::string& source = "") {
    nlohmann::json b = {{"owner", owner}, {"name", name}};
    if (!source.empty()) b["source"] = source;
    return control("POST", "repos", b);
  }
  nlohmann::json stats() { return control("GET", "stats"); }
  // The workflow runs dispatched on OWNER/NAME, as recorded (with the dispatch's inputs, which
  // GitHub's API does not show), newest last; and a run moved on as its jobs would move it.
  nlohmann::json runs(const std::string& owner, const std::string& name) {
    return control("GET", "repos/" + owner + "/" + name + "/actions/runs");
  }
  // An artifact NAME uploaded by the run's own job (actions/upload-artifact), listed by GET
  // .../actions/artifacts?name=NAME with its workflow_run.id.
  nlohmann::json add_artifact(const std::string& owner, const std::string& name, int64_t run,
                              const std::string& artifact) {
    return control(
        "POST",
        "repos/" + owner + "/" + name + "/actions/runs/" + std::to_string(run) + "/artifacts",
        {{"name", artifact}});
  }
  nlohmann::json set_run(const std::string& owner, const std::string& name, int64_t id,
                         const std::string& status, const std::string& conclusion = "") {
    nlohmann::json b = {{"status", status}};
    if (!conclusion.empty()) b["conclusion"] = conclusion;
    return control("PATCH", "repos/" + owner + "/" + name + "/actions/runs/" + std::to_string(id),
                   b);
  }

 private:
  static std::string headers(const std::string& token) {
    std::string h = "Accept: application/vnd.github+json\r\n";
    if (!token.empty()) h += "Authorization: token " + token + "\r\n";
    return h;
  }
};
using FakeGitHub = FakeGithub;  // the forge tests' spelling

}  // namespace aw::test
