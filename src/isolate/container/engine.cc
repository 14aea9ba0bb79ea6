#include "isolate/container/engine.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <thread>

#include "base/gcc_quirks.h"
#include "isolate/container/container_launcher.h"
#include "proc/capture.h"

namespace aw {

namespace {

constexpr const char* kPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

std::vector<std::string> owner_client_env() {
  std::vector<std::string> env = {std::string("PATH=") + kPath};
  for (const char* name : {"HOME", "DOCKER_HOST", "DOCKER_API_VERSION", "DOCKER_CONFIG",
                           "DOCKER_CONTEXT", "CONTAINER_HOST", "XDG_RUNTIME_DIR"})
    if (const char* v = ::getenv(name)) env.push_back(std::string(name) + "=" + v);
  return env;
}

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Both clients say "no such container" / "No such object" when the name is unknown.
bool says_unknown(const EngineOutput& o) {
  std::string e = lower(o.err + o.out);
  return e.find("no such container") != std::string::npos ||
         e.find("no such object") != std::string::npos ||
         e.find("no container with name or id") != std::string::npos;
}

Result<Engine> try_engine(const std::string& what, std::chrono::milliseconds silence) {
  Engine e;
  e.silence = silence;
  e.client_env = owner_client_env();
  std::string name = what.substr(what.find_last_of('/') + 1);
  if (name == "docker")
    e.kind = EngineKind::docker;
  else if (name == "podman")
    e.kind = EngineKind::podman;
  else
    return fail("unknown container engine '{}' (docker or podman)", what);
  if (what.find('/') != std::string::npos) {
    if (::access(what.c_str(), X_OK) != 0) return fail("{} is not an executable", what);
    e.client = what;
  } else {
    AW_TRY(auto p, find_program(what, kPath));
    e.client = p;
  }
  // docker: the server's version proves the daemon answers; podman has no daemon to ask.
  std::vector<std::string> args =
      e.kind == EngineKind::docker
          ? std::vector<std::string>{"version", "--format", "{{.Server.Version}}"}
          : std::vector<std::string>{"info", "--format", "{{.Version.Version}}"};
  AW_TRY(auto o,
         engine_command(e, args,
                        std::min<std::chrono::milliseconds>(silence, std::chrono::seconds(10))));
  if (o.exit_code != 0 || trim(o.out).empty())
    return fail("{} does not answer: {}", e.client, trim(o.err.empty() ? o.out : o.err));
  e.version = trim(o.out);
  return e;
}

}  // namespace

const char* to_string(EngineKind k) {
  return k == EngineKind::docker ? "docker" : "podman";
}

Result<EngineOutput> engine_command(const Engine& e, const std::vector<std::string>& args,
                                    std::chrono::milliseconds deadline) {
  AW_TRY(auto timeout, find_program("timeout", kPath));
  CaptureSpec spec;
  spec.argv = {timeout, "--kill-after=2",
               fmt::format("{:.3f}", std::max<double>(0.1, deadline.count() / 1000.0)), e.client};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.env = e.client_env;
  AW_NO_WRESTRICT(spec.cwd = "/";)  // base/gcc_quirks.h
  AW_TRY(auto c, capture(spec));
  // timeout(1) exits 124 when it had to stop the client, 137 when it had to kill it.
  if (c.exit_code == 124 || c.exit_code == 137 || c.exit_code == -1)
    return fail("{} {} did not answer within {} ms", to_string(e.kind), args.empty() ? "" : args[0],
                deadline.count());
  return EngineOutput{c.exit_code, std::move(c.out), std::move(c.err)};
}

Result<Engine> find_engine(const std::string& preferred, std::chrono::milliseconds silence) {
  if (!preferred.empty()) return with_context(try_engine(preferred, silence), "container engine");
  std::string why;
  for (const char* name : {"docker", "podman"}) {
    auto e = try_engine(name, silence);
    if (e) return e;
    why += fmt::format("{}{}: {}", why.empty() ? "" : "; ", name, e.error().message);
  }
  return fail("no container engine answers ({})", why);
}

Status image_present(const Engine& e, const std::string& image) {
  AW_TRY(auto o, engine_command(e, {"image", "inspect", "--format", "{{.Id}}", image}, e.silence));
  if (o.exit_code != 0)
    return fail("image {} is not present in {}'s local store", image, to_string(e.kind));
  return {};
}

Status pull_image(const Engine& e, const std::string& image, std::chrono::seconds deadline) {
  auto o = engine_command(e, {"pull", image}, deadline);
  if (!o)
    return fail("{} pull {}: no registry answered within {} s; build or load the image locally",
                to_string(e.kind), image, deadline.count());
  if (o->exit_code != 0)
    return fail("{} pull {} failed (no registry reachable?): {}; build or load the image locally",
                to_string(e.kind), image, trim(o->err));
  return {};
}

Result<std::string> program_in_image(const Engine& e, const std::string& image,
                                     const std::string& program) {
  std::vector<std::string> args = {"run", "--rm", "--network", "none"};
  auto hard = hardening_args(e);
  args.insert(args.end(), hard.begin(), hard.end());
  args.insert(args.end(),
              {"--entrypoint", "/bin/sh", image, "-c", "command -v \"$1\"", "sh", program});
  AW_TRY(auto o, engine_command(e, args, std::chrono::seconds(60)));
  std::string where = trim(o.out);
  if (o.exit_code != 0 || where.empty())
    return fail("{} is not found in image {}{}", program, image,
                o.err.empty() ? "" : ": " + trim(o.err));
  return where;
}

Status remove_container(const Engine& e, const std::string& name) {
  return remove_container(e, name, e.silence);
}

Status remove_container(const Engine& e, const std::string& name,
                        std::chrono::milliseconds deadline) {
  using clock = std::chrono::steady_clock;
  auto end = clock::now() + deadline;
  auto left = [&] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(end - clock::now());
  };
  std::string last;
  auto known = [&]() -> Result<bool> {
    AW_TRY(
        auto in,
        engine_command(e, {"container", "inspect", "--format", "{{.State.Status}}", name}, left()));
    if (in.exit_code != 0 && says_unknown(in)) return false;
    last = in.exit_code == 0 ? "still " + trim(in.out) : trim(in.err);
    return true;
  };
  // The common case is a phase that ended by itself: `run --rm` has removed it already, and one
  // question proves it. Otherwise `rm -f` until the engine no longer knows the name (a removal
  // `--rm` started may be in progress concurrently).
  auto there = known();
  if (!there) return fail("remove container {}: {}", name, there.error().message);
  if (!*there) return {};
  while (left().count() > 0) {
    auto rm = engine_command(e, {"rm", "-f", name}, left());
    if (!rm) return fail("remove container {}: {}", name, rm.error().message);
    if (left().count() <= 0) break;
    there = known();
    if (!there) return fail("remove container {}: {}", name, there.error().message);
    if (!*there) return {};
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return fail("remove container {}: not gone after {} ms ({})", name, deadline.count(), last);
}

Result<std::vector<std::string>> containers_of_unit(const Engine& e, const std::string& unit) {
  std::string label = unit.empty() ? "awaywork.unit" : "awaywork.unit=" + unit;
  AW_TRY(auto o,
         engine_command(e, {"ps", "-a", "--filter", "label=" + label, "--format", "{{.Names}}"},
                        std::chrono::seconds(60)));
  if (o.exit_code != 0) return fail("{} ps: {}", to_string(e.kind), trim(o.err));
  std::vector<std::string> names;
  size_t start = 0;
  for (size_t nl; (nl = o.out.find('\n', start)) != std::string::npos; start = nl + 1)
    if (nl > start) names.push_back(o.out.substr(start, nl - start));
  if (start < o.out.size()) names.push_back(trim(o.out.substr(start)));
  return names;
}

}  // namespace aw
