#include "config/validate.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "check/redact.h"

namespace aw {
namespace {

bool alnum(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}
bool has_control_or_blank(std::string_view s) {
  for (char c : s)
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) return true;
  return false;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

bool valid_label(std::string_view l) {
  if (l.empty() || l.size() > 63 || l.front() == '-' || l.back() == '-') return false;
  for (char c : l)
    if (!alnum(c) && c != '-') return false;
  return true;
}

}  // namespace

Status check_entry_name(const std::string& name) {
  bool ok = !name.empty() && name.size() <= 64 && alnum(name[0]);
  for (char c : name) ok = ok && (alnum(c) || c == '_' || c == '.' || c == '-');
  if (!ok)
    return fail(
        "'{}' is not a valid name; use letters, digits, '_', '.' and '-', starting with a letter "
        "or digit (at most 64 characters)",
        name);
  return {};
}

Status check_env_name(const std::string& name) {
  bool ok = !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (char c : name) ok = ok && (alnum(c) || c == '_');
  if (!ok)
    return fail(
        "'{}' is not a variable name; use letters, digits and '_', not starting with a digit "
        "(write the name only, not NAME=value)",
        name);
  return {};
}

Status check_profile_name(const std::string& name) {
  AW_CHECK(check_env_name(name));
  if (name == "HOME" || name == "PATH" || name == "TMPDIR" || name.starts_with("AWAYWORK_"))
    return fail(
        "'{}' is set by awaywork itself (HOME, PATH, TMPDIR, AWAYWORK_*); a profile "
        "cannot override it: choose another name",
        name);
  return {};
}

Status check_var_value(const std::string& name, const std::string& value) {
  if (!find_secrets(value, {}).empty())
    return fail(
        "the value of {} looks like a secret (a token or key) and config is plaintext; "
        "put it in the secret store: awaywork secret set {}, and list {} under the "
        "profile's secrets:",
        name, name, name);
  return {};
}

Status check_inference_url(const std::string& url) {
  return check_api_url(url, "write e.g. https://api.anthropic.com");
}

Status check_api_url(const std::string& url, std::string_view hint) {
  if (url.empty() || has_control_or_blank(url)) return fail("'{}' is not a URL; {}", url, hint);
  size_t scheme_end = url.find("://");
  std::string scheme = scheme_end == std::string::npos ? "" : url.substr(0, scheme_end);
  if (scheme != "https" && scheme != "http")
    return fail("'{}' is not an https:// URL; {}", url, hint);
  std::string_view rest = std::string_view(url).substr(scheme_end + 3);
  std::string_view authority = rest.substr(0, rest.find('/'));
  if (authority.find('@') != std::string_view::npos)
    return fail(
        "'{}' carries a user or key; the key goes in the secret store and is named by "
        "credential:",
        url);
  if (url.find_first_of("?#") != std::string::npos)
    return fail("'{}' has a query or fragment; write the base URL only; {}", url, hint);
  std::string_view host = authority;
  if (host.starts_with("[")) {
    host = host.substr(0, host.find(']') + 1);
  } else {
    host = host.substr(0, host.find(':'));
  }
  if (host.empty()) return fail("'{}' has no host; {}", url, hint);
  // Plain http is readable on the wire; only a server on this machine may be reached that way.
  bool loopback =
      host == "localhost" || host == "[::1]" ||
      (host.starts_with("127.") && host.find_first_not_of("0123456789.") == std::string_view::npos);
  if (scheme == "http" && !loopback)
    return fail(
        "'{}' is plain http to another machine, which would carry the key in the clear; "
        "use https:// (http:// only to 127.0.0.1, localhost or [::1])",
        url);
  return {};
}

Result<std::string> check_domain(const std::string& domain) {
  std::string d;
  for (char c : domain) d += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (d.find("://") != std::string::npos || d.find('/') != std::string::npos ||
      d.find(':') != std::string::npos)
    return fail(
        "'{}' is not a domain name; write the host name only, e.g. example.com (no "
        "scheme, port or path)",
        domain);
  bool wildcard = d.starts_with("*.");
  std::string_view host = wildcard ? std::string_view(d).substr(2) : std::string_view(d);
  auto labels = split(host, '.');
  bool ok = !host.empty() && host.size() <= 253;
  for (auto l : labels) ok = ok && valid_label(l);
  if (!ok)
    return fail(
        "'{}' is not a domain name; write a name such as example.com, or *.example.com "
        "for all its subdomains",
        domain);
  if (wildcard && labels.size() < 2)
    return fail("'{}' would allow a whole top-level domain; name the site, e.g. *.example.com",
                domain);
  return d;
}

Status check_url(const std::string& url) {
  const std::string_view hint =
      "write e.g. https://github.com/owner/repo.git or git@github.com:owner/repo.git";
  if (url.empty()) return fail("empty URL; {}", hint);
  if (url[0] == '-')
    return fail("'{}' starts with '-' and would read as a git option; {}", url, hint);
  if (has_control_or_blank(url))
    return fail("'{}' contains a blank or control character; {}", url, hint);
  size_t scheme_end = url.find("://");
  if (scheme_end == std::string::npos) {
    // git's "<helper>::<address>" runs a remote helper; ext:: runs an arbitrary command.
    if (url.find("::") != std::string::npos)
      return fail("'{}' names a git remote helper (::), which is refused; {}", url, hint);
    size_t colon = url.find(':');
    size_t slash = url.find('/');
    if (colon == std::string::npos || colon == 0 || (slash != std::string::npos && slash < colon))
      return fail("'{}' is not a URL (a local repository goes under path:); {}", url, hint);
    return {};
  }
  std::string scheme = url.substr(0, scheme_end);
  if (scheme != "https" && scheme != "http" && scheme != "ssh" && scheme != "git" &&
      scheme != "file")
    return fail("'{}': scheme '{}' is not one of https, http, ssh, git, file; {}", url, scheme,
                hint);
  std::string_view rest = std::string_view(url).substr(scheme_end + 3);
  std::string_view authority = rest.substr(0, rest.find('/'));
  size_t at = authority.rfind('@');
  if (at != std::string_view::npos && authority.substr(0, at).find(':') != std::string_view::npos)
    return fail(
        "'{}' carries a password or token; remove it from the URL and store it with "
        "`awaywork secret set`",
        url);
  return {};
}

Status check_branch(const std::string& b) {
  const std::string_view hint = "write a branch name such as main";
  bool bad = b.empty() || b[0] == '-' || b[0] == '/' || b.back() == '/' || b.back() == '.' ||
             b.ends_with(".lock") || b.find("..") != std::string::npos ||
             b.find("@{") != std::string::npos || b.find("//") != std::string::npos || b == "@" ||
             has_control_or_blank(b);
  for (char c : b)
    bad = bad || c == '~' || c == '^' || c == ':' || c == '?' || c == '*' || c == '[' || c == '\\';
  if (bad) return fail("'{}' is not a valid branch name; {}", b, hint);
  return {};
}

Status check_image(const std::string& image) {
  if (image.empty() || image[0] == '-' || has_control_or_blank(image))
    return fail("'{}' is not an image reference; write e.g. debian:bookworm", image);
  return {};
}

Status check_user_name(const std::string& name) {
  bool ok = !name.empty() && name.size() <= 32 &&
            (std::islower(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (unsigned char c : name)
    ok = ok && (std::islower(c) || std::isdigit(c) || c == '_' || c == '-');
  if (!ok)
    return fail(
        "'{}' is not a plain user name: use lowercase letters, digits, _ and -, starting "
        "with a letter (e.g. awaywork)",
        name);
  return {};
}

std::optional<std::pair<std::string, std::string>> api_host_of(const std::string& api_url) {
  constexpr std::string_view scheme = "https://";
  if (!api_url.starts_with(scheme)) return std::nullopt;
  std::string rest = api_url.substr(scheme.size());
  size_t slash = rest.find('/');
  std::string hostport = rest.substr(0, slash);
  std::string path = slash == std::string::npos ? "" : rest.substr(slash);
  while (!path.empty() && path.back() == '/') path.pop_back();
  if (hostport.empty() || hostport.front() == '[') return std::nullopt;  // no IPv6 literal
  std::string host = hostport.substr(0, hostport.find(':'));
  std::transform(host.begin(), host.end(), host.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  // An IP literal: the unit's CA issues certificates for host names only.
  bool digits = !host.empty() && std::all_of(host.begin(), host.end(), [](unsigned char c) {
    return std::isdigit(c) || c == '.';
  });
  if (host.empty() || digits) return std::nullopt;
  return std::make_pair(host, path);
}

}  // namespace aw
