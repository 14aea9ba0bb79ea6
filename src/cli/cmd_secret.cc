// `awaywork secret set|list|rm`: the value comes from stdin or a hidden prompt, never argv (argv
// is readable by every process through /proc and lands in shell history), and is never printed.
#include <fmt/format.h>
#include <signal.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>

#include "base/json_write.h"
#include "cli/cmd_secret.h"
#include "secrets/store.h"

namespace aw {

namespace {

constexpr size_t kMaxStdin = 65536 + 2;

// The terminal's settings while echo is off, for the signal handler to put back: the only state a
// handler may touch, hence process-wide.
struct termios g_saved_tty;
volatile sig_atomic_t g_tty_saved = 0;

void restore_tty_and_die(int sig) {
  if (g_tty_saved) ::tcsetattr(STDIN_FILENO, TCSANOW, &g_saved_tty);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

Result<std::string> read_stdin() {
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail("read stdin: {}", std::strerror(errno));
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > kMaxStdin) return fail("the value on stdin is larger than 64 KiB");
  }
  if (!out.empty() && out.back() == '\n') out.pop_back();  // `echo` adds one; keep the rest
  return out;
}

// One line from the terminal with echo off; the terminal is restored on every path out.
Result<std::string> read_hidden(const char* prompt) {
  fmt::print(stderr, "{}", prompt);
  std::fflush(stderr);
  struct termios t {};
  if (::tcgetattr(STDIN_FILENO, &t) != 0)
    return fail("read the terminal settings: {}", std::strerror(errno));
  g_saved_tty = t;
  g_tty_saved = 1;
  struct sigaction sa {
  }, old_int{}, old_term{};
  sa.sa_handler = restore_tty_and_die;
  ::sigaction(SIGINT, &sa, &old_int);
  ::sigaction(SIGTERM, &sa, &old_term);
  t.c_lflag &= ~static_cast<tcflag_t>(ECHO);
  t.c_lflag |= ECHONL;
  ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &t);
  std::string line;
  bool eof = false;
  for (;;) {
    char c = 0;
    ssize_t n = ::read(STDIN_FILENO, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      eof = line.empty();
      break;
    }
    if (c == '\n') break;
    line.push_back(c);
  }
  ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &g_saved_tty);
  g_tty_saved = 0;
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGTERM, &old_term, nullptr);
  if (eof) return fail("no value typed (end of input)");
  return line;
}

Result<std::string> read_value(const std::string& name) {
  if (!::isatty(STDIN_FILENO)) return read_stdin();
  AW_TRY(auto first, read_hidden(fmt::format("value of {} (not shown): ", name).c_str()));
  AW_TRY(auto again, read_hidden("again, to confirm: "));
  if (first != again)
    return fail("the two values differ; nothing was stored, run the command again");
  return first;
}

int report(const Error& e, int code) {
  fmt::print(stderr, "awaywork secret: {}\n", e.message);
  return code;
}

}  // namespace

namespace {
int cmd_secret_set(const std::string& name, const std::vector<std::string>& extra) {
  if (!extra.empty()) {
    fmt::print(
        stderr,
        "awaywork secret set: takes only NAME; the value is read from stdin or a hidden prompt, "
        "never from the command line, where other processes and your shell history can see it.\n"
        "The extra argument was not used (and is not shown). If it was a real secret, treat it as "
        "exposed: rotate it and remove it from your shell history.\n"
        "Use: awaywork secret set NAME   (and type the value), or: printf %s \"$VALUE\" | awaywork "
        "secret set NAME\n");
    return kExitUsage;
  }
  if (auto ok = check_secret_name(name); !ok) return report(ok.error(), kExitUsage);
  auto value = read_value(name);
  if (!value) return report(value.error(), kExitFailed);
  if (auto ok = check_secret_value(*value); !ok) return report(ok.error(), kExitUsage);
  auto store = open_secret_store({});
  if (!store) return report(store.error(), kExitFailed);
  if (auto ok = (*store)->set(name, *value); !ok) return report(ok.error(), kExitFailed);
  fmt::print(stderr, "stored {} in {}\n", name, (*store)->backend());
  return kExitDone;
}

int cmd_secret_list(const GlobalOptions& g) {
  auto store = open_secret_store({});
  if (!store) return report(store.error(), kExitFailed);
  auto names = (*store)->names();
  if (!names) return report(names.error(), kExitFailed);
  if (g.json) {
    nlohmann::json j{{"backend", (*store)->backend()}, {"names", *names}};
    fmt::print("{}\n", json_text(j, 2));
    return kExitDone;
  }
  fmt::print("backend: {}\n", (*store)->backend());
  for (const auto& n : *names) fmt::print("{}\n", n);
  return kExitDone;
}

int cmd_secret_rm(const std::string& name) {
  if (auto ok = check_secret_name(name); !ok) return report(ok.error(), kExitUsage);
  auto store = open_secret_store({});
  if (!store) return report(store.error(), kExitFailed);
  if (auto ok = (*store)->remove(name); !ok) return report(ok.error(), kExitFailed);
  fmt::print(stderr, "removed {} from {}\n", name, (*store)->backend());
  return kExitDone;
}

}  // namespace

void add_secret_commands(CLI::App& app, GlobalOptions& g, std::optional<int>* exit_code) {
  auto* secret =
      app.add_subcommand("secret", "keep credentials in the secret store (values never on argv)");
  secret->require_subcommand(1);
  // Shared with the callbacks, which run after parse has filled them.
  auto name = std::make_shared<std::string>();
  auto* set =
      secret->add_subcommand("set", "store NAME; the value is read from stdin or a hidden prompt");
  set->add_option("name", *name, "secret name ([A-Za-z_][A-Za-z0-9_]*)")->required();
  // A value given as an argument is refused by us, without echoing it: extras stay here instead
  // of falling through to the top level (whose "not expected: VALUE" would print the secret).
  set->allow_extras();
  set->fallthrough(false);
  set->callback([set, name, exit_code] { *exit_code = cmd_secret_set(*name, set->remaining()); });
  auto* list =
      secret->add_subcommand("list", "list the secret names and the backend (never values)");
  list->add_flag("--json", g.json, "print JSON");
  list->callback([&g, exit_code] { *exit_code = cmd_secret_list(g); });
  auto* rm = secret->add_subcommand("rm", "remove NAME from the secret store");
  rm->add_option("name", *name, "secret name")->required();
  rm->callback([name, exit_code] { *exit_code = cmd_secret_rm(*name); });
}

}  // namespace aw
