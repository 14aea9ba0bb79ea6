// What apply hands publish_to_gitlab for a unit that adds b.txt, in the gitlab_*_test files that
// publish straight to the fake GitLab (not through the awaywork binary).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "forge/gitlab/publish.h"
#include "forge/gitlab/session.h"
#include "git/git.h"

#include "../git/git_fixture.h"  // kAskpass

namespace aw::test {

// Unit u1, checked, on issue `iid` of the session's project: its patch adds b.txt ("bravo") on
// main's tip, read from the project's mirror, updated as apply updates it (under `root`/state,
// through the askpass, as oauth2 with the session's token); the label "ready" allowed. The
// requests are the caller's. A void function for its ASSERTs: call it as
// ASSERT_NO_FATAL_FAILURE(publish_b_input(...)).
inline void publish_b_input(const GitLabSession& s, int64_t iid, const std::string& root,
                            ForgePublishInput& in) {
  ApplyTarget remote;
  remote.url = s.repo.clone_url;
  remote.credential = "GITLAB_TOKEN";
  remote.username = "oauth2";
  remote.secret_value = s.token;
  std::string mirror_dir = root + "/state/mirrors/app.git";
  auto m = update_mirror(remote, mirror_dir, kAskpass);
  ASSERT_TRUE(m) << m.error().message;
  auto base = resolve_commit(m->repo, "main");
  ASSERT_TRUE(base) << base.error().message;

  in.unit = {"u1", "test", "none", "off", "accepted", {{"check 1", 0}}};
  in.issue = iid;
  in.base_ref = "main";
  in.base_commit = *base;
  in.patch =
      "diff --git a/b.txt b/b.txt\nnew file mode 100644\n--- /dev/null\n+++ b/b.txt\n"
      "@@ -0,0 +1 @@\n+bravo\n";
  in.paths = {"b.txt"};
  in.commit_message = "add b";
  in.allowed_labels = {"ready"};
  in.scratch_dir = root + "/scratch";
  in.askpass = kAskpass;
  in.mirror_dir = mirror_dir;
}

}  // namespace aw::test
