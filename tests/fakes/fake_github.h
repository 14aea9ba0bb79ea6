// A FAKE GitHub for a C++ test: starts tests/fakes/fake_github.py (its contract: tests/fakes/
// README.md, section "fake_github.py"), reads the JSON line it prints when ready, and steers it
// through /_fake/ with a tiny HTTP/1.1 client on its plain control listener (plain even when the
// fake serves TLS). Test code only; header-only (nlohmann::json and POSIX).
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

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "spawn_fake.h"

namespace aw::test {

class FakeGithub {
 public:
  struct Reply {
    int status = 0;  // 0: no answer (error() says why)
    std::string headers;
    nlohmann::json body;  // null when empty or not JSON
  };

  FakeGithub() = default;
  // Started at once, its state under dir/fake-state; api_url() is "" when it did not start.
  explicit FakeGithub(const std::string& dir, const std::vector<std::string>& extra = {}) {
    start(dir + "/fake-state", extra);
  }
  FakeGithub(const FakeGithub&) = delete;
  FakeGithub& operator=(const FakeGithub&) = delete;
  ~FakeGithub() { stop(); }

  // state_dir: the fake's bare repositories and state.json; extra: e.g. {"--tls", cert, key}.
  bool start(const std::string& state_dir, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"/usr/bin/python3", script_,  "--port", "0",
                                     "--state",          state_dir};
    args.insert(args.end(), extra.begin(), extra.end());
    std::string line = spawn_fake(args, &pid_);
    if (pid_ < 0) return failed("fork failed");
    auto info = nlohmann::json::parse(line, nullptr, false);
    if (!info.is_object() || !info.contains("control_url")) {
      stop();
      return failed("fake_github.py did not print its JSON line (got '" + line + "')");
    }
    port_ = info["port"];
    api_url_ = info["api_url"];
    git_url_ = info["git_url"];
    control_port_ = std::stoi(info["control_url"].get<std::string>().substr(
        info["control_url"].get<std::string>().rfind(':') + 1));
    return true;
  }

  void stop() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
    pid_ = -1;
  }

  int port() const { return port_; }
  const std::string& api_url() const { return api_url_; }  // http(s)://127.0.0.1:PORT
  const std::string& git_url() const { return git_url_; }  // + "/OWNER/NAME.git"
  const std::string& error() const { return error_; }
  const std::string& why() const { return error_; }

  // /_fake/PATH (see the README): the JSON answer, null on an error (error() says which).
  nlohmann::json control(const std::string& method, const std::string& path,
                         const nlohmann::json& body = nullptr) {
    Reply r = request(control_port_, method, "/_fake/" + path, body, "");
    if (r.status >= 200 && r.status < 300) return r.body;
    error_ = method + " /_fake/" + path + ": " + std::to_string(r.status) + " " + r.body.dump();
    return nullptr;
  }

  // The API itself, for a fake without TLS (with TLS, use a TLS client).
  Reply api(const std::string& method, const std::string& path,
            const nlohmann::json& body = nullptr, const std::string& token = "") {
    return request(port_, method, path, body, token);
  }

  // As a user (token "" = anonymous), a fake without TLS: status (-1: no answer) and body.
  // (A template so that only a std::string token picks it: api(m, p, nullptr, "t") is the above.)
  template <class Token, class = std::enable_if_t<std::is_same_v<Token, std::string>>>
  std::pair<int, nlohmann::json> api(const std::string& method, const std::string& path,
                                     const Token& token, const nlohmann::json& body = nullptr) {
    Reply r = request(port_, method, path, body, token);
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
  nlohmann::json log() { return control("GET", "log"); }
  // The entries of the log that wrote (API methods other than GET/HEAD, pushes).
  nlohmann::json writes() {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& e : log())
      if (e.value("write", false)) out.push_back(e);
    return out;
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
  bool failed(const std::string& why) {
    error_ = why;
    return false;
  }

  Reply request(int port, const std::string& method, const std::string& path,
                const nlohmann::json& body, const std::string& token) {
    Reply reply;
    std::string data = body.is_null() ? "" : body.dump();
    std::string req = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
                      "\r\nConnection: close\r\nUser-Agent: awaywork-fake-github-fixture\r\n"
                      "Accept: application/vnd.github+json\r\n";
    if (!token.empty()) req += "Authorization: token " + token + "\r\n";
    req += "Content-Type: application/json\r\nContent-Length: " + std::to_string(data.size()) +
           "\r\n\r\n" + data;
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    timeval tv{30, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        ::write(fd, req.data(), req.size()) != static_cast<ssize_t>(req.size())) {
      ::close(fd);
      error_ = "cannot reach the fake on port " + std::to_string(port);
      return reply;
    }
    std::string in;
    char buf[65536];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) in.append(buf, n);
    ::close(fd);
    auto end = in.find("\r\n\r\n");
    if (in.size() < 12 || end == std::string::npos) {
      error_ = "no HTTP answer from the fake";
      return reply;
    }
    reply.status = std::stoi(in.substr(9, 3));
    reply.headers = in.substr(0, end);
    reply.body = nlohmann::json::parse(in.substr(end + 4), nullptr, false);
    if (reply.body.is_discarded()) reply.body = nullptr;
    return reply;
  }

  std::string script_ = std::string(AW_SOURCE_DIR) + "/tests/fakes/fake_github.py";
  pid_t pid_ = -1;
  int port_ = 0, control_port_ = 0;
  std::string api_url_, git_url_, error_;
};
using FakeGitHub = FakeGithub;  // the forge tests' spelling

}  // namespace aw::test
