// A SandboxPlan as JSON: how a plan made by the owner's awaywork reaches the process that builds
// the sandbox as another user (isolation user: the worker builds its own user namespace after
// sudo, `awaywork __sandbox-exec`). Every field round-trips but two: unit_netns_fd (an fd means
// nothing in another process) comes back as -1, and disable_for_test, the mutation tests'
// switches, is set only by a test's own plan in its own process: never written, and a plan that
// names it is refused.
#pragma once

#include <string>

#include "base/result.h"
#include "isolate/sandbox/plan.h"

namespace aw {

std::string plan_to_json(const SandboxPlan& plan);
// An Error naming the field when the text is not a plan.
Result<SandboxPlan> plan_from_json(const std::string& text);

}  // namespace aw
