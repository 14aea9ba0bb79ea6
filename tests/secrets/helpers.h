// Shared by the secrets tests: a private temporary folder, environment overrides restored after
// the test, and running a program with given stdin and environment (outputs captured in files, so
// a daemon that keeps a descriptor cannot hang us on a pipe).
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace aw::test {

inline bool ci() {
  const char* v = std::getenv("CI");
  return v && std::string(v) == "true";
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void spit(const std::string& path, const std::string& data, mode_t mode) {
  { std::ofstream(path, std::ios::binary | std::ios::trunc) << data; }
  ::chmod(path.c_str(), mode);
}

inline mode_t mode_of(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return 0;
  return st.st_mode & 07777;
}

struct TempDir {
  std::string path;
  TempDir() {
    std::string t = "/tmp/aw-secrets-test-XXXXXX";
    path = ::mkdtemp(t.data());
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

class EnvGuard {
 public:
  void set(const std::string& name, const char* value) {
    if (!saved_.count(name)) {
      const char* old = std::getenv(name.c_str());
      saved_[name] = old ? std::optional<std::string>(old) : std::nullopt;
    }
    if (value)
      ::setenv(name.c_str(), value, 1);
    else
      ::unsetenv(name.c_str());
  }
  ~EnvGuard() {
    for (const auto& [name, old] : saved_) {
      if (old)
        ::setenv(name.c_str(), old->c_str(), 1);
      else
        ::unsetenv(name.c_str());
    }
  }

 private:
  std::map<std::string, std::optional<std::string>> saved_;
};

struct Ran {
  int code = -1;
  std::string out, err;
};

// Runs argv with stdin from `input` in folder `scratch`; env entries with a nullopt are removed.
inline Ran run(const std::vector<std::string>& argv, const std::string& input,
               const std::string& scratch,
               const std::map<std::string, std::optional<std::string>>& env = {}) {
  std::string in = scratch + "/.stdin", out = scratch + "/.stdout", err = scratch + "/.stderr";
  spit(in, input, 0600);
  pid_t pid = ::fork();
  if (pid == 0) {
    for (const auto& [k, v] : env) v ? ::setenv(k.c_str(), v->c_str(), 1) : ::unsetenv(k.c_str());
    int i = ::open(in.c_str(), O_RDONLY),
        o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600),
        e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(i, 0);
    ::dup2(o, 1);
    ::dup2(e, 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  Ran r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out);
  r.err = slurp(err);
  ::unlink(in.c_str());
  ::unlink(out.c_str());
  ::unlink(err.c_str());
  return r;
}

inline bool on_path(const std::string& prog) {
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(ss, dir, ':'))
    if (::access((dir + "/" + prog).c_str(), X_OK) == 0) return true;
  return false;
}

}  // namespace aw::test
