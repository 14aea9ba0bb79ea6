// doctor and run see what the worker will see: an agent program under the owner's closed home is a
// ✖ in doctor with the fix, and `run` refuses before any phase with the same message.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "../isolate/user/user_fixture.h"
#include "unit_fixture.h"
#include "user_pipeline.h"

namespace aw::test {
namespace {

TEST_F(UserPipeline, AnAgentUnderTheOwnersClosedHomeIsAFailingDoctorCheckAndARefusedRun) {
  AW_NEED_USERS(u);
  world(*u, {{"a.txt", "x\n"}});
  std::string dir = u->owner_home + "/aw-test-agents";
  std::string agent = dir + "/agent";
  std::string marker = root + "/agent-ran";
  ASSERT_EQ(sh(fmt::format("mkdir -p {0} && printf '#!/bin/sh\\ntouch {2}\\n' > {1} && chmod 755 "
                           "{1} && chown -R {3}: {0}",
                           dir, agent, marker, u->owner)),
            0);
  configure(agent);
  auto doc = owner_awaywork({"doctor", "--json"});
  ASSERT_TRUE(doc.record.is_object()) << doc.out << doc.err;
  bool found = false;
  for (const auto& c : doc.record["checks"]) {
    std::string name = c["name"];
    if (name.find("can run " + agent) == std::string::npos) continue;
    found = true;
    EXPECT_FALSE(c["ok"].get<bool>()) << c.dump();
    EXPECT_NE(c["detail"].get<std::string>().find("not runnable by worker"), std::string::npos)
        << c.dump();
    EXPECT_NE(c["fix"].get<std::string>().find("system-wide"), std::string::npos) << c.dump();
  }
  EXPECT_TRUE(found) << doc.out;
  EXPECT_EQ(doc.exit_code, 1);

  auto r = run_as_owner("must not start");
  EXPECT_EQ(r.record["state"], "failed") << r.out << r.err;
  std::string reason = r.record.value("reason", "");
  EXPECT_NE(reason.find("worker " + std::string(kWorker) + " cannot run what the unit needs"),
            std::string::npos)
      << reason;
  EXPECT_NE(reason.find(agent + " is not runnable by worker"), std::string::npos) << reason;
  EXPECT_NE(reason.find("system-wide"), std::string::npos) << reason;
  EXPECT_TRUE(r.record["phases"].empty()) << r.out;
  EXPECT_FALSE(exists(marker));
  std::filesystem::remove_all(dir);
  if (r.record.contains("run_dir"))
    if (auto w = locations(r); w.is_object() && w.contains("clone"))
      std::filesystem::remove_all(
          std::filesystem::path(w["clone"].get<std::string>()).parent_path());
}

}  // namespace
}  // namespace aw::test
