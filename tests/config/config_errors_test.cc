// The error side of parse_config: every class of mistake gets FILE:LINE:COL: KEY.PATH: what is
// wrong; how to fix it — pinned here message for message.
#include <gtest/gtest.h>

#include "config/config.h"
#include "env_guard.h"

namespace aw {
namespace {

class ConfigErrors : public ::testing::Test {
 protected:
  void SetUp() override { env_.set("HOME", "/home/tester"); }
  // The error text for a file that must be refused.
  std::string error_of(const std::string& text) {
    auto r = parse_config(text, "config.yml");
    EXPECT_FALSE(r) << "accepted:\n" << text;
    return r ? "" : r.error().message;
  }
  EnvGuard env_;
};

TEST_F(ConfigErrors, UnknownTopLevelKeySuggestsTheClosest) {
  EXPECT_EQ(error_of("isolaton: user\n"),
            "config.yml:1:1: isolaton: unknown key; did you mean 'isolation'?");
}

TEST_F(ConfigErrors, PublishNeedsAUrlAndAPlainCredentialName) {
  EXPECT_EQ(error_of("repos:\n  web:\n    path: /x\n    publish: {credential: GH}\n"),
            "config.yml:4:14: repos.web.publish: missing 'url'; name the remote to push to");
  std::string bad = error_of(
      "repos:\n  web:\n    path: /x\n    publish: {url: \"https://h/r.git\", credential: a-b}\n");
  EXPECT_NE(bad.find("repos.web.publish.credential"), std::string::npos) << bad;
  std::string typo = error_of("repos:\n  web:\n    path: /x\n    publsh: {url: x}\n");
  EXPECT_NE(typo.find("did you mean 'publish'?"), std::string::npos) << typo;
}

TEST_F(ConfigErrors, BoundsErrorsKeepTheirFileLineAndColumn) {
  std::string e = error_of("repos:\n  web:\n    path: /x\n    bounds: {max_patch_filez: 3}\n");
  EXPECT_NE(e.find("config.yml:4:"), std::string::npos) << e;
  EXPECT_NE(e.find("max_patch_files"), std::string::npos) << e;
}

TEST_F(ConfigErrors, UnknownNestedKeySuggestsTheClosest) {
  EXPECT_EQ(error_of("repos:\n  web:\n    path: /x\n    chekcs: [make]\n"),
            "config.yml:4:5: repos.web.chekcs: unknown key; did you mean 'checks'?");
  EXPECT_EQ(error_of("sandbox:\n  limits:\n    mem: 4G\n"),
            "config.yml:3:5: sandbox.limits.mem: unknown key; did you mean 'memory'?");
}

TEST_F(ConfigErrors, UnknownKeyWithoutACloseOneListsTheKeys) {
  EXPECT_EQ(error_of("sandbox: {zzzz: 1}"),
            "config.yml:1:11: sandbox.zzzz: unknown key; the keys here are mode, network, allow, "
            "writable, hidden, readable, limits");
}

TEST_F(ConfigErrors, WrongTypeSaysWhatWasExpectedAndFound) {
  EXPECT_EQ(error_of("unit_minutes: [60]\n"),
            "config.yml:1:15: unit_minutes: expected a whole number, found a list; write "
            "minutes, e.g. unit_minutes: 60");
  EXPECT_EQ(error_of("sandbox: strict\n"),
            "config.yml:1:10: sandbox: expected a map, found 'strict'; write e.g. sandbox: "
            "{mode: preferred, network: none}");
  EXPECT_EQ(error_of("sandbox:\n  allow: example.com\n"),
            "config.yml:2:10: sandbox.allow: expected a list, found 'example.com'; write a list "
            "of domains, e.g. allow: [example.com, \"*.pypi.org\"]");
  EXPECT_EQ(error_of("repos:\n  web:\n    path: {a: 1}\n"),
            "config.yml:3:11: repos.web.path: expected a string, found a map; write a folder, "
            "e.g. path: ~/src/project");
}

TEST_F(ConfigErrors, EmptyValueIsReportedAtItsKey) {
  EXPECT_EQ(error_of("isolation:\nunit_minutes: 5\n"),
            "config.yml:1:1: isolation: expected a string, found nothing; write one of none, "
            "user, container");
}

TEST_F(ConfigErrors, NumbersOutOfRangeOrNotNumbers) {
  EXPECT_EQ(error_of("unit_minutes: 0"),
            "config.yml:1:15: unit_minutes: 0 is out of range; use 1 to 10080");
  EXPECT_EQ(error_of("unit_minutes: 10081"),
            "config.yml:1:15: unit_minutes: 10081 is out of range; use 1 to 10080");
  EXPECT_EQ(error_of("unit_minutes: -5"),
            "config.yml:1:15: unit_minutes: -5 is out of range; use 1 to 10080");
  EXPECT_EQ(error_of("unit_minutes: 1.5"),
            "config.yml:1:15: unit_minutes: '1.5' is not a whole number; write minutes, e.g. "
            "unit_minutes: 60");
  EXPECT_EQ(error_of("sandbox: {limits: {cpu: lots}}"),
            "config.yml:1:25: sandbox.limits.cpu: 'lots' is not a number; write a number of "
            "CPUs, e.g. cpu: 2 or cpu: 0.5");
  EXPECT_EQ(
      error_of("sandbox: {limits: {cpu: 0}}"),
      "config.yml:1:25: sandbox.limits.cpu: 0 is out of range; use more than 0, at most 1024");
}

TEST_F(ConfigErrors, BadEnumListsTheChoices) {
  EXPECT_EQ(error_of("sandbox:\n  mode: strict\n"),
            "config.yml:2:9: sandbox.mode: 'strict' is not one of off, preferred, required");
  EXPECT_EQ(error_of("sandbox: {network: allowlst}"),
            "config.yml:1:20: sandbox.network: 'allowlst' is not one of none, allowlist, host; "
            "did you mean 'allowlist'?");
  EXPECT_EQ(error_of("agents: {a: {command: x, prompt: argv}}"),
            "config.yml:1:34: agents.a.prompt: 'argv' is not one of stdin, file");
}

TEST_F(ConfigErrors, RepoWithoutPathOrUrl) {
  EXPECT_EQ(error_of("repos:\n  web:\n    base: main\n"),
            "config.yml:2:3: repos.web: missing 'path', 'url', 'github' or 'gitlab'; add path: "
            "~/src/project for a local repository, url: https://... for a remote one, github: "
            "OWNER/REPO or gitlab: GROUP/PROJECT for a forge one");
}

TEST_F(ConfigErrors, RepoWithBothPathAndUrl) {
  EXPECT_EQ(error_of("repos:\n  web:\n    path: /x\n    url: https://e.com/x.git\n"),
            "config.yml:4:5: repos.web: has more than one of 'path', 'url', 'github' and "
            "'gitlab'; keep exactly one (path: for a local repository, url: for a remote one, "
            "github: OWNER/REPO or gitlab: GROUP/PROJECT for a forge one)");
}

TEST_F(ConfigErrors, AgentWithoutCommandOrProvider) {
  EXPECT_EQ(error_of("agents:\n  claude:\n    prompt: stdin\n"),
            "config.yml:2:3: agents.claude: missing 'command'; add the program to run, e.g. "
            "command: \"my-agent --task\", or name a built-in provider, e.g. provider: claude");
}

TEST_F(ConfigErrors, EmptyCommand) {
  EXPECT_EQ(error_of("agents: {a: {command: ''}}"),
            "config.yml:1:23: agents.a.command: empty command; write the program and its "
            "arguments as a string \"npm test\" or a list [npm, test]");
  EXPECT_EQ(error_of("agents: {a: {command: []}}"),
            "config.yml:1:23: agents.a.command: empty command; write the program and its "
            "arguments as a string \"npm test\" or a list [npm, test]");
  EXPECT_EQ(error_of("repos: {r: {path: /x, checks: [\"''\"]}}"),
            "config.yml:1:32: repos.r.checks[0]: the program name is empty; write the program "
            "and its arguments as a string \"npm test\" or a list [npm, test]");
}

TEST_F(ConfigErrors, ShellOperatorInACommandString) {
  EXPECT_EQ(error_of("repos:\n  web:\n    path: /x\n    setup: npm ci && npm test\n"),
            "config.yml:4:12: repos.web.setup: '&&' at column 8 is a shell operator, but "
            "commands are not run through a shell, so it would reach the program as a plain "
            "argument; put the steps in a script and run that, or write a list such as [sh, -c, "
            "\"...\"] to ask for a shell");
}

TEST_F(ConfigErrors, UnbalancedQuoteInACommandString) {
  EXPECT_EQ(error_of("agents: {a: {command: \"claude '-p\"}}"),
            "config.yml:1:23: agents.a.command: unbalanced single quote at column 8; add the "
            "closing '");
}

TEST_F(ConfigErrors, CommandListItemsMustBeStrings) {
  EXPECT_EQ(error_of("agents: {a: {command: [x, [y]]}}"),
            "config.yml:1:27: agents.a.command[1]: expected a string, found a list; write the "
            "program and its arguments as a string \"npm test\" or a list [npm, test]");
}

TEST_F(ConfigErrors, DefaultAgentMustBeDefined) {
  EXPECT_EQ(
      error_of("agent: claud\nagents:\n  claude: {command: claude}\n  codex: {command: codex}\n"),
      "config.yml:1:8: agent: 'claud' is not an agent defined under agents; did you mean "
      "'claude'?");
  EXPECT_EQ(error_of("agent: zzz\nagents: {claude: {command: claude}}\n"),
            "config.yml:1:8: agent: 'zzz' is not an agent defined under agents; define it under "
            "agents: or use one of claude");
  EXPECT_EQ(error_of("agent: scripted\n"),
            "config.yml:1:8: agent: 'scripted' is not an agent defined under agents; define it "
            "under agents:, e.g. agents: {scripted: {command: \"...\"}}");
}

TEST_F(ConfigErrors, DuplicateKeysAreRefusedAtTheSecond) {
  EXPECT_EQ(error_of("isolation: none\nunit_minutes: 5\nisolation: user\n"),
            "config.yml:3:1: isolation: duplicate key (first at line 1); keep only one of them");
  EXPECT_EQ(error_of("repos:\n  web: {path: /a}\n  web: {path: /b}\n"),
            "config.yml:3:3: repos.web: duplicate key (first at line 2); keep only one of them");
  EXPECT_EQ(error_of("sandbox: {mode: off, mode: required}"),
            "config.yml:1:22: sandbox.mode: duplicate key (first at line 1); keep only one of "
            "them");
}

TEST_F(ConfigErrors, YamlSyntaxErrorNamesLineAndColumn) {
  EXPECT_EQ(error_of("sandbox:\n  allow: [a.com, b.com\nunit_minutes: 5\n"),
            "config.yml:3:13: YAML syntax error: end of sequence flow not found; check the "
            "indentation, brackets and quotes here (a value containing ': ' or starting with [ "
            "{ * & ! needs quotes)");
  // A tab is not indentation in YAML.
  EXPECT_TRUE(error_of("sandbox:\n\tmode: off\n")
                  .starts_with("config.yml:2:6: YAML syntax error: illegal map value; "));
}

TEST_F(ConfigErrors, DeepNestingIsAnErrorNotAStackOverflow) {
  std::string e = error_of("sandbox: " + std::string(100000, '['));
  EXPECT_TRUE(e.starts_with("config.yml:1:")) << e;
  EXPECT_NE(e.find(": YAML syntax error: nested "), std::string::npos) << e;
}

TEST_F(ConfigErrors, BinaryGarbageIsAnErrorNotACrash) {
  std::string junk;
  for (int i = 0; i < 4096; ++i) junk += static_cast<char>((i * 7919) & 0xff);
  EXPECT_FALSE(parse_config(junk, "config.yml"));
}

TEST_F(ConfigErrors, MoreThanOneDocumentIsRefused) {
  EXPECT_EQ(error_of("isolation: none\n---\nisolation: user\n"),
            "config.yml:3:1: a second YAML document (after ---); keep the whole config in one "
            "document");
}

TEST_F(ConfigErrors, TopLevelMustBeAMap) {
  EXPECT_EQ(error_of("- a\n- b\n"),
            "config.yml:1:1: the file must be a map of keys (isolation:, agents:, repos: ...), "
            "found a list; see examples/config.yml");
}

TEST_F(ConfigErrors, BadSize) {
  EXPECT_EQ(error_of("sandbox:\n  limits: {memory: 4X}\n"),
            "config.yml:2:20: sandbox.limits.memory: '4X' is not a size; write a number with an "
            "optional unit K, M, G or T, e.g. 4G or 512M");
  EXPECT_EQ(error_of("sandbox:\n  limits: {memory: 4}\n"),
            "config.yml:2:20: sandbox.limits.memory: '4' is 4 bytes, below the 1M minimum; "
            "write a unit, e.g. 4G");
  // The transcript's cap is read by the same parse_min_size (issue 40), with its own minimum.
  EXPECT_EQ(error_of("max_transcript_bytes: 1K\n"),
            "config.yml:1:23: max_transcript_bytes: '1K' is 1024 bytes, below the 4K minimum; "
            "write e.g. 256M");
}

TEST_F(ConfigErrors, BadEnvName) {
  EXPECT_EQ(error_of("agents:\n  a:\n    command: x\n    env: [OK_1, BAD-NAME, 9X]\n"),
            "config.yml:4:17: agents.a.env[1]: 'BAD-NAME' is not a variable name; use letters, "
            "digits and '_', not starting with a digit (write the name only, not NAME=value)\n"
            "config.yml:4:27: agents.a.env[2]: '9X' is not a variable name; use letters, digits "
            "and '_', not starting with a digit (write the name only, not NAME=value)");
}

TEST_F(ConfigErrors, BadEntryNames) {
  EXPECT_EQ(error_of("repos:\n  -web: {path: /x}\n"),
            "config.yml:2:3: repos.-web: '-web' is not a valid name; use letters, digits, '_', "
            "'.' and '-', starting with a letter or digit (at most 64 characters)");
  EXPECT_TRUE(error_of("agents: {'a b': {command: x}}")
                  .starts_with("config.yml:1:10: agents.a b: 'a b' is not a valid name"));
}

TEST_F(ConfigErrors, BadDomains) {
  EXPECT_EQ(error_of("sandbox: {allow: ['https://example.com/x']}"),
            "config.yml:1:19: sandbox.allow[0]: 'https://example.com/x' is not a domain name; "
            "write the host name only, e.g. example.com (no scheme, port or path)");
  EXPECT_EQ(error_of("sandbox: {allow: ['*.com']}"),
            "config.yml:1:19: sandbox.allow[0]: '*.com' would allow a whole top-level domain; "
            "name the site, e.g. *.example.com");
  for (const char* bad : {"a..b", "-a.com", "a_b.com", "*", "x.*.com", "a b"}) {
    std::string e = error_of(fmt::format("sandbox: {{allow: ['{}']}}", bad));
    EXPECT_TRUE(
        e.starts_with(fmt::format("config.yml:1:19: sandbox.allow[0]: '{}' is not a "
                                  "domain name",
                                  bad)))
        << e;
  }
}

TEST_F(ConfigErrors, DangerousUrlsAreRefused) {
  const std::string pre = "config.yml:1:18: repos.r.url: ";
  EXPECT_TRUE(
      error_of("repos: {r: {url: '--upload-pack=x'}}")
          .starts_with(pre + "'--upload-pack=x' starts with '-' and would read as a git option"));
  EXPECT_TRUE(error_of("repos: {r: {url: 'ext::sh -c id'}}")
                  .starts_with(pre + "'ext::sh -c id' contains a blank"));
  EXPECT_TRUE(error_of("repos: {r: {url: 'ext::sh'}}")
                  .starts_with(pre + "'ext::sh' names a git remote helper (::), which is refused"));
  EXPECT_EQ(error_of("repos: {r: {url: 'https://u:ghp_FAKEFAKEFAKEFAKEFAKE@github.com/o/r'}}"),
            pre +
                "'https://u:ghp_FAKEFAKEFAKEFAKEFAKE@github.com/o/r' carries a password or token; "
                "remove it from the URL and store it with `awaywork secret set`");
  EXPECT_TRUE(error_of("repos: {r: {url: 'ftp://x/y'}}")
                  .starts_with(pre + "'ftp://x/y': scheme 'ftp' is not one of"));
}

TEST_F(ConfigErrors, BadBranchAndImage) {
  EXPECT_EQ(error_of("repos: {r: {path: /x, base: '-f'}}"),
            "config.yml:1:29: repos.r.base: '-f' is not a valid branch name; write a branch name "
            "such as main");
  EXPECT_EQ(error_of("repos: {r: {path: /x, image: '--privileged'}}"),
            "config.yml:1:30: repos.r.image: '--privileged' is not an image reference; write e.g. "
            "debian:bookworm");
}

TEST_F(ConfigErrors, BadPaths) {
  EXPECT_EQ(error_of("state_dir: ~alice/state"),
            "config.yml:1:12: state_dir: '~alice/state': only ~/ (your own home) is expanded, "
            "not ~user; write the full path");
  EXPECT_EQ(error_of("sandbox: {hidden: ['']}"),
            "config.yml:1:20: sandbox.hidden[0]: empty path; write a path or remove the entry");
}

TEST_F(ConfigErrors, EveryProblemIsReportedInOneGo) {
  std::string e = error_of(
      "isolaton: user\n"
      "sandbox:\n"
      "  mode: strict\n"
      "repos:\n"
      "  web:\n"
      "    chekcs: [make]\n");
  EXPECT_EQ(e,
            "config.yml:1:1: isolaton: unknown key; did you mean 'isolation'?\n"
            "config.yml:3:9: sandbox.mode: 'strict' is not one of off, preferred, required\n"
            "config.yml:6:5: repos.web.chekcs: unknown key; did you mean 'checks'?\n"
            "config.yml:5:3: repos.web: missing 'path', 'url', 'github' or 'gitlab'; add path: "
            "~/src/project for a local repository, url: https://... for a remote one, github: "
            "OWNER/REPO or gitlab: GROUP/PROJECT for a forge one");
}

TEST_F(ConfigErrors, BareTildeIsYamlNullAndTheMessageSaysSo) {
  EXPECT_EQ(error_of("state_dir: ~"),
            "config.yml:1:1: state_dir: expected a path, found nothing (a bare ~ is YAML's null); "
            "write \"~\" for your home folder, or a path such as ~/state");
}

TEST_F(ConfigErrors, NulCharacterInAStringIsRefused) {
  EXPECT_EQ(error_of("agents: {a: {command: \"x\\0y\"}}"),
            "config.yml:1:23: agents.a.command: contains a NUL character; remove it");
}

}  // namespace
}  // namespace aw
