// watch against the fake GitHub (tests/fakes/fake_github.py, a FAKE: GitHub cannot be reached
// here) with real git and the awaywork binary: the forge fixture's repository octo/web, a watch:
// section, and helpers to label, assign and comment as anyone and to read the event log.
#pragma once

#include "../forge/forge_fixture.h"

namespace aw::test {

class WatchTest : public ForgeTest {
 protected:
  std::string watch_keys = "  poll_seconds: 5\n  repos: {web: {}}\n";
  void SetUp() override;
  void write_watch_config();
  // watch --once --log FILE; the log's lines parsed.
  nlohmann::json watch_once(Captured* out = nullptr);
  void label(int64_t issue, const std::string& user, const std::string& name);
  // Events of the log named event (e.g. "trigger_refused").
  static std::vector<nlohmann::json> events(const nlohmann::json& log, const std::string& name);
  std::vector<std::string> labels_of(int64_t issue);
  int units_of(int64_t issue);
  std::string log_file;
};

}  // namespace aw::test
