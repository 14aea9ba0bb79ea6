// What both forges' publishers (forge/publisher.h, forge/gitlab/publisher.h) share: the session
// they hold, and the repository facts and the secret they answer from it. S is a session with
// .repo (a ForgeRepo) and .token. A publisher derives from it and adds the rest of Publisher:
//
//   class GitLabPublisher : public SessionPublisher<GitLabSession> {
//    public:
//     using SessionPublisher::SessionPublisher;
//     ...
//   };
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "unit/publisher.h"

namespace aw {

template <typename S>
class SessionPublisher : public Publisher {
 public:
  explicit SessionPublisher(std::shared_ptr<S> s) : s_(std::move(s)) {}

  int64_t host_repo_id() const override { return s_->repo.id; }
  std::string default_branch() const override { return s_->repo.default_branch; }
  std::vector<std::string> secrets() const override { return {s_->token}; }

 protected:
  std::shared_ptr<S> s_;
};

}  // namespace aw
