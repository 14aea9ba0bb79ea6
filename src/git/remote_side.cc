// A remote (or local) repository as awaywork's git addresses it: the -c options a remote needs and
// the askpass environment carrying its credential (askpass.cc). Shared by publish and the mirror.
#include "git/git_internal.h"
#include "secrets/store.h"

namespace aw::gitx {

namespace {

// The generic keys that could send a remote's requests (and the credential) elsewhere or add to
// them, pinned on the command line, which git reads after the git dir's config (credential.helper=
// and core.sshCommand are pinned for every git in git_call.cc). The second line only: a
// URL-specific key (http.<url>.proxy, remote.<url>.proxy) outranks these and url.<x>.insteadOf
// cannot be unset at all, so the git dir's config is checked first (check_own_config).
constexpr const char* kRemotePins[] = {
    "http.proxy=",                 // empty: no proxy at all, not even one from the environment
    "http.extraHeader=",           // empty: the list of extra headers reset
    "http.curloptResolve=",        // empty: no host pinned to another address
    "http.sslVerify=true",         // the server's certificate checked
    "http.saveCookies=false",      // nothing the server says written into a file
    "http.followRedirects=false",  // no redirect followed (with the credential) elsewhere
};

}  // namespace

Result<Side> open_side(const ApplyTarget& t, const std::string& askpass) {
  Side s;
  if (t.git_dir.empty() == t.url.empty())
    return fail("the apply target needs exactly one of a local repository or a URL");
  if (!t.git_dir.empty()) {
    if (!t.credential.empty()) return fail("a local target takes no credential");
    AW_TRY(std::string common, gitx::common_dir(t.git_dir));
    s.dest = common;
    s.shown = t.git_dir;
    return s;
  }
  AW_CHECK(check_remote_url(t.url));
  AW_TRY(gitx::UrlParts u, url_parts(t.url));
  s.remote = true;
  s.dest = t.url;
  s.shown = t.url;
  // The hardening allows only file://; open exactly this URL's scheme, and keep git from
  // following a redirect or a proxy elsewhere (with the credential).
  if (u.scheme != "file") s.pre_args = {"-c", "protocol." + u.scheme + ".allow=always"};
  for (const char* pin : kRemotePins) s.pre_args.insert(s.pre_args.end(), {"-c", pin});
  if (!t.ca_file.empty() && u.scheme == "https")  // a path, not a secret: on the argv
    s.pre_args.insert(s.pre_args.end(), {"-c", "http.sslCAInfo=" + t.ca_file});
  if (t.credential.empty()) return s;
  if (u.scheme != "https" && u.scheme != "http")
    return fail("credential '{}': only an http(s) remote takes a credential, not {}://",
                t.credential, u.scheme);
  std::string name = u.host.substr(0, u.host.rfind(':'));
  if (u.host.starts_with("[")) name = u.host.substr(0, u.host.find(']') + 1);
  bool loopback = name == "127.0.0.1" || name == "localhost" || name == "[::1]";
  if (u.scheme == "http" && !loopback)
    return fail("credential '{}': {} is plain http and would carry it unencrypted; use https",
                t.credential, t.url);
  std::string secret = t.secret_value;
  if (secret.empty()) {
    if (!t.secrets) return fail("credential '{}': no secret store to read it from", t.credential);
    AW_TRY(secret, with_context(t.secrets->get(t.credential), "credential '" + t.credential + "'"));
  }
  AW_TRY(s.env, askpass_env(askpass, u.host, t.username, secret));
  s.credential = t.credential;
  return s;
}

// git run against the remote: the -c options and askpass environment it needs.
Result<Captured> remote_git(const Side& s, const std::string& scratch,
                            std::vector<std::string> args) {
  AW_CHECK(check_own_config(scratch));
  GitCall g = at(scratch, s.pre_args);
  g.args.insert(g.args.end(), args.begin(), args.end());
  AW_TRY(Captured c, run(g, s.env));
  if (c.exit_code != 0 && c.err.find("Authentication failed") != std::string::npos)
    return fail("{} refused the credential '{}' (authentication failed)", s.shown,
                s.credential.empty() ? "(none)" : s.credential);
  if (c.exit_code != 0)
    return fail("git {} {} exited {}: {}", args[0], s.shown, c.exit_code, first_line(c.err));
  return c;
}

PushTarget push_target(const Side& side) {
  return PushTarget{.dest = side.dest,
                    .shown = side.shown,
                    .local_receive_pack = !side.remote || side.dest.starts_with("file://"),
                    .pre_args = side.pre_args,
                    .env = side.env,
                    .remote = side.remote};
}

}  // namespace aw::gitx
