// What a forge session's client spent (GitHub's or GitLab's), added to the record's forge_usage
// under the forge's api_url (the `api` label of /metrics' forge series). Call it once, when the
// session is done with (a unit's end, `apply`'s end): the forge's publisher does, from
// record_usage (unit/publisher.h).
#pragma once

#include "base/result.h"
#include "forge/gitlab/session.h"
#include "forge/session.h"
#include "record/store.h"

namespace aw {

Status save_forge_usage(Store& store, const ForgeSession& s);
Status save_forge_usage(Store& store, const GitLabSession& s);

}  // namespace aw
