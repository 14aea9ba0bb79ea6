// The fixture of the plugin call tests with real processes (call_test.cc, call_probe_test.cc): a
// probe plugin (a shell script) reports from inside what it could reach, in an owner's home, state
// and config planted with canaries; the plugin approved as it is, then called.
#pragma once

#include <dirent.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "../isolate/harness.h"
#include "base/fs.h"
#include "plugin/approval.h"
#include "plugin/call.h"

namespace aw::plugin_test {

// Any process on the host whose command line holds marker (the leftovers a plugin tried to leave).
inline bool process_with(const std::string& marker) {
  DIR* d = ::opendir("/proc");
  if (!d) return false;
  bool found = false;
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    std::string cmd = read_or_empty(std::string("/proc/") + e->d_name + "/cmdline");
    if (cmd.find(marker) != std::string::npos && std::to_string(::getpid()) != e->d_name) {
      found = true;
      break;
    }
  }
  ::closedir(d);
  return found;
}

struct PluginCallTest : ::testing::Test {
  test::TempDir dir;
  std::string owner = dir.path + "/owner", plugdir = dir.path + "/plugin",
              state = dir.path + "/state", config = dir.path + "/config",
              shared = dir.path + "/shared";
  PluginHost host;
  PluginConfig p;

  void SetUp() override {
    // The plugin's memory and process limits are cgroup limits, which need root here.
    if (::geteuid() != 0) AW_SKIP_OR_FAIL("needs root for the plugin's cgroup limits");
    for (const auto& d : {owner + "/.ssh", plugdir, state, config, shared})
      ASSERT_TRUE(make_dirs(d));
    ASSERT_TRUE(write_file(owner + "/.ssh/id_canary", "PRIVATE-KEY-CANARY"));
    ASSERT_TRUE(write_file(owner + "/notes.txt", "OWNER-NOTES-CANARY"));
    ASSERT_TRUE(write_file(state + "/awaywork.db", "DATABASE-CANARY"));
    ASSERT_TRUE(write_file(config + "/config.yml", "CONFIG-CANARY"));
    ASSERT_TRUE(write_file(shared + "/ok.txt", "READ-OK"));
    host.run = true;
    host.base.owner_home = owner;
    host.base.config_dir = config;
    host.base.state_dir = state;
    host.base.root_owner = true;
    host.plugins_dir = state + "/plugins";
    p.name = "probe";
    p.timeout_ms = 20000;
    p.memory_bytes = 64ull << 20;
    p.processes = 32;
  }

  // The plugin: reads the request, runs body (which adds words to $seen), replies with $seen.
  void script(const std::string& body) {
    std::string text = "#!/bin/sh\nread -r req\nseen=\n" + body +
                       "\nprintf '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"seen\":\"%s\"}}\\n' "
                       "\"$seen\"\n";
    ASSERT_TRUE(write_file(plugdir + "/plugin.sh", text, 0755));
    p.command = {plugdir + "/plugin.sh"};
  }
  // The owner approves the plugin as it is now, then it is called (ThePluginRunsOnlyAsApproved
  // calls it without approving).
  Result<PluginCall> call() {
    if (auto ok = approve_plugin(p, host.plugins_dir); !ok) return tl::make_unexpected(ok.error());
    return call_plugin(p, host, "probe", {{"unit", "u-1"}});
  }
  // What the plugin saw, or the call's error.
  std::string seen() {
    auto r = call();
    if (!r) return "error: " + r.error().message;
    if (!r->result.contains("seen") || !r->result["seen"].is_string()) return "no seen";
    return r->result["seen"].get<std::string>();
  }
  std::string data() const { return state + "/plugins/probe/data"; }
};

}  // namespace aw::plugin_test
