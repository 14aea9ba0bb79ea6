// `awaywork doctor`: every prerequisite of the configured isolation, one line each, and for each
// that fails the exact command that fixes it. Each isolation adds its checks to a Registry.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace aw {

struct Check {
  std::string name;  // "worker user awaywork exists"
  bool ok = false;
  std::string detail;  // what was found ("shell is /bin/bash")
  std::string fix;     // the exact command(s) that fix it; empty when ok
};

// Check providers by isolation name ("none", "user", "container"). Built by the caller (the CLI),
// never global.
class Registry {
 public:
  using Provider = std::function<std::vector<Check>()>;
  void add(const std::string& isolation, Provider p);
  // Every check of the isolation, in the order the providers were added; unknown = none.
  std::vector<Check> run(const std::string& isolation) const;

 private:
  std::map<std::string, std::vector<Provider>> providers_;
};

// "✔ name (detail)" / "✖ name: detail" followed by "    fix: COMMAND" lines, and a summary.
std::string render(const std::vector<Check>& checks);
// {"ok": bool, "checks": [{"name","ok","detail","fix"}...]}
std::string render_json(const std::vector<Check>& checks);
bool all_ok(const std::vector<Check>& checks);

}  // namespace aw
