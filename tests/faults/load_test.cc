// 16 units at once on this machine: 16 concurrent `awaywork run` processes of the real binary on
// one repository and one state folder, under isolation none with the sandbox, each agent doing
// real git work (edit, commit) and probing what it can see: all end `done`, and no probe saw
// another unit's folders (clone, HOME, run folder) or processes.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "unit_fixture.h"

namespace aw::test {
namespace {

namespace fs = std::filesystem;
constexpr int kUnits = 16;

class Load : public UnitTest {};

TEST_F(Load, SixteenSandboxedUnitsAtOnceAllFinishAndNoneSeesAnother) {
  if (::geteuid() != 0) {
    const char* ci = std::getenv("CI");
    if (ci && std::string(ci) == "true") FAIL() << "needs root (the sandbox's cgroup limits)";
    GTEST_SKIP() << "needs root (the sandbox's cgroup limits)";
  }
  make_repo({{"a.txt", "a\n"}, {"b.txt", "b\n"}});
  std::string runs = root + "/state/runs";
  // The probe: every process it can see (the pid namespace), the state folder's units, HOME's
  // neighbours; then real git work in the clone.
  std::string agent = agent_script("agent", R"(
o="$AWAYWORK_OUTPUTS"
for p in /proc/[0-9]*; do printf '%s: ' "${p#/proc/}"; tr '\0' ' ' < "$p/cmdline" 2>/dev/null; echo; done > "$o/procs"
ls -a ")" + runs + R"(" > "$o/runs" 2>&1 || echo "runs: not visible" >> "$o/runs"
ls -a "$HOME/.." > "$o/homes" 2>&1 || echo "homes: not visible" >> "$o/homes"
echo "$AWAYWORK_UNIT" >> a.txt
printf 'new %s\n' "$AWAYWORK_UNIT" > "n-$AWAYWORK_UNIT.txt"
git add -A && git -c user.name=agent -c user.email=agent@example.invalid commit -qm "unit work"
echo more >> b.txt
)");
  write_config(agent, "", "sandbox: {mode: required}\n");
  std::vector<pid_t> pids;
  for (int i = 0; i < kUnits; ++i)
    pids.push_back(start_run_in_background("unit " + std::to_string(i)));
  for (pid_t p : pids) {
    int status = 0;
    ASSERT_EQ(::waitpid(p, &status, 0), p);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "awaywork run exited " << status;
  }
  std::vector<std::string> ids;
  for (const auto& e : fs::directory_iterator(runs)) ids.push_back(e.path().filename().string());
  ASSERT_EQ(ids.size(), static_cast<size_t>(kUnits));
  std::map<std::string, std::string> prompts;
  for (const auto& id : ids) {
    auto u = nlohmann::json::parse(read(runs + "/" + id + "/summary.json"), nullptr, false);
    ASSERT_FALSE(u.is_discarded()) << id;
    prompts[id] = u.value("prompt", "");
  }
  for (const auto& id : ids) {
    auto u = nlohmann::json::parse(read(runs + "/" + id + "/summary.json"), nullptr, false);
    EXPECT_EQ(u.value("state", ""), "done") << u.dump(2);
    std::string patch = read(runs + "/" + id + "/patch.diff");
    EXPECT_NE(patch.find("+new " + id), std::string::npos) << id << ": " << patch;
    EXPECT_NE(patch.find("+more"), std::string::npos) << id;
    std::string out = runs + "/" + id + "/outputs/";
    std::string procs = read(out + "procs"), seen = read(out + "runs"), homes = read(out + "homes");
    ASSERT_FALSE(procs.empty()) << id << ": the probe did not run";
    // Its own pid namespace: a handful of processes, none of them awaywork or another unit's.
    size_t lines = std::count(procs.begin(), procs.end(), '\n');
    EXPECT_LT(lines, 12u) << id << " saw:\n" << procs;
    // pid 1 is the sandbox's init (awaywork's own launcher, with its unit's argv): no other
    // unit's `awaywork run` may be there.
    for (const auto& other : ids) {
      if (other == id) continue;
      std::string other_prompt = "--prompt " + prompts[other] + " ";
      EXPECT_EQ(procs.find(other_prompt), std::string::npos) << id << " saw:\n" << procs;
      EXPECT_EQ(procs.find(other), std::string::npos) << id << " saw " << other << ":\n" << procs;
      EXPECT_EQ(seen.find(other), std::string::npos) << id << " saw " << other << ":\n" << seen;
      EXPECT_EQ(homes.find(other), std::string::npos) << id << " saw " << other << ":\n" << homes;
    }
    RecordProperty(id + "_procs", std::to_string(lines));
    std::printf("%s saw %zu process(es); runs: %s; homes: %s\n", id.c_str(), lines,
                seen.substr(0, seen.find('\n')).c_str(), homes.substr(0, 60).c_str());
  }
}

}  // namespace
}  // namespace aw::test
