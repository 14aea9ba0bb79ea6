// Ctrl-C and crashes: an interrupted unit's processes die and its record says interrupted; a
// record left `running` by a dead awaywork is marked interrupted at the next start.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "unit_fixture.h"

namespace aw::test {
namespace {

class Signals : public UnitTest {
 protected:
  // The agent runs sandboxed, where the test's /tmp folder is private: it shows it has started
  // by the processes the test can see from outside.
  bool wait_for_process(const std::string& needle) {
    for (int i = 0; i < 300; ++i) {
      if (process_alive_with(needle)) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }
};

TEST_F(Signals, CtrlCKillsTheUnitsProcessesAndRecordsInterrupted) {
  make_repo({{"a.txt", "x\n"}});
  write_config(agent_script("wait", "sleep 615.5 &\nsleep 616.5"));
  pid_t pid = start_run_in_background("wait for ctrl-c");
  ASSERT_TRUE(wait_for_process("615.5") && wait_for_process("616.5"));
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  EXPECT_FALSE(process_alive_with("615.5"));
  EXPECT_FALSE(process_alive_with("616.5"));
  auto list = awaywork({"units", "--json"});
  ASSERT_EQ(list.record.size(), 1u) << list.out;
  EXPECT_EQ(list.record[0]["state"], "interrupted");
  EXPECT_NE(list.record[0]["reason"].get<std::string>().find("agent"), std::string::npos);
}

// The dashboard names the running phase and times it from the record (issue 25): the record holds
// the phase while it runs, and none once the unit ended.
TEST_F(Signals, TheRecordNamesTheRunningPhaseUntilTheUnitEnds) {
  make_repo({{"a.txt", "x\n"}});
  write_config(agent_script("wait", "sleep 619.5"));
  pid_t pid = start_run_in_background("name the phase");
  ASSERT_TRUE(wait_for_process("619.5"));
  auto list = awaywork({"units", "--json"});
  ASSERT_EQ(list.record.size(), 1u) << list.out;
  nlohmann::json now = list.record[0]["current_phase"];
  ASSERT_TRUE(now.is_object()) << list.out;
  EXPECT_EQ(now["name"], "agent");
  EXPECT_TRUE(now["argv"].is_array() && !now["argv"].empty()) << now.dump();
  EXPECT_EQ(now["started_at"].get<std::string>().size(), 24u) << now.dump();  // ISO 8601, ms
  kill(pid, SIGINT);
  waitpid(pid, nullptr, 0);
  list = awaywork({"units", "--json"});
  ASSERT_EQ(list.record.size(), 1u) << list.out;
  EXPECT_TRUE(list.record[0]["current_phase"].is_null()) << list.out;
  ASSERT_EQ(list.record[0]["phases"].size(), 1u) << list.out;
  EXPECT_EQ(list.record[0]["phases"][0]["started_at"], now["started_at"]);
}

TEST_F(Signals, ARecordLeftRunningByACrashIsMarkedInterruptedAtTheNextStart) {
  make_repo({{"a.txt", "x\n"}});
  write_config(agent_script("wait", "sleep 617.5"));
  pid_t pid = start_run_in_background("crash");
  ASSERT_TRUE(wait_for_process("617.5"));
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  auto list = awaywork({"units", "--json"});
  ASSERT_EQ(list.record.size(), 1u) << list.out;
  EXPECT_EQ(list.record[0]["state"], "interrupted");
  EXPECT_NE(list.record[0]["reason"].get<std::string>().find("crash"), std::string::npos);
  // The agent was a child of awaywork's keeper, which dies with awaywork and takes it along.
  for (int i = 0; i < 100 && process_alive_with("617.5"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(process_alive_with("617.5"));
}

}  // namespace
}  // namespace aw::test
