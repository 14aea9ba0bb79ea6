// The push both forges' follow-up publishers share (follow_up_push.h).
#include "forge/follow_up_push.h"

#include "check/sanitize.h"
#include "unit/apply.h"

namespace aw {

Result<Applied> push_follow_up(const ApplyInput& in, ApplyTarget head, FollowUpPlace place,
                               const std::string& where) {
  FastForwardRequest ff;
  ff.target = std::move(head);
  ff.target.borrow_objects_of = in.mirror_dir;
  ff.unit_id = in.unit_id;
  ff.base_commit = in.base_commit;
  ff.patch = in.patch;
  ff.checked_paths = in.paths;
  ff.message = sanitize_commit_message(commit_message(in));  // whoever built it
  ff.scratch_dir = in.scratch_dir;
  AW_TRY(ff.askpass, askpass_program());
  AW_TRY(FastForwardResult pushed, with_context(publish_fast_forward(ff), where));
  Applied a;
  a.result = PublishResult{pushed.branch, pushed.commit, pushed.already_applied};
  a.target = std::move(place.target);
  a.pull_url = std::move(place.url);
  return a;
}

}  // namespace aw
