// A repository's loop (docs/rounds.md): `loop: {rounds: N}`, how many agent rounds a unit may
// take while its checks fail, and `when:`, the command that decides whether the unit runs at all.
#include <fmt/format.h>

#include "config/parse.h"

namespace aw {

// More rounds than this is a runaway loop, not a plan: each round is a full agent run.
constexpr int64_t kMaxRounds = 20;

bool parse_loop_field(const Field& f, const ParseCtx& ctx, RepoConfig& out) {
  if (f.key == "when") {
    if (auto argv = get_command(f.value, ctx.issues)) out.when = *argv;
    return true;
  }
  if (f.key != "loop") return false;
  if (!expect_map(f.value, "write e.g. loop: {rounds: 3}", ctx.issues)) return true;
  for (const Field& k : map_fields(f.value, {"rounds"}, ctx.issues))
    if (auto n = get_int(k.value, 1, kMaxRounds,
                         fmt::format("write a whole number of agent rounds from 1 to {}, e.g. "
                                     "rounds: 3",
                                     kMaxRounds),
                         ctx.issues))
      out.rounds = static_cast<int>(*n);
  return true;
}

}  // namespace aw
