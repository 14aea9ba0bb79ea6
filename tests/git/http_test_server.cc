// A TEST SERVER (see http_test_server.h): HTTP/1.1 + Basic auth in front of git-http-backend.
#include "http_test_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <map>

#include "proc/capture.h"

namespace aw::test {

std::string base64(const std::string& in) {
  static const char* t = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    unsigned v =
        (unsigned char)in[i] << 16 | (unsigned char)in[i + 1] << 8 | (unsigned char)in[i + 2];
    for (int s : {18, 12, 6, 0}) out += t[(v >> s) & 63];
  }
  if (i + 1 == in.size()) {
    unsigned v = (unsigned char)in[i] << 16;
    out += t[(v >> 18) & 63];
    out += t[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == in.size()) {
    unsigned v = (unsigned char)in[i] << 16 | (unsigned char)in[i + 1] << 8;
    out += t[(v >> 18) & 63];
    out += t[(v >> 12) & 63];
    out += t[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

GitHttpTestServer::GitHttpTestServer(std::string root, std::string user, std::string password)
    : root_(std::move(root)), user_(std::move(user)), password_(std::move(password)) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::listen(listen_fd_, 16) == 0 &&
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port_ = ntohs(a.sin_port);
  thread_ = std::thread([this] { serve(); });
}

GitHttpTestServer::~GitHttpTestServer() {
  stop_ = true;
  thread_.join();
  ::close(listen_fd_);
}

std::vector<std::string> GitHttpTestServer::targets() {
  std::lock_guard<std::mutex> l(mu_);
  return targets_;
}

void GitHttpTestServer::serve() {
  while (!stop_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    handle(fd);
    ::close(fd);
  }
}

namespace {

bool read_more(int fd, std::string& buf) {
  char chunk[65536];
  ssize_t n = ::read(fd, chunk, sizeof chunk);
  if (n <= 0) return false;
  buf.append(chunk, n);
  return true;
}

void write_all(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = ::write(fd, s.data() + off, s.size() - off);
    if (n <= 0) return;
    off += n;
  }
}

// Decodes a chunked body in buf from pos; false while incomplete.
bool dechunk(const std::string& buf, size_t pos, std::string& body) {
  body.clear();
  while (true) {
    size_t eol = buf.find("\r\n", pos);
    if (eol == std::string::npos) return false;
    size_t n = std::stoul(buf.substr(pos, eol - pos), nullptr, 16);
    if (n == 0) return true;
    if (buf.size() < eol + 2 + n + 2) return false;
    body += buf.substr(eol + 2, n);
    pos = eol + 2 + n + 2;
  }
}

}  // namespace

void GitHttpTestServer::handle(int fd) {
  std::string buf;
  size_t hdr_end;
  while ((hdr_end = buf.find("\r\n\r\n")) == std::string::npos)
    if (!read_more(fd, buf)) return;
  std::string head = buf.substr(0, hdr_end);
  std::string method = head.substr(0, head.find(' '));
  size_t t0 = head.find(' ') + 1;
  std::string target = head.substr(t0, head.find(' ', t0) - t0);
  std::map<std::string, std::string> h;
  size_t pos = head.find("\r\n");
  while (pos != std::string::npos && pos < head.size()) {
    size_t next = head.find("\r\n", pos + 2);
    std::string line = head.substr(pos + 2, next == std::string::npos ? next : next - pos - 2);
    size_t colon = line.find(':');
    if (colon != std::string::npos) {
      std::string k = line.substr(0, colon);
      for (auto& c : k) c = static_cast<char>(::tolower(c));
      size_t v = line.find_first_not_of(' ', colon + 1);
      h[k] = v == std::string::npos ? "" : line.substr(v);
    }
    pos = next;
  }
  std::string body;
  if (h["transfer-encoding"] == "chunked") {
    if (h["expect"] == "100-continue") write_all(fd, "HTTP/1.1 100 Continue\r\n\r\n");
    while (!dechunk(buf, hdr_end + 4, body))
      if (!read_more(fd, buf)) return;
  } else {
    size_t len = h.count("content-length") ? std::stoul(h["content-length"]) : 0;
    while (buf.size() < hdr_end + 4 + len)
      if (!read_more(fd, buf)) return;
    body = buf.substr(hdr_end + 4, len);
  }
  {
    std::lock_guard<std::mutex> l(mu_);
    targets_.push_back(target);
  }
  if (h["authorization"] != "Basic " + base64(user_ + ":" + password_)) {
    ++unauthorized_;
    write_all(fd,
              "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"test\"\r\n"
              "Content-Length: 0\r\nConnection: close\r\n\r\n");
    return;
  }
  ++authorized_;
  size_t q = target.find('?');
  CaptureSpec spec;
  spec.argv = {"/usr/lib/git-core/git-http-backend"};
  spec.env = {"PATH=/usr/bin:/bin",
              "HOME=/nonexistent",
              "GIT_CONFIG_NOSYSTEM=1",
              "GIT_CONFIG_GLOBAL=/dev/null",
              "GIT_PROJECT_ROOT=" + root_,
              "GIT_HTTP_EXPORT_ALL=1",
              "REQUEST_METHOD=" + method,
              "PATH_INFO=" + target.substr(0, q),
              "QUERY_STRING=" + (q == std::string::npos ? "" : target.substr(q + 1)),
              "CONTENT_TYPE=" + h["content-type"],
              "CONTENT_LENGTH=" + std::to_string(body.size()),
              "REMOTE_USER=" + user_,
              "REMOTE_ADDR=127.0.0.1",
              "GIT_PROTOCOL=" + h["git-protocol"],
              "HTTP_CONTENT_ENCODING=" + h["content-encoding"]};
  spec.stdin_data = body;
  auto r = capture(spec);
  if (!r) {
    write_all(fd, "HTTP/1.1 500 Error\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    return;
  }
  size_t cgi_end = r->out.find("\r\n\r\n");
  std::string cgi_head = cgi_end == std::string::npos ? "" : r->out.substr(0, cgi_end + 2);
  std::string cgi_body = cgi_end == std::string::npos ? r->out : r->out.substr(cgi_end + 4);
  std::string status = "200 OK", headers;
  size_t p = 0;
  while (p < cgi_head.size()) {
    size_t e = cgi_head.find("\r\n", p);
    std::string line = cgi_head.substr(p, e - p);
    p = e + 2;
    if (line.rfind("Status: ", 0) == 0)
      status = line.substr(8);
    else if (!line.empty())
      headers += line + "\r\n";
  }
  write_all(fd, "HTTP/1.1 " + status + "\r\n" + headers + "Content-Length: " +
                    std::to_string(cgi_body.size()) + "\r\nConnection: close\r\n\r\n" + cgi_body);
}

}  // namespace aw::test
