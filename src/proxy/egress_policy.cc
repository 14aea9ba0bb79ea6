#include "proxy/egress_policy.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>

namespace aw {
namespace {

std::string canonical(std::string_view host) {
  std::string h(host);
  if (h.size() > 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  while (!h.empty() && h.back() == '.') h.pop_back();
  std::transform(h.begin(), h.end(), h.begin(), [](unsigned char c) { return std::tolower(c); });
  return h;
}

}  // namespace

bool is_ip_literal(std::string_view host) {
  std::string h = canonical(host);
  unsigned char buf[16];
  return ::inet_pton(AF_INET, h.c_str(), buf) == 1 || ::inet_pton(AF_INET6, h.c_str(), buf) == 1;
}

EgressDecision decide_host(const std::vector<std::string>& allow, std::string_view raw) {
  std::string host = canonical(raw);
  if (host.empty()) return {false, "deny empty-host"};
  bool ip = is_ip_literal(host);
  for (const auto& entry : allow) {
    std::string e = canonical(entry);
    if (e == host) return {true, "allow " + entry};
    if (!ip && e.size() > 2 && e.rfind("*.", 0) == 0) {
      std::string suffix = e.substr(1);  // ".example.com"
      if (host.size() > suffix.size() &&
          host.compare(host.size() - suffix.size(), suffix.size(), suffix) == 0)
        return {true, "allow " + entry};
    }
  }
  return {false, ip ? "deny ip-literal" : "deny not-listed"};
}

std::optional<std::string> client_hello_sni(std::string_view d, bool* complete) {
  auto u8 = [&](size_t i) { return static_cast<unsigned char>(d[i]); };
  auto u16 = [&](size_t i) { return static_cast<size_t>(u8(i) << 8 | u8(i + 1)); };
  if (complete) *complete = false;
  if (d.size() < 5) return std::nullopt;
  if (u8(0) != 0x16) {  // not a handshake record: nothing more will make it one
    if (complete) *complete = true;
    return std::nullopt;
  }
  size_t rec_len = u16(3);
  if (d.size() < 5 + rec_len) return std::nullopt;
  if (complete) *complete = true;
  std::string_view h = d.substr(5, rec_len);
  auto hu8 = [&](size_t i) { return static_cast<unsigned char>(h[i]); };
  auto hu16 = [&](size_t i) { return static_cast<size_t>(hu8(i) << 8 | hu8(i + 1)); };
  if (h.size() < 4 || hu8(0) != 0x01) return std::nullopt;  // ClientHello
  size_t p = 4 + 2 + 32;                                    // header, version, random
  if (p + 1 > h.size()) return std::nullopt;
  p += 1 + hu8(p);  // session id
  if (p + 2 > h.size()) return std::nullopt;
  p += 2 + hu16(p);  // cipher suites
  if (p + 1 > h.size()) return std::nullopt;
  p += 1 + hu8(p);  // compression methods
  if (p + 2 > h.size()) return std::nullopt;
  size_t ext_end = std::min(h.size(), p + 2 + hu16(p));
  p += 2;
  while (p + 4 <= ext_end) {
    size_t type = hu16(p), len = hu16(p + 2);
    p += 4;
    if (p + len > ext_end) return std::nullopt;
    if (type == 0 && len >= 5) {  // server_name: list length, type 0 (host_name), name length
      size_t name_len = hu16(p + 3);
      if (hu8(p + 2) == 0 && 5 + name_len <= len) return std::string(h.substr(p + 5, name_len));
      return std::nullopt;
    }
    p += len;
  }
  return std::nullopt;
}

}  // namespace aw
