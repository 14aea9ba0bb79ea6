// For the publish benchmarks (forge/forge_bench, forge/gitlab_publish_bench): round R's publish
// input, the same for both forges so that their figures compare (one new file bench/pR.txt, a
// draft pull or merge request, a comment, a label), and the same push by plain git, timed.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "base/fs.h"
#include "bench_repo.h"
#include "bench_time.h"
#include "forge/publish.h"

namespace aw::bench {

// issue is left 0: each round opens a fresh issue (labels are posted once per issue, so a fresh
// one keeps every round equal).
inline ForgePublishInput publish_input(int r, const std::string& base_commit,
                                       const std::string& root, const std::string& mirror_dir,
                                       const std::string& askpass) {
  std::string file = "bench/p" + std::to_string(r) + ".txt";
  ForgePublishInput in;
  in.unit = {"bench-" + std::to_string(r), "test", "none", "off", "accepted", {{"check 1", 0}}};
  in.base_ref = "main";
  in.base_commit = base_commit;
  in.patch = "diff --git a/" + file + " b/" + file +
             "\nnew file mode 100644\n--- /dev/null\n+++ b/" + file + "\n@@ -0,0 +1 @@\n+p\n";
  in.paths = {file};
  in.commit_message = "bench";
  in.allowed_labels = {"bench"};
  in.requests = {Request{"create_pull_request", 1, "bench", "body", "", "", "", "", {}},
                 Request{"add_comment", 2, "", "done", "", "", "", "", {}},
                 Request{"add_labels", 3, "", "", "", "", "", "", {"bench"}}};
  in.scratch_dir = root + "/scratch";
  in.askpass = askpass;
  in.mirror_dir = mirror_dir;
  return in;
}

// One publish timed (publish(s, in): publish_to_forge or publish_to_gitlab), then the removal of
// its scratch folder, which the session leaves to a thread off the critical path: waited for here
// and timed apart, so that it does not slow the plain push measured next. posts: how many items
// the publish must post. False (said on stderr) when it failed or posted fewer.
template <class Session, class Publish>
bool timed_publish(Session& s, const ForgePublishInput& in, Publish publish, size_t posts,
                   std::vector<double>& publish_s, std::vector<double>& cleanup_s) {
  auto t = Stopwatch::now();
  auto done = publish(s, in);
  if (!done || done->posted.size() != posts) {
    std::fprintf(stderr, "publish: %s\n", done ? "not all posted" : done.error().message.c_str());
    return false;
  }
  publish_s.push_back(seconds_since(t));
  t = Stopwatch::now();
  s.background.clear();
  cleanup_s.push_back(seconds_since(t));
  return true;
}

// The same push by plain git: a new commit in pushdir (a clone of the remote) pushed to url as
// the new branch plain-R, with env (askpass_env). Its seconds, the commit not counted; -1 when a
// step failed (run() said which).
inline double timed_plain_push(const std::string& pushdir, int r, const std::string& url,
                               const std::vector<std::string>& env) {
  std::string branch = "plain-" + std::to_string(r);
  if (!write_file(pushdir + "/q" + std::to_string(r) + ".txt", "q\n")) return -1;
  if (!run({"git", "add", "-A"}, pushdir) || !run({"git", "commit", "-qm", "q"}, pushdir))
    return -1;
  auto t = Stopwatch::now();
  if (!run({"git", "-c", "credential.helper=", "push", "-q", url, "HEAD:refs/heads/" + branch},
           pushdir, env))
    return -1;
  return seconds_since(t);
}

}  // namespace aw::bench
