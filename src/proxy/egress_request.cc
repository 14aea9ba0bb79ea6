// The egress proxy's reading of a request's text (egress_request.h). strncasecmp, not a locale's
// case folding: header names are ASCII.
#include "proxy/egress_request.h"

#include <strings.h>

#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

namespace aw::egress {

namespace {

bool named(const std::string& line, const std::string& header) {
  return line.size() > header.size() && line[header.size()] == ':' &&
         strncasecmp(line.c_str(), header.c_str(), header.size()) == 0;
}

}  // namespace

std::string parse_head(const std::string& head, Request& r) {
  size_t eol = head.find("\r\n");
  std::string line = head.substr(0, eol);
  size_t a = line.find(' '), b = line.rfind(' ');
  if (a == std::string::npos || b == a) return "bad request line";
  r.method = line.substr(0, a);
  std::string target = line.substr(a + 1, b - a - 1);
  r.version = line.substr(b + 1);
  for (size_t p = eol; p != std::string::npos && p + 2 < head.size();) {
    size_t next = head.find("\r\n", p + 2);
    std::string h = head.substr(p + 2, next - p - 2);
    if (h.size() > 5 && strncasecmp(h.c_str(), "host:", 5) == 0)
      r.host_header = h.substr(h.find_first_not_of(' ', 5));
    p = next;
  }
  auto split_port = [&](const std::string& hp, uint16_t def) {
    size_t c = hp.rfind(':');
    if (c != std::string::npos && hp.find(']', c) == std::string::npos) {
      r.host = hp.substr(0, c);
      r.port = static_cast<uint16_t>(std::atoi(hp.c_str() + c + 1));
    } else {
      r.host = hp;
      r.port = def;
    }
  };
  if (r.method == "CONNECT") {
    split_port(target, 443);
    return r.port ? "" : "bad CONNECT target";
  }
  if (target.rfind("http://", 0) != 0) return "only CONNECT and absolute http:// URLs";
  size_t slash = target.find('/', 7);
  split_port(target.substr(7, slash == std::string::npos ? std::string::npos : slash - 7), 80);
  r.path = slash == std::string::npos ? "/" : target.substr(slash);
  return r.port ? "" : "bad URL";
}

std::string host_part(const std::string& hh) {
  size_t colon = hh.rfind(':');
  if (colon == std::string::npos || hh.find(']', colon) != std::string::npos) return hh;
  return hh.substr(0, colon);
}

std::string parse_origin(const std::string& head, Request& r) {
  size_t eol = head.find("\r\n");
  std::string line = head.substr(0, eol);
  size_t a = line.find(' '), b = line.rfind(' ');
  if (a == std::string::npos || b == a) return "bad request line";
  r.method = line.substr(0, a);
  r.path = line.substr(a + 1, b - a - 1);
  r.version = line.substr(b + 1);
  if (r.path.empty() || r.path[0] != '/') return "only origin-form requests inside TLS";
  if (r.method == "CONNECT") return "CONNECT inside TLS";
  r.host_header.clear();
  for (size_t p = eol; p != std::string::npos && p + 2 < head.size();) {
    size_t next = head.find("\r\n", p + 2);
    std::string h = head.substr(p + 2, next - p - 2);
    if (h.size() > 5 && strncasecmp(h.c_str(), "host:", 5) == 0) {
      if (!r.host_header.empty()) return "two Host headers";
      r.host_header = h.substr(h.find_first_not_of(' ', 5));
    }
    p = next;
  }
  return "";
}

std::string origin_form(const Request& r, const std::string& data, size_t head_len,
                        const std::vector<std::string>& drop, const std::string& extra,
                        bool keep_alive) {
  std::string out = fmt::format("{} {} {}\r\n", r.method, r.path, r.version);
  size_t p = data.find("\r\n") + 2;
  while (p < head_len - 2) {
    size_t next = data.find("\r\n", p);
    std::string h = data.substr(p, next - p);
    bool hop = strncasecmp(h.c_str(), "connection:", 11) == 0 ||
               strncasecmp(h.c_str(), "proxy-connection:", 17) == 0 ||
               strncasecmp(h.c_str(), "keep-alive:", 11) == 0;
    for (const auto& d : drop) hop = hop || named(h, d);
    if (!hop && !h.empty()) out += h + "\r\n";
    p = next + 2;
  }
  if (keep_alive) return out + extra + "\r\n";
  return out + extra + "Connection: close\r\n\r\n" + data.substr(head_len);
}

bool clean_head(std::string_view head) {
  for (size_t i = 0; i < head.size(); ++i) {
    if (head[i] == '\r' && (i + 1 >= head.size() || head[i + 1] != '\n')) return false;
    if (head[i] == '\n' && (i == 0 || head[i - 1] != '\r')) return false;
  }
  return true;
}

Framing request_framing(std::string_view head, const Request& r) {
  Framing f;
  f.keep = r.version == "HTTP/1.1";
  bool has_length = false;
  size_t p = head.find("\r\n");
  while (p != std::string_view::npos && p + 2 < head.size()) {
    size_t next = head.find("\r\n", p + 2);
    std::string_view h = head.substr(p + 2, next - p - 2);
    p = next;
    if (h.empty()) break;  // the blank line that ends the head
    size_t colon = h.find(':');
    if (colon == std::string_view::npos || colon == 0) {
      f.bad = "bad-header-line";
      return f;
    }
    for (size_t i = 0; i < colon; ++i) {
      unsigned char c = static_cast<unsigned char>(h[i]);
      if (c == 0 || (!std::isalnum(c) && !std::strchr("!#$%&'*+-.^_`|~", c))) {
        f.bad = "bad-header-line";
        return f;
      }
    }
    std::string name(h.substr(0, colon));
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    std::string value(h.substr(colon + 1));
    value.erase(0, value.find_first_not_of(" \t"));
    value.erase(value.find_last_not_of(" \t") + 1);
    std::string lower = value;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    if (name == "content-length") {
      if (has_length || value.empty() || value.size() > 15 ||
          value.find_first_not_of("0123456789") != std::string::npos) {
        f.bad = "bad-content-length";
        return f;
      }
      has_length = true;
      f.body = std::stoull(value);
    } else if (name == "transfer-encoding" || name == "expect" || name == "upgrade") {
      f.keep = false;
    } else if (name == "connection" && (lower.find("close") != std::string::npos ||
                                        lower.find("upgrade") != std::string::npos)) {
      f.keep = false;
    }
  }
  return f;
}

}  // namespace aw::egress
