// The fake GitHub (tests/fakes/fake_github.py, a FAKE: GitHub cannot be reached here) started for
// one test: its API and git URLs, and its /_fake/ control routes (users, repos, faults, log).
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <string>

#include "forge/http.h"

namespace aw::test {

class FakeGitHub {
 public:
  // Starts it with its state under dir; an empty api_url() means it did not start (why()).
  explicit FakeGitHub(const std::string& dir);
  ~FakeGitHub();
  FakeGitHub(const FakeGitHub&) = delete;
  FakeGitHub& operator=(const FakeGitHub&) = delete;

  const std::string& api_url() const { return api_url_; }
  const std::string& git_url() const { return git_url_; }
  const std::string& why() const { return why_; }

  // A /_fake/ control call (no auth); the body parsed (null when none).
  nlohmann::json control(const std::string& method, const std::string& path,
                         const nlohmann::json& body = nullptr);
  // An API call as a user (token "" = anonymous); status and body.
  std::pair<int, nlohmann::json> api(const std::string& method, const std::string& target,
                                     const std::string& token,
                                     const nlohmann::json& body = nullptr);
  // POST /_fake/users: the new user's token.
  std::string user(const std::string& login, const std::string& type = "User");
  // The writes of /_fake/log.
  nlohmann::json writes();

 private:
  int pid_ = -1;
  std::string api_url_, git_url_, why_;
  std::unique_ptr<Transport> http_;
};

}  // namespace aw::test
