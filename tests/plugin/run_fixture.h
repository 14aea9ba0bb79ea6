// The fixture of the plugin tests that run a real plugin process of one kind in the sandbox
// (check_test.cc's PluginCheckRun, source_test.cc's SourceRun): a root owner whose home, config
// and state are fresh folders, the plugin's files in plugdir, and limits a small script meets.
// Each test's fixture names its plugin and kind after SetUp. call_fixture.h's differs on purpose
// (canaries planted, a tighter memory limit for the probe).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "../isolate/harness.h"
#include "base/fs.h"
#include "config/config.h"
#include "plugin/call.h"

namespace aw::plugin_test {

struct PluginRunTest : ::testing::Test {
  test::TempDir dir;
  std::string plugdir = dir.path + "/plugin", state = dir.path + "/state";
  PluginHost host;
  PluginConfig p;

  void SetUp() override {
    // The plugin's memory and process limits are cgroup limits, which need root here.
    if (::geteuid() != 0) AW_SKIP_OR_FAIL("needs root for the plugin's cgroup limits");
    for (const auto& d : {plugdir, dir.path + "/owner", dir.path + "/config", state})
      ASSERT_TRUE(make_dirs(d));
    host.run = true;
    host.base.owner_home = dir.path + "/owner";
    host.base.state_dir = state;
    host.base.config_dir = dir.path + "/config";
    host.base.root_owner = true;
    host.plugins_dir = state + "/plugins";
    p.timeout_ms = 20000;
    p.memory_bytes = 128ull << 20;
    p.processes = 32;
  }
};

}  // namespace aw::plugin_test
