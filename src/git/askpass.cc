// How a credential reaches git (DESIGN.md section 4): awaywork's own askpass.
//
// Why GIT_ASKPASS and not credential.helper: git runs a credential helper through a shell
// (credential.c sets use_shell, and appends " get" to the command, so /bin/sh -c is always
// involved), whereas GIT_ASKPASS is exec'd directly with the prompt as its only argument. The
// askpass is the awaywork binary itself (a mode chosen by AWAYWORK_ASKPASS=1 in the
// environment), so nothing else needs installing. The secret travels only in the environment of
// the git process awaywork starts (built from nothing: the agent's processes are all gone by
// apply, and /proc/PID/environ is readable only by its owner), and from there to the askpass,
// which writes it to git on its stdout pipe. It is never on any argv, never in a URL, never in a
// file: the scratch git dir's config is written by awaywork without it.
// The askpass answers only for the host the remote URL names (redirects are off as well), so a
// prompt for any other host gets nothing.
#include <string.h>
#include <unistd.h>

#include <string_view>

#include "git/git_internal.h"

namespace aw {

namespace {

constexpr char kMode[] = "AWAYWORK_ASKPASS";
constexpr char kHost[] = "AWAYWORK_ASKPASS_HOST";
constexpr char kUser[] = "AWAYWORK_ASKPASS_USERNAME";
constexpr char kPassword[] = "AWAYWORK_ASKPASS_PASSWORD";

bool has_control(std::string_view s) {
  for (unsigned char c : s)
    if (c < 0x20 || c == 0x7f) return true;
  return false;
}

}  // namespace

bool askpass_mode() {
  const char* v = ::getenv(kMode);
  return v && std::string_view(v) == "1";
}

int askpass_main(int argc, char** argv) {
  // git's prompts (prompt.c via credential.c): "Username for 'SCHEME://HOST': " and
  // "Password for 'SCHEME://USER@HOST': ".
  std::string_view prompt = argc > 1 ? argv[1] : "";
  const char* host = ::getenv(kHost);
  if (!host || !*host) return 1;
  std::string tail = std::string(host) + "': ";
  bool for_host = prompt.ends_with("//" + tail) || prompt.ends_with("@" + tail);
  const char* answer = nullptr;
  if (for_host && prompt.starts_with("Username for '")) answer = ::getenv(kUser);
  if (for_host && prompt.starts_with("Password for '")) answer = ::getenv(kPassword);
  if (!answer) {
    (void)!::write(2, "awaywork askpass: no answer for this prompt\n", 44);
    return 1;
  }
  std::string out = std::string(answer) + "\n";
  return ::write(1, out.data(), out.size()) == static_cast<ssize_t>(out.size()) ? 0 : 1;
}

Status check_remote_url(const std::string& url) {
  if (url.empty() || url[0] == '-') return fail("'{}' is not a remote URL", url);
  if (has_control(url) || url.find(' ') != std::string::npos)
    return fail("'{}' contains a blank or control character", url);
  AW_TRY(gitx::UrlParts u, gitx::url_parts(url));
  if (u.scheme != "https" && u.scheme != "http" && u.scheme != "git" && u.scheme != "file")
    return fail("'{}': apply pushes over https, http, git or file, not '{}'", url, u.scheme);
  if (u.userinfo.find(':') != std::string::npos)
    return fail(
        "'{}' carries a password or token; remove it from the URL and name a credential from "
        "awaywork's secret store instead",
        url);
  return {};
}

namespace gitx {

Result<UrlParts> url_parts(const std::string& url) {
  size_t end = url.find("://");
  if (end == std::string::npos || end == 0)
    return fail("'{}' is not a URL of the form scheme://host/path", url);
  UrlParts u;
  u.scheme = url.substr(0, end);
  std::string_view rest = std::string_view(url).substr(end + 3);
  std::string_view authority = rest.substr(0, rest.find('/'));
  size_t at = authority.rfind('@');
  if (at != std::string_view::npos) {
    u.userinfo = std::string(authority.substr(0, at));
    authority = authority.substr(at + 1);
  }
  u.host = std::string(authority);
  return u;
}

Result<std::vector<std::string>> askpass_env(const std::string& askpass, const std::string& host,
                                             const std::string& user, const std::string& secret) {
  if (askpass.empty() || askpass[0] != '/' || ::access(askpass.c_str(), X_OK) != 0)
    return fail("the askpass program '{}' is not an absolute path to an executable", askpass);
  if (secret.empty() || has_control(secret) || has_control(user) || host.empty())
    return fail("the credential is empty or contains a control character");
  return std::vector<std::string>{"GIT_ASKPASS=" + askpass, std::string(kMode) + "=1",
                                  std::string(kHost) + "=" + host, std::string(kUser) + "=" + user,
                                  std::string(kPassword) + "=" + secret};
}

}  // namespace gitx
}  // namespace aw
