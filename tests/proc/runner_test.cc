// run_phase as its callers see it: ends, stdin, output, environment, timeout and cancel.
#include <signal.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "helpers.h"

namespace aw {
namespace {

using test::run;
using test::sh;

TEST(ProcRunPhase, ReportsExitCodes) {
  auto a = run(sh("exit 3"));
  EXPECT_EQ(a.r.end, PhaseEnd::exited);
  EXPECT_EQ(a.r.exit_code, 3);
  EXPECT_EQ(describe(a.r), "exit 3");
  auto b = run(sh("true"));
  EXPECT_EQ(b.r.end, PhaseEnd::exited);
  EXPECT_EQ(b.r.exit_code, 0);
  EXPECT_TRUE(b.r.verified_empty);
  EXPECT_EQ(b.r.leftovers_killed, 0);
}

TEST(ProcRunPhase, ReportsTheSignalThatKilledTheMainProcess) {
  auto a = run(sh("kill -KILL $$"));
  EXPECT_EQ(a.r.end, PhaseEnd::signaled);
  EXPECT_EQ(a.r.signal, SIGKILL);
  EXPECT_EQ(describe(a.r), "killed by SIGKILL");
}

TEST(ProcRunPhase, MissingProgramFailsToStartAndTheMessageNamesIt) {
  PhaseSpec s = sh("");
  s.argv = {"no-such-program-4711", "x"};
  auto a = run(s);
  EXPECT_EQ(a.r.end, PhaseEnd::failed_to_start);
  EXPECT_NE(a.r.start_error.find("no-such-program-4711"), std::string::npos) << a.r.start_error;
  EXPECT_NE(describe(a.r).find("no-such-program-4711"), std::string::npos);
}

TEST(ProcRunPhase, ExecFailureComesBackWithTheErrnoText) {
  char dir[] = "/tmp/aw-proc-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  std::string prog = std::string(dir) + "/garbage";
  std::ofstream(prog) << "\x7f\x01\x02 not a program";
  ::chmod(prog.c_str(), 0755);
  PhaseSpec s = sh("");
  s.argv = {prog};
  auto a = run(s);
  EXPECT_EQ(a.r.end, PhaseEnd::failed_to_start);
  EXPECT_NE(a.r.start_error.find("exec " + prog), std::string::npos) << a.r.start_error;
  EXPECT_NE(a.r.start_error.find("Exec format error"), std::string::npos) << a.r.start_error;
  EXPECT_TRUE(a.r.verified_empty);
  ::unlink(prog.c_str());
  ::rmdir(dir);
}

TEST(ProcRunPhase, MissingWorkingFolderFailsToStartNamingIt) {
  PhaseSpec s = sh("true");
  s.cwd = "/nonexistent-aw-folder";
  auto a = run(s);
  EXPECT_EQ(a.r.end, PhaseEnd::failed_to_start);
  EXPECT_NE(a.r.start_error.find("chdir /nonexistent-aw-folder"), std::string::npos)
      << a.r.start_error;
}

TEST(ProcRunPhase, RunsInTheGivenWorkingFolder) {
  PhaseSpec s = sh("pwd");
  s.cwd = "/usr";
  EXPECT_EQ(run(s).out, "/usr\n");
}

TEST(ProcRunPhase, StdinDataArrivesThenStdinIsClosed) {
  PhaseSpec s = sh("cat; echo; echo after-eof");
  s.stdin_data = "the prompt\nline two";
  auto a = run(s);
  EXPECT_EQ(a.out, "the prompt\nline two\nafter-eof\n");
  EXPECT_EQ(a.r.exit_code, 0);
}

TEST(ProcRunPhase, NoStdinDataMeansDevNull) {
  auto a = run(sh("wc -c; readlink /proc/self/fd/0"));
  EXPECT_EQ(a.out, "0\n/dev/null\n");
}

TEST(ProcRunPhase, APhaseThatClosesStdinDoesNotKillAwayworkWithSigpipe) {
  PhaseSpec s = sh("exec 0<&-; exit 7");
  s.stdin_data = std::string(4 << 20, 'x');
  auto a = run(s);  // we are still alive: no SIGPIPE reached this process
  EXPECT_EQ(a.r.exit_code, 7);
}

TEST(ProcRunPhase, EveryByteOfTenMegabytesArrivesInOrderWithStreamsSeparated) {
  char dir[] = "/tmp/aw-proc-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  std::string a_path = std::string(dir) + "/a", b_path = std::string(dir) + "/b";
  std::string a, b;
  for (int i = 0; a.size() < (5u << 20); ++i) a += std::to_string(i) + (i % 7 ? " " : "\n");
  for (int i = 0; b.size() < (1u << 20); ++i) b += "err" + std::to_string(i) + "\n";
  std::ofstream(a_path) << a;
  std::ofstream(b_path) << b;
  auto r = run(sh("cat " + a_path + "; cat " + b_path + " >&2; cat " + a_path));
  EXPECT_EQ(r.out.size(), 2 * a.size());
  EXPECT_TRUE(r.out == a + a);
  EXPECT_TRUE(r.err == b);
  ::unlink(a_path.c_str());
  ::unlink(b_path.c_str());
  ::rmdir(dir);
}

TEST(ProcRunPhase, OutputHookRunsOnTheCallingThread) {
  PhaseSpec s = sh("echo hi; echo there >&2");
  std::thread::id seen;
  int calls = 0;
  s.on_output = [&](Stream, std::string_view) {
    seen = std::this_thread::get_id();
    ++calls;
  };
  ASSERT_TRUE(run_phase(s));
  EXPECT_GT(calls, 0);
  EXPECT_EQ(seen, std::this_thread::get_id());
}

TEST(ProcRunPhase, OnStartGetsTheMainProcessPid) {
  PhaseSpec s = sh("echo $$");
  pid_t started = 0;
  std::string out;
  s.on_start = [&](pid_t p) { started = p; };
  s.on_output = [&](Stream, std::string_view d) { out += d; };
  ASSERT_TRUE(run_phase(s));
  EXPECT_EQ(out, std::to_string(started) + "\n");
}

TEST(ProcRunPhase, MainProcessLeadsItsOwnProcessGroup) {
  auto a = run(sh("ps -o pgid= -p $$ | tr -d ' '; echo $$"));
  auto nl = a.out.find('\n');
  ASSERT_NE(nl, std::string::npos);
  EXPECT_EQ(a.out.substr(0, nl + 1), a.out.substr(nl + 1));
}

TEST(ProcRunPhase, EnvironmentIsExactlyWhatBuildEnvMade) {
  ::setenv("AW_TEST_CANARY", "must-not-leak", 1);
  PhaseSpec s = sh("");
  s.env = build_env(environ, {}, {{"AWAYWORK_UNIT", "u1"}});
  s.argv = {"env", "-0"};
  auto a = run(s);
  ::unsetenv("AW_TEST_CANARY");
  std::vector<std::string> got;
  for (size_t pos = 0; pos < a.out.size();) {
    size_t z = a.out.find('\0', pos);
    got.push_back(a.out.substr(pos, z - pos));
    pos = z + 1;
  }
  EXPECT_EQ(got, s.env);
  EXPECT_EQ(a.out.find("AW_TEST_CANARY"), std::string::npos);
  EXPECT_NE(a.out.find("AWAYWORK_UNIT=u1"), std::string::npos);
}

TEST(ProcRunPhase, TimeoutIgnoringSigtermEndsTimedOutAndDiesBySigkillAfterGrace) {
  PhaseSpec s = sh("trap '' TERM; echo ready; while :; do sleep 0.05; done");
  s.timeout = std::chrono::milliseconds(300);
  s.grace = std::chrono::milliseconds(300);
  auto a = run(s);
  EXPECT_EQ(a.out, "ready\n");
  EXPECT_EQ(a.r.end, PhaseEnd::timed_out);
  EXPECT_EQ(a.r.signal, SIGKILL);
  EXPECT_TRUE(a.r.verified_empty);
  EXPECT_NE(describe(a.r).find("timed out after"), std::string::npos);
  EXPECT_NE(describe(a.r).find("SIGKILL"), std::string::npos);
}

TEST(ProcRunPhase, TimeoutEndsAProcessThatHeedsSigtermWithSigterm) {
  PhaseSpec s = sh("exec sleep 600");
  s.timeout = std::chrono::milliseconds(200);
  s.grace = std::chrono::seconds(60);
  auto a = run(s);
  EXPECT_EQ(a.r.end, PhaseEnd::timed_out);
  EXPECT_EQ(a.r.signal, SIGTERM);
}

TEST(ProcRunPhase, CancelledCallbackStopsThePhase) {
  PhaseSpec s = sh("echo ready; sleep 600; echo not-reached");
  std::atomic<bool> ready{false};
  std::string out;
  s.on_output = [&](Stream, std::string_view d) {
    out += d;
    if (out.find("ready") != std::string::npos) ready = true;
  };
  s.cancelled = [&] { return ready.load(); };
  auto r = run_phase(s);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->end, PhaseEnd::cancelled);
  EXPECT_EQ(out, "ready\n");
  EXPECT_TRUE(r->verified_empty);
  EXPECT_NE(describe(*r).find("cancelled"), std::string::npos);
}

// Issue 25 item 4: the transcript's redactor holds a chunk's last bytes, and only more output
// released them ("...a whi", then "le" seconds later). on_quiet comes once the phase has been
// silent for quiet_after, once per pause, for the redactor to write that tail.
TEST(ProcRunPhase, OnQuietComesOnceAfterEachPauseInTheOutput) {
  using Clock = std::chrono::steady_clock;
  PhaseSpec s = sh("printf 'a while'; sleep 2; printf ' more'; sleep 2; echo ' done'");
  std::string out;
  std::vector<std::string> at_quiet;  // the output so far, at each on_quiet
  std::vector<int64_t> silent_ms;     // how long after the last output each came
  Clock::time_point last = Clock::now();
  s.on_output = [&](Stream, std::string_view d) {
    out += d;
    last = Clock::now();
  };
  s.on_quiet = [&] {
    at_quiet.push_back(out);
    silent_ms.push_back(
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - last).count());
  };
  auto r = run_phase(s);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->end, PhaseEnd::exited) << describe(*r);
  EXPECT_EQ(out, "a while more done\n");
  // Two pauses; a third on_quiet may come after "done" while the keeper proves the tree empty.
  ASSERT_GE(at_quiet.size(), 2u);
  ASSERT_LE(at_quiet.size(), 3u);
  EXPECT_EQ(at_quiet[0], "a while") << "once, in the first pause (not again without output)";
  EXPECT_EQ(at_quiet[1], "a while more");
  for (int64_t ms : silent_ms) {
    EXPECT_GE(ms, 190) << "not before quiet_after (200 ms) of silence";
    EXPECT_LT(ms, 1900) << "within the pause, not only when output resumed";
  }
}

TEST(ProcRunPhase, NoOnQuietForAPhaseThatPrintsNothing) {
  PhaseSpec s = sh("sleep 0.6");
  int quiet = 0;
  s.on_quiet = [&] { ++quiet; };
  auto a = run(s);
  EXPECT_EQ(a.r.end, PhaseEnd::exited);
  EXPECT_EQ(quiet, 0) << "nothing held back, nothing to write";
}

TEST(ProcRunPhase, AHookThatThrowsStopsThePhaseAndIsAnError) {
  std::string m = test::marker();
  PhaseSpec s = sh("echo hi; sleep " + m);
  s.on_output = [](Stream, std::string_view) { throw std::runtime_error("redactor broke"); };
  auto r = run_phase(s);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("redactor broke"), std::string::npos) << r.error().message;
  EXPECT_TRUE(test::processes_with(m).empty());
}

TEST(ProcRunPhase, SigtermToTheKeeperCancelsThePhase) {
  PhaseSpec s = sh("echo ready; sleep 600");
  pid_t main = 0;
  s.on_start = [&](pid_t p) { main = p; };
  bool sent = false;
  // Polled on the calling thread after on_start (which may come after the first output).
  s.cancelled = [&] {
    pid_t keeper = main > 0 ? test::parent_of(main) : 0;
    if (!sent && keeper > 1 && keeper != ::getpid()) sent = ::kill(keeper, SIGTERM) == 0;
    return false;
  };
  auto r = run_phase(s);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(sent);
  EXPECT_EQ(r->end, PhaseEnd::cancelled);
  EXPECT_TRUE(r->verified_empty);
}

// A launcher of another room (the sandbox) gets the request and the fds it asked to keep.
TEST(ProcRunPhase, CustomLauncherGetsTheRequestAndItsInheritedFds) {
  int side[2];
  ASSERT_EQ(::pipe2(side, O_CLOEXEC), 0);
  PhaseSpec s = sh("");
  s.argv = {"/bin/sh", "-c", "echo custom; cat"};
  s.stdin_data = "in";
  s.inherit_fds = {side[1]};
  s.launcher = [fd = side[1]](const ExecRequest& req) -> Result<pid_t> {
    std::string note = req.argv[2] + "|" + std::to_string(req.env.size()) + "|" + req.cgroup_dir;
    if (::write(fd, note.data(), note.size()) < 0) return fail("write");
    pid_t pid = ::fork();
    if (pid == 0) {
      ::dup2(req.stdin_fd, 0);
      ::dup2(req.stdout_fd, 1);
      ::dup2(req.stderr_fd, 2);
      sigset_t none;
      sigemptyset(&none);
      ::sigprocmask(SIG_SETMASK, &none, nullptr);
      std::vector<char*> argv, env;
      for (auto& a : req.argv) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      for (auto& e : req.env) env.push_back(const_cast<char*>(e.c_str()));
      env.push_back(nullptr);
      ::execve(argv[0], argv.data(), env.data());
      ::_exit(127);
    }
    return pid;
  };
  auto a = run(s);
  ::close(side[1]);
  std::string note(4096, '\0');
  note.resize(static_cast<size_t>(std::max<ssize_t>(0, ::read(side[0], note.data(), note.size()))));
  ::close(side[0]);
  EXPECT_EQ(a.r.end, PhaseEnd::exited);
  EXPECT_EQ(a.out, "custom\nin");
  EXPECT_EQ(note.substr(0, note.find('|', note.find('|') + 1)),
            "echo custom; cat|" + std::to_string(s.env.size()));
  if (::geteuid() == 0) {
    EXPECT_NE(note.find("|/sys/fs/cgroup/unified/awaywork/test-"), std::string::npos) << note;
  }
}

TEST(ProcRunPhase, ALauncherErrorIsAFailureToStart) {
  PhaseSpec s = sh("true");
  s.launcher = [](const ExecRequest&) -> Result<pid_t> { return fail("no user namespaces"); };
  auto a = run(s);
  EXPECT_EQ(a.r.end, PhaseEnd::failed_to_start);
  EXPECT_EQ(a.r.start_error, "no user namespaces");
  EXPECT_TRUE(a.r.verified_empty);
}

// A keeper forked while another phase runs must not hold that phase's pipes open: phase B's stdin
// would never reach EOF while phase A lives.
TEST(ProcRunPhase, ConcurrentPhasesDoNotHoldEachOthersPipes) {
  char dir[] = "/tmp/aw-proc-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  std::string flag = std::string(dir) + "/go";
  PhaseSpec b = sh("while [ ! -e " + flag + " ]; do sleep 0.01; done; wc -c");
  b.stdin_data = std::string(1 << 20, 'b');
  b.timeout = std::chrono::seconds(20);
  std::atomic<bool> b_started{false}, a_started{false}, stop_a{false};
  b.on_start = [&](pid_t) { b_started = true; };
  test::Run rb;
  std::thread tb([&] { rb = run(b); });
  while (!b_started) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  PhaseSpec a = sh("sleep 600");
  a.on_start = [&](pid_t) { a_started = true; };
  a.cancelled = [&] { return stop_a.load(); };
  test::Run ra;
  std::thread ta([&] { ra = run(a); });
  while (!a_started) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::ofstream(flag) << "";
  tb.join();
  stop_a = true;
  ta.join();
  EXPECT_EQ(rb.r.end, PhaseEnd::exited) << describe(rb.r);
  EXPECT_EQ(rb.out, std::to_string(1 << 20) + "\n");
  EXPECT_EQ(ra.r.end, PhaseEnd::cancelled);
  ::unlink(flag.c_str());
  ::rmdir(dir);
}

TEST(ProcDescribe, SaysHowThePhaseEnded) {
  PhaseResult r;
  r.end = PhaseEnd::exited;
  r.exit_code = 0;
  EXPECT_EQ(describe(r), "exit 0");
  r.end = PhaseEnd::signaled;
  r.signal = SIGSEGV;
  EXPECT_EQ(describe(r), "killed by SIGSEGV");
  r.end = PhaseEnd::timed_out;
  r.signal = 0;
  r.duration = std::chrono::seconds(60);
  EXPECT_EQ(describe(r), "timed out after 60 s");
  r.end = PhaseEnd::failed_to_start;
  r.start_error = "exec /x: Permission denied";
  EXPECT_EQ(describe(r), "failed to start: exec /x: Permission denied");
}

}  // namespace
}  // namespace aw
