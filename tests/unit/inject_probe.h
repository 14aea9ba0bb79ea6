// What the pipeline tests of secrets added at the egress proxy (issue 27) share, whatever the
// isolation or the client: the scan of what the owner keeps for the value (the run's stdout and
// stderr, every file of the state folder), and the positive control of a real git clone from
// tests/fakes/private_registry.py (its log shows the credentials reached the server, so they came
// from the proxy: the agent only ever held the placeholder). One copy, so that a fix to the scan
// or the control reaches every isolation's test.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

#include <nlohmann/json.hpp>

#include "unit_fixture.h"

namespace aw::test {

// The private registry's git credentials (--user deploy --password kDeployPass): a deploy token's
// password, shaped like a GitLab token; fake. Its Basic encoding with the user deploy, as the
// proxy sends it: base64("deploy:glpat-FAKEfakeFAKEfake9090").
inline const std::string kDeployPass = "glpat-FAKEfakeFAKEfake9090";
inline const std::string kDeployBasic = "ZGVwbG95OmdscGF0LUZBS0VmYWtlRkFLRWZha2U5MDkw";

// Every regular file under dir (not following links) that holds needle.
inline std::vector<std::string> files_holding(const std::string& dir, const std::string& needle) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); it != fs::end(it); it.increment(ec)) {
    if (it->is_symlink() || !it->is_regular_file()) continue;
    std::ifstream in(it->path(), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    if (bytes.find(needle) != std::string::npos) out.push_back(it->path());
  }
  return out;
}

// value is nowhere the run left for the owner: its stdout, its stderr, any file under state_dir.
// A "not found" means something only with a control the caller checks (a string the scan must
// find in the same places). The failures do not print value: it stands for a secret.
inline void expect_held_nowhere(const RunOutput& r, const std::string& state_dir,
                                const std::string& value) {
  EXPECT_EQ(r.out.find(value), std::string::npos);
  EXPECT_EQ(r.err.find(value), std::string::npos);
  EXPECT_EQ(files_holding(state_dir, value), std::vector<std::string>{});
}

// The positive control of a clone through the proxy: the registry's log (a JSON object a line)
// shows each of git's requests (the ref advertisement, then the upload-pack POST) came with Basic
// `basic` and was served. A line that is not JSON is a fatal failure: call it inside
// ASSERT_NO_FATAL_FAILURE so that the test stops there too.
inline void expect_every_git_request_authorized(const std::string& registry_log,
                                                const std::string& basic) {
  std::ifstream in(registry_log);
  size_t requests = 0;
  bool posted = false;
  for (std::string line; std::getline(in, line);) {
    auto s = nlohmann::json::parse(line, nullptr, false);
    ASSERT_TRUE(s.is_object()) << line;
    ++requests;
    EXPECT_EQ(s.value("authorization", ""), "Basic " + basic) << line;
    EXPECT_EQ(s.value("status", 0), 200) << line;
    posted = posted || s.value("method", "") == "POST";
  }
  EXPECT_GE(requests, 2u);
  EXPECT_TRUE(posted);
}

}  // namespace aw::test
