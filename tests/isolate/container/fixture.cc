#include "fixture.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "base/fs.h"
#include "proc/capture.h"

namespace aw::test {

namespace {

std::string run_script(const char* name, bool* ok, const char* arg = nullptr) {
  CaptureSpec spec;
  spec.argv = {std::string(AW_SOURCE_DIR) + "/scripts/" + name};
  if (arg) spec.argv.push_back(arg);
  spec.env = {"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"};
  auto c = capture(spec);
  *ok = c && c->exit_code == 0;
  return c ? c->out + c->err : c.error().message;
}

struct Setup {
  std::optional<Engine> engine;
  std::string why;
  Setup() {
    bool ok = false;
    std::string log = run_script("engine-up", &ok);
    if (!ok) {
      why = "scripts/engine-up: " + log;
      return;
    }
    // Built before the tests by scripts/test; a test only checks that it is there.
    log = run_script("test-image", &ok, "--check");
    if (!ok) {
      why = "scripts/test-image: " + log;
      return;
    }
    const char* pref = ::getenv("AW_CONTAINER_ENGINE");
    auto e = find_engine(pref ? pref : "docker");
    if (!e) {
      why = e.error().message;
      return;
    }
    engine = *e;
  }
};

}  // namespace

bool under_ci() {
  const char* ci = ::getenv("CI");
  return ci && std::string(ci) == "true";
}

const Engine* test_engine(std::string* why) {
  static Setup s;  // once per test binary
  if (!s.engine) *why = s.why;
  return s.engine ? &*s.engine : nullptr;
}

Scratch::Scratch() {
  char tmpl[] = "/tmp/aw-container-test-XXXXXX";
  root = ::mkdtemp(tmpl);
  clone = root + "/work";
  plugin = root + "/plugin";
  ::mkdir(clone.c_str(), 0755);
  ::mkdir(plugin.c_str(), 0755);
  (void)write_file(plugin + "/plugin.txt", "plugin\n", 0644);
  (void)write_file(clone + "/README", "the clone\n", 0644);
  // As root, the container user is a plain uid (root without capabilities is still uid 0, and
  // sudo would have nothing to refuse); otherwise ourselves.
  uid = ::geteuid() == 0 ? 4242 : ::geteuid();
  gid = ::geteuid() == 0 ? 4242 : ::getegid();
  if (::geteuid() == 0) {
    (void)!::chown(clone.c_str(), uid, gid);
    (void)!::chown((clone + "/README").c_str(), uid, gid);
  }
}

Scratch::~Scratch() {
  (void)remove_tree(root);
}

ContainerPlan plan_for(const Engine& e, const Scratch& s) {
  ContainerPlan p;
  p.engine = e;
  p.image = kImage;
  p.clone = s.clone;
  p.plugin_dir = s.plugin;
  p.uid = s.uid;
  p.gid = s.gid;
  p.unit = "test-unit";
  p.placeholders = {{"AWAYWORK_UNIT", "test-unit"}, {"AWAYWORK_PHASE", "agent"}};
  p.memory_bytes = 512ull << 20;
  p.pids = 64;
  auto home = prepare_home(s.clone);
  if (home && ::geteuid() == 0) {
    (void)!::chown((s.clone + "/.away").c_str(), s.uid, s.gid);
    (void)!::chown(home->c_str(), s.uid, s.gid);
  }
  return p;
}

std::string unique_name(const char* what) {
  static int n = 0;
  return fmt::format("aw-test-{}-{}-{}", what, ::getpid(), ++n);
}

pid_t start_phase(const ContainerPlan& plan, const std::string& name,
                  const std::vector<std::string>& argv, const std::vector<std::string>& env,
                  int* out_fd, int* err_fd) {
  int o[2], e[2];
  if (::pipe2(o, O_CLOEXEC) != 0 || ::pipe2(e, O_CLOEXEC) != 0) return -1;
  int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ExecRequest req;
  req.argv = argv;
  req.env = env;
  req.cwd = plan.clone;
  req.stdin_fd = null;
  req.stdout_fd = o[1];
  req.stderr_fd = e[1];
  auto launcher = make_container_launcher(plan, name);
  pid_t pid = -1;
  if (launcher) {
    auto r = (*launcher)(req);
    if (r) pid = *r;
  }
  ::close(null);
  ::close(o[1]);
  ::close(e[1]);
  *out_fd = o[0];
  *err_fd = e[0];
  return pid;
}

static std::string drain(int fd) {
  std::string s;
  char buf[4096];
  for (ssize_t k; (k = ::read(fd, buf, sizeof buf)) > 0;) s.append(buf, static_cast<size_t>(k));
  ::close(fd);
  return s;
}

Ran run_phase_in(const ContainerPlan& plan, const std::vector<std::string>& argv,
                 const std::vector<std::string>& env) {
  Ran r;
  std::string name = unique_name("phase");
  int out = -1, err = -1;
  pid_t pid = start_phase(plan, name, argv, env, &out, &err);
  if (pid < 0) {
    r.err = "launcher failed";
    return r;
  }
  // Outputs are small: reading one pipe to its end, then the other, cannot deadlock here.
  r.out = drain(out);
  r.err = drain(err);
  ::waitpid(pid, &r.status, 0);
  auto gone = remove_container(plan.engine, name);
  if (!gone) r.err += "\nremove_container: " + gone.error().message;
  return r;
}

int exit_code(const Ran& r) {
  return WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1;
}

std::vector<std::string> host_cmdlines() {
  std::vector<std::string> out;
  DIR* d = ::opendir("/proc");
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    std::ifstream f(std::string("/proc/") + e->d_name + "/cmdline", std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    std::string s = ss.str();
    for (auto& c : s)
      if (c == '\0') c = ' ';
    if (!s.empty()) out.push_back(s);
  }
  ::closedir(d);
  return out;
}

}  // namespace aw::test
