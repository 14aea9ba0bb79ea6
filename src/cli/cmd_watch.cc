#include <fmt/format.h>

#include "base/fs.h"
#include "cli/commands.h"
#include "cli/signals.h"
#include "config/config.h"
#include "watch/watcher.h"

namespace aw {

int cmd_watch(const GlobalOptions& g, const WatchCliOptions& o) {
  auto interrupted = install_interrupt_handlers();
  auto cfg = load_given_config(g.config);
  if (!cfg) {
    fmt::print(stderr, "awaywork: {}\n", cfg.error().message);
    return kExitUsage;
  }
  auto log = EventLog::open(o.log);
  if (!log) {
    fmt::print(stderr, "awaywork watch: {}\n", log.error().message);
    return kExitUsage;
  }
  WatchOptions opt;
  opt.once = o.once;
  opt.self_exe = self_exe();
  opt.stop = interrupted;
  Watcher w(*cfg, opt, *log, system_clock());
  if (auto ok = w.run(); !ok) {
    fmt::print(stderr, "awaywork watch: {}\n", ok.error().message);
    return kExitFailed;
  }
  return kExitDone;
}

}  // namespace aw
