#include "fake_github.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace aw::test {

FakeGitHub::FakeGitHub(const std::string& dir) {
  int out[2];
  if (::pipe(out) != 0) {
    why_ = "pipe failed";
    return;
  }
  std::string script = std::string(AW_SOURCE_DIR) + "/tests/fakes/fake_github.py";
  std::string state = dir + "/fake-state";
  std::vector<std::string> args = {"/usr/bin/python3", script, "--port", "0", "--state", state};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_addclose(&fa, out[0]);
  int rc = ::posix_spawn(&pid_, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  ::close(out[1]);
  if (rc != 0) {
    ::close(out[0]);
    pid_ = -1;
    why_ = "cannot start python3";
    return;
  }
  std::string line;
  char c;
  while (::read(out[0], &c, 1) == 1 && c != '\n') line += c;
  ::close(out[0]);
  auto j = nlohmann::json::parse(line, nullptr, false);
  if (!j.is_object() || !j.contains("api_url")) {
    why_ = "fake_github.py did not start: '" + line + "'";
    return;
  }
  api_url_ = j["api_url"];
  git_url_ = j["git_url"];
  auto t = beast_transport(TransportOptions{api_url_, "", std::chrono::milliseconds(10000),
                                            std::chrono::milliseconds(60000)});
  if (t) http_ = std::move(*t);
}

FakeGitHub::~FakeGitHub() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    int st = 0;
    ::waitpid(pid_, &st, 0);
  }
}

std::pair<int, nlohmann::json> FakeGitHub::api(const std::string& method, const std::string& target,
                                               const std::string& token,
                                               const nlohmann::json& body) {
  HttpRequest r{method, target, {{"Accept", "application/vnd.github+json"}}, ""};
  if (!token.empty()) r.headers.emplace_back("Authorization", "token " + token);
  if (!body.is_null()) {
    r.body = body.dump();
    r.headers.emplace_back("Content-Type", "application/json");
  }
  auto res = http_ ? http_->send(r) : fail("no connection");
  if (!res) return {-1, res.error().message};
  auto j = nlohmann::json::parse(res->body, nullptr, false);
  return {res->status, j.is_discarded() ? nlohmann::json() : j};
}

nlohmann::json FakeGitHub::control(const std::string& method, const std::string& path,
                                   const nlohmann::json& body) {
  return api(method, "/_fake/" + path, "", body).second;
}

std::string FakeGitHub::user(const std::string& login, const std::string& type) {
  return control("POST", "users", {{"login", login}, {"type", type}}).value("token", "");
}

nlohmann::json FakeGitHub::writes() {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& e : control("GET", "log"))
    if (e.value("write", false)) out.push_back(e);
  return out;
}

}  // namespace aw::test
