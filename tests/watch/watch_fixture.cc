#include "watch_fixture.h"

#include "event_lines.h"

namespace aw::test {

void WatchTest::SetUp() {
  ForgeTest::SetUp();
  log_file = tmp.path + "/watch.jsonl";
  write_watch_config();
}

void WatchTest::write_watch_config() {
  extra_repo_keys = "watch:\n" + watch_keys;
  write_config();
}

nlohmann::json WatchTest::watch_once(Captured* out) {
  (void)::unlink(log_file.c_str());
  Captured c = aw({"watch", "--once", "--log", log_file});
  EXPECT_EQ(c.exit_code, 0) << c.out << c.err << "\nlog:\n" << slurp(log_file);
  if (out) *out = c;
  return event_lines(slurp(log_file));
}

void WatchTest::label(int64_t issue, const std::string& user, const std::string& name) {
  fake->control("POST", "repos/octo/web/issues/" + std::to_string(issue) + "/labels",
                {{"user", user}, {"labels", {name}}});
}

std::vector<nlohmann::json> WatchTest::events(const nlohmann::json& log, const std::string& name) {
  std::vector<nlohmann::json> out;
  for (const auto& l : log)
    if (l.value("event", "") == name) out.push_back(l);
  return out;
}

std::vector<std::string> WatchTest::labels_of(int64_t issue) {
  std::vector<std::string> out;
  nlohmann::json j = get("/repos/octo/web/issues/" + std::to_string(issue));
  for (const auto& l : j["labels"]) out.push_back(l["name"]);
  return out;
}

int WatchTest::units_of(int64_t issue) {
  Captured c = aw({"units", "--json"});
  auto j = nlohmann::json::parse(c.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << c.out << c.err;
  int n = 0;
  if (j.is_array())
    for (const auto& u : j)
      if (u.value("issue", int64_t{0}) == issue) ++n;
  return n;
}

}  // namespace aw::test
