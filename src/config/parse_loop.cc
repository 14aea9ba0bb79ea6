// A repository's loop (docs/rounds.md): `loop: {rounds: N}`, how many agent rounds a unit may
// take while its checks fail, `when:`, the command that decides whether the unit runs at all, and
// `follow_up: {max_units_per_pr, max_ci_attempts, cooldown}`, how far watch follows up a pull
// request, and `follow_ci`, whether a failing check on its head asks for a follow-up.
#include <fmt/format.h>

#include "config/parse.h"

namespace aw {

// More rounds than this is a runaway loop, not a plan: each round is a full agent run.
constexpr int64_t kMaxRounds = 20;

// More follow-ups on one pull request than this is a loop between reviewers and the agent.
constexpr int64_t kMaxFollowUps = 50;

namespace {

// A whole number from min to max into out; out unchanged (and an issue naming hint) otherwise.
void int_into(const Value& v, int64_t min, int64_t max, const std::string& hint, Issues& issues,
              int& out) {
  if (auto n = get_int(v, min, max, hint, issues)) out = static_cast<int>(*n);
}

void parse_follow_up(const Value& v, const ParseCtx& ctx, FollowUpLimits& out) {
  if (!expect_map(v, "write e.g. follow_up: {max_units_per_pr: 5, cooldown: 5m}", ctx.issues))
    return;
  for (const Field& k :
       map_fields(v, {"max_units_per_pr", "max_ci_attempts", "cooldown"}, ctx.issues)) {
    if (k.key == "max_ci_attempts") {
      int_into(k.value, 1, kMaxFollowUps,
               fmt::format("write how many follow-ups in a row may fail the same "
                           "check before awaywork stops, 1 to {}, e.g. "
                           "max_ci_attempts: 3",
                           kMaxFollowUps),
               ctx.issues, out.max_ci_attempts);
    } else if (k.key == "max_units_per_pr") {
      int_into(k.value, 0, kMaxFollowUps,
               fmt::format("write how many follow-up units one pull request may get, "
                           "0 to {} (0: none), e.g. max_units_per_pr: 5",
                           kMaxFollowUps),
               ctx.issues, out.max_units_per_pr);
    } else if (k.value.node.IsScalar() && k.value.node.Scalar() == "0") {
      out.cooldown = 0;  // no wait between follow-ups
    } else if (auto s = get_duration(k.value, 7 * 86400, "cooldown: 5m", ctx.issues)) {
      out.cooldown = *s;
    }
  }
}

}  // namespace

bool parse_loop_field(const Field& f, const ParseCtx& ctx, RepoConfig& out) {
  if (f.key == "follow_up") {
    parse_follow_up(f.value, ctx, out.follow_up);
    return true;
  }
  if (f.key == "follow_ci") {
    if (auto b = get_bool(f.value,
                          "write follow_ci: true (a failing check on awaywork's own pull request "
                          "starts a follow-up) or false",
                          ctx.issues))
      out.follow_ci = *b;
    return true;
  }
  if (f.key == "when") {
    if (auto argv = get_command(f.value, ctx.issues)) out.when = *argv;
    return true;
  }
  if (f.key != "loop") return false;
  if (!expect_map(f.value, "write e.g. loop: {rounds: 3}", ctx.issues)) return true;
  for (const Field& k : map_fields(f.value, {"rounds"}, ctx.issues))
    int_into(k.value, 1, kMaxRounds,
             fmt::format("write a whole number of agent rounds from 1 to {}, e.g. rounds: 3",
                         kMaxRounds),
             ctx.issues, out.rounds);
  return true;
}

}  // namespace aw
