#include "proxy/egress_policy.h"

#include <arpa/inet.h>

#include <strings.h>

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

std::string base64(std::string_view in) {
  static const char* const k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    unsigned v = static_cast<unsigned char>(in[i]) << 16 |
                 static_cast<unsigned char>(in[i + 1]) << 8 | static_cast<unsigned char>(in[i + 2]);
    out += {k[v >> 18], k[(v >> 12) & 63], k[(v >> 6) & 63], k[v & 63]};
  }
  if (i + 1 == in.size()) {
    unsigned v = static_cast<unsigned char>(in[i]) << 16;
    out += {k[v >> 18], k[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == in.size()) {
    unsigned v = static_cast<unsigned char>(in[i]) << 16 | static_cast<unsigned char>(in[i + 1])
                                                               << 8;
    out += {k[v >> 18], k[(v >> 12) & 63], k[(v >> 6) & 63], '='};
  }
  return out;
}

// A path the server might resolve elsewhere than its text says.
bool plain_path(std::string_view path) {
  std::string p(path);
  std::transform(p.begin(), p.end(), p.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const char* bad : {"/../", "/./", "%2e", "%2f", "%5c", "\\"})
    if (p.find(bad) != std::string::npos) return false;
  return !p.ends_with("/..") && !p.ends_with("/.");
}

}  // namespace

bool bound_host(const std::vector<EgressInjection>& rules, std::string_view host) {
  std::string h = canonical(host);
  return std::any_of(rules.begin(), rules.end(),
                     [&](const EgressInjection& r) { return canonical(r.host) == h; });
}

std::vector<std::string> bound_headers(const std::vector<EgressInjection>& rules,
                                       std::string_view host) {
  std::string h = canonical(host);
  std::vector<std::string> out;
  for (const auto& r : rules)
    if (canonical(r.host) == h) out.push_back(r.header);
  return out;
}

std::vector<const EgressInjection*> matching_injections(const std::vector<EgressInjection>& rules,
                                                        std::string_view host,
                                                        std::string_view method,
                                                        std::string_view target) {
  std::string h = canonical(host);
  std::string_view path = target.substr(0, target.find('?'));
  std::vector<const EgressInjection*> out;
  for (const auto& r : rules) {
    if (canonical(r.host) != h) continue;
    if (!r.methods.empty() &&
        std::find(r.methods.begin(), r.methods.end(), method) == r.methods.end())
      continue;
    if (!r.paths.empty() || !r.exact_paths.empty()) {
      // What follows the prefix is checked, with a slash before it so that "PREFIX.." and
      // "PREFIX../x" are dot segments too.
      bool under = std::any_of(r.paths.begin(), r.paths.end(), [&](const std::string& pre) {
        return path.starts_with(pre) && plain_path("/" + std::string(path.substr(pre.size())));
      });
      under = under ||
              std::find(r.exact_paths.begin(), r.exact_paths.end(), path) != r.exact_paths.end();
      if (!under) continue;
    }
    out.push_back(&r);
  }
  return out;
}

std::optional<std::string> outside_exclusive_rule(const std::vector<EgressInjection>& rules,
                                                  std::string_view host, std::string_view method,
                                                  std::string_view path) {
  std::string h = canonical(host);
  auto exclusive = std::find_if(rules.begin(), rules.end(), [&](const EgressInjection& r) {
    return r.exclusive && canonical(r.host) == h;
  });
  if (exclusive == rules.end() || !matching_injections(rules, host, method, path).empty())
    return std::nullopt;
  return exclusive->secret;
}

std::string injected_value(const EgressInjection& r) {
  if (!r.basic_user.empty()) return "Basic " + base64(r.basic_user + ":" + r.value);
  std::string out = r.value_template;
  size_t at = out.find("{secret}");
  if (at == std::string::npos) return out;  // the config refuses this; nothing to put
  return out.replace(at, 8, r.value);
}

std::optional<std::string> stray_placeholder(const std::map<std::string, std::string>& placeholders,
                                             const std::vector<EgressInjection>& rules,
                                             std::string_view host, bool connect,
                                             std::string_view data) {
  std::string h = canonical(host);
  for (const auto& [placeholder, name] : placeholders) {
    if (placeholder.empty() || data.find(placeholder) == std::string_view::npos) continue;
    bool own = !connect && std::any_of(rules.begin(), rules.end(), [&](const EgressInjection& r) {
      return r.secret == name && canonical(r.host) == h;
    });
    if (!own) return name;
  }
  return std::nullopt;
}

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
