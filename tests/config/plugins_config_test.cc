// plugins: (issue 28): the owner's plugin code, each plugin with what it declares, and the switch
// that lets any of it run (off unless the owner writes run: true). Each declaration the sandbox
// could not hold to is refused at its file:line:col with the fix.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "config_fixture.h"

namespace aw::test {
namespace {

class PluginsConfig : public ConfigFixture {
 protected:
  static bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
  }
};

TEST_F(PluginsConfig, NothingRunsUnlessTheOwnerSaysSo) {
  Config none = parse("isolation: none\n");
  EXPECT_FALSE(none.plugins.run);
  EXPECT_TRUE(none.plugins.plugins.empty());
  Config declared = parse("plugins:\n  notify: {kind: notifier, command: [/opt/notify/notify]}\n");
  EXPECT_FALSE(declared.plugins.run);  // declared is not allowed to run
  ASSERT_EQ(declared.plugins.plugins.size(), 1u);
  EXPECT_TRUE(parse("plugins: {run: true}\n").plugins.run);
  EXPECT_FALSE(
      parse("plugins: {run: false, n: {kind: notifier, command: [/bin/n]}}\n").plugins.run);
}

TEST_F(PluginsConfig, EveryDeclarationLandsInItsField) {
  Config c = parse(R"(plugins:
  run: true
  notify:
    kind: notifier
    command: "/opt/notify/notify --json"
    net: [Hooks.Example.com, "*.chat.example"]
    read: [~/notify/config.json, /etc/notify]
    secrets: [NOTIFY_TOKEN]
    env: [TZ]
    timeout: 10s
    memory: 64M
    processes: 8
)");
  ASSERT_EQ(c.plugins.plugins.count("notify"), 1u);
  const PluginConfig& p = c.plugins.plugins.at("notify");
  EXPECT_EQ(p.name, "notify");
  EXPECT_EQ(p.line, 3);
  EXPECT_EQ(p.kind, PluginKind::notifier);
  EXPECT_EQ(p.command, (Argv{"/opt/notify/notify", "--json"}));
  EXPECT_EQ(p.net, (std::vector<std::string>{"hooks.example.com", "*.chat.example"}));
  EXPECT_EQ(p.read, (std::vector<std::string>{"/home/tester/notify/config.json", "/etc/notify"}));
  EXPECT_EQ(p.secrets, (std::vector<std::string>{"NOTIFY_TOKEN"}));
  EXPECT_EQ(p.env, (std::vector<std::string>{"TZ"}));
  EXPECT_EQ(p.timeout_ms, 10000);
  EXPECT_EQ(p.memory_bytes, 64ull << 20);
  EXPECT_EQ(p.processes, 8);
}

TEST_F(PluginsConfig, DefaultsAreSmall) {
  Config c = parse("plugins: {n: {kind: notifier, command: [/bin/n]}}\n");
  const PluginConfig& p = c.plugins.plugins.at("n");
  EXPECT_TRUE(p.net.empty());  // no network unless declared
  EXPECT_TRUE(p.read.empty());
  EXPECT_TRUE(p.secrets.empty());
  EXPECT_TRUE(p.env.empty());
  EXPECT_EQ(p.timeout_ms, 30000);
  EXPECT_EQ(p.memory_bytes, 256ull << 20);
  EXPECT_EQ(p.processes, 32);
}

TEST_F(PluginsConfig, AProgramFoundByPathIsRefusedWithTheAbsoluteForm) {
  std::string e = error_of("plugins:\n  n: {kind: notifier, command: [notify]}\n");
  EXPECT_EQ(e.rfind("config.yml:2:", 0), 0u) << e;
  EXPECT_TRUE(has(e, "plugins.n.command: 'notify' is not an absolute path")) << e;
  EXPECT_TRUE(has(e, "command: [/opt/notify/notify]")) << e;
}

TEST_F(PluginsConfig, ACheckPluginIsAKind) {
  Config c = parse("plugins: {lic: {kind: check, command: [/opt/lic/lic]}}\n");
  EXPECT_EQ(c.plugins.plugins.at("lic").kind, PluginKind::check);
  EXPECT_STREQ(to_string(PluginKind::check), "check");
}

TEST_F(PluginsConfig, UnknownKindsAndMissingKeysAreNamed) {
  std::string e = error_of("plugins:\n  s: {kind: mail, command: [/bin/s]}\n  m: {}\n");
  EXPECT_TRUE(has(e, "config.yml:2:")) << e;
  EXPECT_TRUE(has(e, "plugins.s.kind")) << e;
  EXPECT_TRUE(has(e, "config.yml:3:")) << e;
  EXPECT_TRUE(has(e, "plugins.m: missing 'kind'")) << e;
  EXPECT_TRUE(has(e, "plugins.m: missing 'command'")) << e;
}

TEST_F(PluginsConfig, BadPermissionsAreRefusedEachAtItsLine) {
  std::string e = error_of(R"(plugins:
  n:
    kind: notifier
    command: [/bin/n]
    net: ["http://hooks.example.com/x"]
    read: ["~"]
    secrets: [HOME]
    env: [NOT-A-NAME]
    timeout: 2h
    memory: 1K
    processes: 0
    shell: true
)");
  for (int line = 5; line <= 12; ++line)
    EXPECT_TRUE(has(e, "config.yml:" + std::to_string(line) + ":")) << line << "\n" << e;
  EXPECT_TRUE(has(e, "plugins.n.net")) << e;
  EXPECT_TRUE(has(e, "would lend the plugin all of / or your home")) << e;
  EXPECT_TRUE(has(e, "plugins.n.secrets")) << e;
  EXPECT_TRUE(has(e, "not a duration from 1s to 10m")) << e;
  EXPECT_TRUE(has(e, "not a size from 16M to 16G")) << e;
  EXPECT_TRUE(has(e, "plugins.n.shell")) << e;
}

// Item 3 (issue 28): write: folders land expanded; / and the home (or above it) are refused at
// their line. That a folder exists and is not awaywork's own is checked on the machine
// (tests/plugin/approval_test.cc).
TEST_F(PluginsConfig, WriteFoldersLandAndAllOfTheHomeIsRefused) {
  Config c =
      parse("plugins: {n: {kind: notifier, command: [/bin/n], write: [~/notes/, /srv/n]}}\n");
  EXPECT_EQ(c.plugins.plugins.at("n").write,
            (std::vector<std::string>{"/home/tester/notes", "/srv/n"}));
  EXPECT_TRUE(parse("plugins: {n: {kind: notifier, command: [/bin/n]}}\n")
                  .plugins.plugins.at("n")
                  .write.empty());
  for (const char* bad : {"[\"~\"]", "[/]", "[/home]"}) {
    std::string e = error_of(fmt::format(
        "plugins:\n  n:\n    kind: notifier\n    command: [/bin/n]\n    write: {}\n", bad));
    EXPECT_TRUE(has(e, "config.yml:5:")) << bad << "\n" << e;
    EXPECT_TRUE(has(e, "would let the plugin write all of / or your home")) << bad << "\n" << e;
  }
}

TEST_F(PluginsConfig, ASecretAlsoHandedAsAVariableIsRefused) {
  std::string e =
      error_of("plugins:\n  n: {kind: notifier, command: [/bin/n], secrets: [TOK], env: [TOK]}\n");
  EXPECT_TRUE(has(e, "config.yml:2:")) << e;
  EXPECT_TRUE(has(e, "'TOK' is in both secrets: and env:")) << e;
}

TEST_F(PluginsConfig, TheSwitchIsABooleanAndNamesAreChecked) {
  std::string e = error_of("plugins:\n  run: yes\n  \"bad name\": {kind: notifier}\n");
  EXPECT_TRUE(has(e, "config.yml:2:")) << e;
  EXPECT_TRUE(has(e, "plugins.run")) << e;
  EXPECT_TRUE(has(e, "config.yml:3:")) << e;
}

// watch: {sources: [...]} (issue 28): a source plugin polled by watch and the repository its
// tasks run on; any repos: entry (a local one too), and repos: is not needed beside it.
TEST_F(PluginsConfig, ASourcePluginIsWatchedOnARepository) {
  Config c = parse(R"(repos:
  web: {path: /srv/web}
plugins:
  run: true
  tracker: {kind: source, command: [/opt/tracker/tracker-source], net: [tracker.example]}
watch:
  sources:
    - {source: tracker, repo: web, max_units: 2}
)");
  EXPECT_EQ(c.plugins.plugins.at("tracker").kind, PluginKind::source);
  EXPECT_STREQ(to_string(PluginKind::source), "source");
  ASSERT_EQ(c.watch.sources.size(), 1u);
  EXPECT_EQ(c.watch.sources[0].plugin, "tracker");
  EXPECT_EQ(c.watch.sources[0].repo, "web");
  EXPECT_EQ(c.watch.sources[0].max_units, 2);
  EXPECT_EQ(c.watch.sources[0].line, 8);
  EXPECT_TRUE(c.watch.repos.empty());
}

TEST_F(PluginsConfig, AWatchedSourceMustBeASourcePluginOnAKnownRepository) {
  std::string e = error_of(R"(repos:
  web: {path: /srv/web}
plugins:
  notify: {kind: notifier, command: [/opt/n/n]}
  tracker: {kind: source, command: [/opt/t/t]}
watch:
  sources:
    - {source: notify, repo: web}
    - {source: trackr, repo: wbe}
    - {repo: web}
    - tracker
)");
  EXPECT_TRUE(has(e, "config.yml:8:")) << e;
  EXPECT_TRUE(has(e,
                  "'notify' is not a plugin of kind source under plugins: (it is a "
                  "notifier)"))
      << e;
  EXPECT_TRUE(has(e, "config.yml:9:")) << e;
  EXPECT_TRUE(has(e, "'trackr' is not a plugin of kind source")) << e;
  EXPECT_TRUE(has(e, "'wbe' is not a repository under repos:")) << e;
  EXPECT_TRUE(has(e, "config.yml:10:")) << e;
  EXPECT_TRUE(has(e, "missing 'source'")) << e;
  EXPECT_TRUE(has(e, "config.yml:11:")) << e;
}

}  // namespace
}  // namespace aw::test
