// What the C++ fixtures of the fake forges (fake_github.h, fake_gitlab.h) share: starting the
// Python fake and reading the JSON line it prints when ready, stopping it, and a tiny HTTP/1.1
// client on loopback for its /_fake/ control routes and its API. Each fake differs only in its
// script, its routes and how a token is sent, so those stay in the subclass. Test code only;
// header-only (nlohmann::json and POSIX).
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

class FakeForge {
 public:
  struct Reply {
    int status = 0;  // 0: no answer (error() says why)
    std::string headers;
    nlohmann::json body;  // null when empty or not JSON
  };

  FakeForge(const FakeForge&) = delete;
  FakeForge& operator=(const FakeForge&) = delete;
  ~FakeForge() { stop(); }

  void stop() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
    pid_ = -1;
  }

  const std::string& api_url() const { return api_url_; }
  const std::string& git_url() const { return git_url_; }
  const std::string& error() const { return error_; }

  // /_fake/PATH (see tests/fakes/README.md): the JSON answer, null on an error (error() says
  // which).
  nlohmann::json control(const std::string& method, const std::string& path,
                         const nlohmann::json& body = nullptr) {
    Reply r = request(control_port_, method, "/_fake/" + path, body, "");
    if (r.status >= 200 && r.status < 300) return r.body;
    error_ = method + " /_fake/" + path + ": " + std::to_string(r.status) + " " + r.body.dump();
    return nullptr;
  }

  nlohmann::json log() { return control("GET", "log"); }
  // The entries of the log that wrote (API methods other than GET/HEAD, pushes).
  nlohmann::json writes() {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& e : log())
      if (e.value("write", false)) out.push_back(e);
    return out;
  }

 protected:
  // script: the file name under tests/fakes; agent: the client's User-Agent.
  FakeForge(const std::string& script, std::string agent)
      : script_name_(script),
        script_(std::string(AW_SOURCE_DIR) + "/tests/fakes/" + script),
        agent_(std::move(agent)) {}

  // Runs `python3 SCRIPT --port 0 --state STATE_DIR EXTRA...` and reads its JSON line, which
  // must name `key`: the line (port, api_url and git_url kept), or null when it did not start
  // (error() says why; the child is stopped).
  nlohmann::json launch(const std::string& state_dir, const std::vector<std::string>& extra,
                        const std::string& key) {
    std::vector<std::string> args = {"/usr/bin/python3", script_,  "--port", "0",
                                     "--state",          state_dir};
    args.insert(args.end(), extra.begin(), extra.end());
    std::string line = spawn_fake(args, &pid_);
    if (pid_ < 0) {
      error_ = "fork failed";
      return nullptr;
    }
    auto info = nlohmann::json::parse(line, nullptr, false);
    if (!info.is_object() || !info.contains(key)) {
      stop();
      error_ = script_name_ + " did not print its JSON line (got '" + line + "')";
      return nullptr;
    }
    port_ = info["port"];
    control_port_ = port_;
    api_url_ = info["api_url"];
    git_url_ = info["git_url"];
    return info;
  }

  // One request to 127.0.0.1:PORT; more: header lines after the User-Agent, each ending in
  // "\r\n" (the fake's Accept, a token's), "" for none.
  Reply request(int port, const std::string& method, const std::string& path,
                const nlohmann::json& body, const std::string& more) {
    Reply reply;
    std::string data = body.is_null() ? "" : body.dump();
    std::string req =
        method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
        "\r\nConnection: close\r\nUser-Agent: " + agent_ + "\r\n" + more +
        "Content-Type: application/json\r\nContent-Length: " + std::to_string(data.size()) +
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

  std::string script_name_, script_, agent_;
  pid_t pid_ = -1;
  int port_ = 0, control_port_ = 0;  // the control listener: the API's own unless set apart
  std::string api_url_, git_url_, error_;
};

}  // namespace aw::test
