// How the unit is wired to the rooms above it (issue 39): no phase's context can reach the forge's
// session (item 3; DESIGN.md invariant 8), observers are told in order, a repository publishes
// through the publisher handed in.
//
// Every phase gets a PhaseContext, which holds the Target; the static_asserts below name each of
// their members and its type, so a member planted in either (a session, a publisher, a type-erased
// handle) fails to compile here until this list is changed, and the list admits none of them.
// What the members' own types may hold is the layout check's: no type of the unit or a room
// beneath it may name a credential holder (docs/layout.md, tests/scripts/check_layout_test.sh).
#include <gtest/gtest.h>

#include <type_traits>

#include "unit/apply.h"
#include "unit/steps.h"

namespace aw {
namespace {

using Clock = std::chrono::steady_clock;

// A publisher may hold a credential (the forge's holds its session): no phase holds one.
template <class T>
constexpr bool is_publisher =
    std::is_base_of_v<Publisher, std::remove_cvref_t<std::remove_pointer_t<std::decay_t<T>>>>;

// Never called: compiling it is the test. A structured binding names every member in order, so
// one more member (or one fewer) is a compile error.
[[maybe_unused]] void phase_context_members(PhaseContext& ctx) {
  auto& [target, paths, isolator, unit_id, prompt, deadline, transcript, obs, profile, agent,
         watchdog, literals, save] = ctx;
  static_assert(std::is_same_v<decltype(target), const Target&>);
  static_assert(std::is_same_v<decltype(paths), const UnitPaths&>);
  static_assert(std::is_same_v<decltype(isolator), Isolator&>);
  static_assert(std::is_same_v<decltype(unit_id), const std::string&>);
  static_assert(std::is_same_v<decltype(prompt), const std::string&>);
  static_assert(std::is_same_v<decltype(deadline), Clock::time_point>);
  static_assert(std::is_same_v<decltype(transcript), Transcript&>);
  static_assert(std::is_same_v<decltype(obs), UnitObserver&>);
  static_assert(std::is_same_v<decltype(profile), const ResolvedProfile&>);
  static_assert(std::is_same_v<decltype(agent), AgentSession*>);
  static_assert(std::is_same_v<decltype(watchdog), Watchdog*>);
  static_assert(std::is_same_v<decltype(literals), const std::vector<std::string>*>);
  static_assert(std::is_same_v<decltype(save), std::function<void()>>);
}

[[maybe_unused]] void target_members(Target& t) {
  auto& [label, repo, source, base_ref, base_commit, clone_branch, agent, profile, mirror_lock,
         request_repo, instructions_commit] = t;
  static_assert(std::is_same_v<decltype(label), std::string>);
  static_assert(std::is_same_v<decltype(repo), RepoConfig>);
  static_assert(std::is_same_v<decltype(source), SourceRepo>);
  static_assert(std::is_same_v<decltype(base_ref), std::string>);
  static_assert(std::is_same_v<decltype(base_commit), std::string>);
  static_assert(std::is_same_v<decltype(clone_branch), std::string>);
  static_assert(std::is_same_v<decltype(agent), AgentConfig>);
  static_assert(std::is_same_v<decltype(profile), ProfileConfig>);
  static_assert(std::is_same_v<decltype(mirror_lock), std::shared_ptr<MirrorLock>>);
  static_assert(std::is_same_v<decltype(request_repo), std::string>);
  static_assert(std::is_same_v<decltype(instructions_commit), std::string>);
}

// The publisher a unit's repository resolved to is kept beside the target, never in it.
static_assert(!is_publisher<Target>);
static_assert(!is_publisher<ResolvedProfile>);
static_assert(is_publisher<GitPublisher*>);  // the trait itself sees one
static_assert(std::is_same_v<decltype(Resolved::publisher), std::unique_ptr<Publisher>>);

// A publisher that says what it was asked.
class FakePublisher : public Publisher {
 public:
  Result<Applied> publish(const ApplyInput& in) override {
    published.push_back(in.unit_id);
    Applied a;
    a.target = "octo/web";
    a.pull_url = "https://forge.invalid/octo/web/pull/1";
    return a;
  }
  std::vector<std::string> published;
};

ApplyInput forge_input() {
  ApplyInput in;
  in.repo.forge.github = "octo/web";
  in.unit_id = "20250101-000000-x";
  in.patch = "diff --git a/a b/a\n";
  return in;
}

TEST(UnitWiring, AForgeRepositoryWithoutItsPublisherPublishesNothing) {
  // Git's own publisher would make the branch in the mirror; the unit refuses instead.
  auto a = apply_checked(forge_input(), nullptr);
  ASSERT_FALSE(a);
  EXPECT_NE(a.error().message.find("needs its forge session"), std::string::npos)
      << a.error().message;
}

TEST(UnitWiring, TheHandedInPublisherPublishes) {
  FakePublisher pub;
  auto a = apply_checked(forge_input(), &pub);
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_EQ(a->pull_url, "https://forge.invalid/octo/web/pull/1");
  EXPECT_EQ(pub.published, std::vector<std::string>{"20250101-000000-x"});
}

// An observer that writes down what it was told, as a note of the record.
class Listener : public UnitObserver {
 public:
  Listener(std::string name, bool cancel) : name_(std::move(name)), cancel_(cancel) {}
  void started(UnitRecord& u) override { u.notes.push_back(name_ + " started " + u.id); }
  void phase_started(UnitRecord& u, const std::string& p) override {
    u.notes.push_back(name_ + " phase " + p);
  }
  void phase_ended(const PhaseRecord& p) override { ended_phases.push_back(p.name); }
  void ended(UnitRecord& u, UnitState state, const std::string& reason) override {
    u.notes.push_back(name_ + " ended " + to_string(state) + ": " + reason);
  }
  bool cancelled() override {
    ++polled;
    return cancel_;
  }
  std::vector<std::string> ended_phases;
  int polled = 0;

 private:
  std::string name_;
  bool cancel_;
};

TEST(UnitWiring, ObserversAreToldInOrderAndEachIsPolled) {
  Listener display("display", false), comment("comment", true);
  Observers obs({&display, nullptr, &comment});
  UnitRecord u;
  u.id = "u1";
  obs.started(u);
  obs.phase_started(u, "agent");
  PhaseRecord p;
  p.name = "agent";
  obs.phase_ended(p);
  obs.ended(u, UnitState::failed, "check 1 failed");
  EXPECT_EQ(u.notes, (std::vector<std::string>{"display started u1", "comment started u1",
                                               "display phase agent", "comment phase agent",
                                               "display ended failed: check 1 failed",
                                               "comment ended failed: check 1 failed"}));
  EXPECT_EQ(display.ended_phases, std::vector<std::string>{"agent"});
  EXPECT_EQ(comment.ended_phases, std::vector<std::string>{"agent"});
  EXPECT_TRUE(obs.cancelled());  // the second says so
  EXPECT_EQ(display.polled, 1);  // the first is polled all the same (it ticks a display)
  EXPECT_EQ(comment.polled, 1);
  Listener quiet("quiet", false);
  Observers none({&quiet});
  EXPECT_FALSE(none.cancelled());
}

}  // namespace
}  // namespace aw
