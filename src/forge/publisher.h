// The forge's publisher (unit/publisher.h): a unit's checked patch published to its forge
// repository (the branch pushed through the askpass, a draft pull request, the checked comments
// and labels: publish.h), its mirror fetched with the forge's token, its progress comment ended
// after a later apply. The session, and with it the token, stays here: the unit gets data only.
//
//   run_unit(cfg, req, obs, forge_publishers());          // opens a github: repository's forge
//   run_unit(cfg, req, obs, forge_publishers(session));   // reuses the issue source's session
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "forge/publish.h"
#include "forge/session.h"
#include "forge/session_publisher.h"
#include "unit/publisher.h"

namespace aw {

class ForgePublisher : public SessionPublisher<ForgeSession> {
 public:
  using SessionPublisher::SessionPublisher;

  Result<Applied> publish(const ApplyInput& in) override;
  std::optional<ApplyTarget> source_remote() const override;
  std::string host_repo() const override { return s_->owner_repo; }
  Status end_note(const UnitRecord& u, const std::string& pull_url, const std::string& state,
                  const std::string& reason) override;
  void record_usage(Store& store) override;
};

// What a unit's apply (in, with its record) gives a forge's publish, the same for GitHub and
// GitLab (gitlab/publisher.cc): the unit's facts, the repository's forge settings, the patch,
// the askpass.
Result<ForgePublishInput> forge_publish_input(const ApplyInput& in);

// The publishers the forge serves: a `github:` repository's, on its forge opened then (or on
// opened, when it is that repository's session already); nullptr for any other repository.
OpenPublisher forge_publishers(std::shared_ptr<ForgeSession> opened = nullptr);

}  // namespace aw
