// A TEST SERVER, not product code: a minimal HTTP/1.1 server on 127.0.0.1 that requires Basic
// auth and runs Debian's git-http-backend as a CGI for each request, so apply's credential path
// can be exercised against a real smart-HTTP git remote without the network. One request per
// connection, one connection at a time; no TLS.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace aw::test {

class GitHttpTestServer {
 public:
  // Serves the repositories under root; accepts only user:password.
  GitHttpTestServer(std::string root, std::string user, std::string password);
  ~GitHttpTestServer();
  int port() const { return port_; }
  int unauthorized() const { return unauthorized_; }  // requests answered 401
  int authorized() const { return authorized_; }      // requests passed to git-http-backend
  std::vector<std::string> targets();                 // every request target as received

 private:
  void serve();
  void handle(int fd);
  std::string root_, user_, password_;
  int listen_fd_ = -1, port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> unauthorized_{0}, authorized_{0};
  std::mutex mu_;
  std::vector<std::string> targets_;
  std::thread thread_;
};

std::string base64(const std::string& in);

}  // namespace aw::test
