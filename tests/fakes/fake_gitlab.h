// A FAKE GitLab for a C++ test: starts tests/fakes/fake_gitlab.py (its contract: tests/fakes/
// README.md, section "fake_gitlab.py"), reads the JSON line it prints when ready, and steers it
// through /_fake/ with a tiny HTTP/1.1 client. Test code only; header-only (nlohmann::json, POSIX).
//
//   aw::test::FakeGitlab gl(tmp);  ASSERT_FALSE(gl.api_url().empty()) << gl.error();
//   std::string token = gl.add_user("aw-bot");          // glpat-... (fake)
//   gl.add_project("grp/sub/app", "/path/to/a/checkout");
//   gl.member("grp", "aw-bot", 30);                      // Developer on the group
//   gl.control("POST", "projects/grp/sub/app/issues", {{"username", "bob"}, {"title", "x"}});
//   ... point awaywork at gl.api_url() (http://127.0.0.1:PORT/api/v4) ...
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "spawn_fake.h"

namespace aw::test {

class FakeGitlab {
 public:
  struct Reply {
    int status = 0;  // 0: no answer (error() says why)
    std::string headers;
    nlohmann::json body;  // null when empty or not JSON
  };

  // Started at once, its state under dir/fake-gitlab; api_url() is "" when it did not start.
  explicit FakeGitlab(const std::string& dir, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"/usr/bin/python3",  script_, "--port", "0", "--state",
                                     dir + "/fake-gitlab"};
    args.insert(args.end(), extra.begin(), extra.end());
    std::string line = spawn_fake(args, &pid_);
    auto info = nlohmann::json::parse(line, nullptr, false);
    if (pid_ < 0 || !info.is_object() || !info.contains("api_url")) {
      error_ = "fake_gitlab.py did not print its JSON line (got '" + line + "')";
      stop();
      return;
    }
    port_ = info["port"];
    api_url_ = info["api_url"];
    git_url_ = info["git_url"];
  }
  FakeGitlab(const FakeGitlab&) = delete;
  FakeGitlab& operator=(const FakeGitlab&) = delete;
  ~FakeGitlab() { stop(); }

  void stop() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
    pid_ = -1;
  }

  const std::string& api_url() const { return api_url_; }  // http://127.0.0.1:PORT/api/v4
  const std::string& git_url() const { return git_url_; }  // + "/GROUP/.../PROJECT.git"
  const std::string& error() const { return error_; }

  // /_fake/PATH: the JSON answer, null on an error (error() says which).
  nlohmann::json control(const std::string& method, const std::string& path,
                         const nlohmann::json& body = nullptr) {
    Reply r = request(method, "/_fake/" + path, body, "");
    if (r.status >= 200 && r.status < 300) return r.body;
    error_ = method + " /_fake/" + path + ": " + std::to_string(r.status) + " " + r.body.dump();
    return nullptr;
  }
  // The API as a user (PRIVATE-TOKEN; "" = anonymous); path below /api/v4.
  Reply api(const std::string& method, const std::string& path, const std::string& token,
            const nlohmann::json& body = nullptr) {
    return request(method, "/api/v4" + path, body, token);
  }

  std::string add_user(const std::string& username, bool bot = false) {
    auto u = control("POST", "users", {{"username", username}, {"bot", bot}});
    return u.is_object() ? u["token"].get<std::string>() : "";
  }
  nlohmann::json add_project(const std::string& path, const std::string& source = "") {
    nlohmann::json b = {{"path", path}};
    if (!source.empty()) b["source"] = source;
    return control("POST", "projects", b);
  }
  nlohmann::json member(const std::string& ns, const std::string& username, int level) {
    return control("POST", "members/" + ns, {{"username", username}, {"access_level", level}});
  }
  // An issue's notes, oldest first, as the user of token reads them (project: "grp/sub/app").
  nlohmann::json notes(std::string project, int64_t iid, const std::string& token) {
    for (size_t at = 0; (at = project.find('/', at)) != std::string::npos;)
      project.replace(at, 1, "%2F");
    return api("GET",
               "/projects/" + project + "/issues/" + std::to_string(iid) +
                   "/notes?sort=asc&per_page=100",
               token)
        .body;
  }
  nlohmann::json log() { return control("GET", "log"); }
  nlohmann::json writes() {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& e : log())
      if (e.value("write", false)) out.push_back(e);
    return out;
  }
  nlohmann::json faults(const nlohmann::json& b) { return control("POST", "faults", b); }

 private:
  Reply request(const std::string& method, const std::string& path, const nlohmann::json& body,
                const std::string& token) {
    Reply reply;
    std::string data = body.is_null() ? "" : body.dump();
    std::string req = method + " " + path +
                      " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port_) +
                      "\r\nConnection: close\r\nUser-Agent: awaywork-fake-gitlab-fixture\r\n";
    if (!token.empty()) req += "PRIVATE-TOKEN: " + token + "\r\n";
    req += "Content-Type: application/json\r\nContent-Length: " + std::to_string(data.size()) +
           "\r\n\r\n" + data;
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port_));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    timeval tv{30, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        ::write(fd, req.data(), req.size()) != static_cast<ssize_t>(req.size())) {
      ::close(fd);
      error_ = "cannot reach the fake on port " + std::to_string(port_);
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

  std::string script_ = std::string(AW_SOURCE_DIR) + "/tests/fakes/fake_gitlab.py";
  pid_t pid_ = -1;
  int port_ = 0;
  std::string api_url_, git_url_, error_;
};

}  // namespace aw::test
