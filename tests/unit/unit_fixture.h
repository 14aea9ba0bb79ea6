// Shared by the pipeline tests: a temporary world with a real git repository, a config, and the
// real awaywork binary run as a child process.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "proc/capture.h"

namespace aw::test {

struct RunOutput {
  int exit_code = -1;
  std::string out, err;
  nlohmann::json record;  // parsed stdout when --json was given and it parsed
};

// Where the real agent CLIs are: $AWAYWORK_AGENT_CLIS_BIN, else scripts/agent-clis's folder.
std::string agent_clis_bin();

class UnitTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // A git repository at root/src with `files` committed on branch main.
  void make_repo(const std::map<std::string, std::string>& files);
  // An agent script (sh) written to root/agents/NAME; returns its path.
  std::string agent_script(const std::string& name, const std::string& body);
  // config.yml with state under root/state; `extra` is appended verbatim (YAML).
  void write_config(const std::string& agent_path, const std::string& repo_extra = "",
                    const std::string& agent_extra = "");
  // awaywork --config CFG ARGS..., with env = this process's environ plus `env`.
  RunOutput awaywork(const std::vector<std::string>& args,
                     const std::vector<std::string>& env = {});
  // `awaywork run --repo src --prompt PROMPT` started in the background (stdio on /dev/null).
  pid_t start_run_in_background(const std::string& prompt);
  RunOutput run_unit(const std::string& prompt, const std::vector<std::string>& extra = {},
                     const std::vector<std::string>& env = {});

  std::string git(const std::vector<std::string>& args);  // git -C src ..., must succeed
  std::string read(const std::string& path);
  bool exists(const std::string& path);
  // Is any process alive whose command line contains needle?
  bool process_alive_with(const std::string& needle);
  // root/state on a tmpfs of `mib` MiB (root only; TearDown unmounts it): a filesystem whose free
  // space the test controls. False when it could not be mounted.
  bool small_state_fs(int mib);

  // The awaywork child's secret store: the encrypted file under root/xdg with a random key file
  // there (XDG_CONFIG_HOME and AWAYWORK_SECRET_BACKEND of this process, restored by TearDown).
  void use_test_secret_store();
  // PATH with the real agent CLIs' folder (agent_clis_bin()) in front, restored by TearDown.
  void put_agent_clis_on_path();
  void store_secret(const std::string& name, const std::string& value);

  std::string root, src, config;

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_env_;
  bool state_mounted_ = false;
};

// Reads every /proc/*/cmdline, recording any that holds a needle (a secret must never be there).
class CmdlineScanner {
 public:
  explicit CmdlineScanner(std::vector<std::string> needles) : needles_(std::move(needles)) {}
  // One full pass over /proc; returns the command lines holding a needle.
  std::vector<std::string> pass() const;

 private:
  std::vector<std::string> needles_;
};

// A fake Anthropic key shaped like a real one; valid nowhere.
inline const std::string kAnthropicKey =
    "sk-ant-api03-FAKEkeyFAKEkeyFAKEkeyFAKEkeyFAKEkeyFAKEkeyFAKEkeyFAKEkeyFAKEkeyFAKEkeyFAKEkeyF"
    "AKEkeyFAKEk-FAKEkeyAA";
// And an OpenAI one.
inline const std::string kOpenaiKey =
    "sk-proj-FAKEkeyFAKEkeyFAKEkeyFAKEkeyFAKEkeyFAKEkeyFAKEkeyFAKEkeyFAKEkeyFAKEkeyFAKEkeyFAKEk";

// A self-signed certificate for localhost, made with openssl: DIR/cert.pem and DIR/key.pem (the
// fake vendor APIs serve TLS with it; the proxy trusts it through `ca_file` only).
void make_tls_certificate(const std::string& dir);

// The JSON objects of a JSONL text (a fake's request log); lines that do not parse are skipped.
std::vector<nlohmann::json> log_lines(const std::string& text);

// Does connect(2) to the unix socket at path succeed?
bool can_connect(const std::string& socket_path);

// Binary under test.
std::string awaywork_binary();

// Runs spec to completion; stdout parsed as JSON into record when it parses.
RunOutput run_captured(const CaptureSpec& spec);

}  // namespace aw::test
