#include "isolate/probe/isolated_run.h"

#include <fmt/chrono.h>
#include <sys/stat.h>

#include <ctime>

#include "base/fs.h"
#include "base/random.h"
#include "config/paths.h"
#include "isolate/choose/choose.h"
#include "isolate/sandbox/unit_view.h"

namespace aw {

namespace {

// An id shaped like a unit's (unit/unit_id.h: 20261129-180312-probe-3f2a), with random bits from
// the kernel: the run's folder, its cgroups and its containers are named by it.
Result<std::string> new_run_id() {
  unsigned r = 0;
  AW_CHECK(with_context(random_bytes(&r, sizeof r), "naming the unit"));
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  return fmt::format("{:%Y%m%d-%H%M%S}-probe-{:04x}", tm, r & 0xffff);
}

// The isolator's side of the run, in the order the pipeline calls it (pipeline.cc, phases.cc).
Result<IsolatedResult> run_in(Isolator& iso, const Config& cfg, const RunFolder& run,
                              const std::string& id, const IsolatedCommand& cmd) {
  AW_TRY(UnitPaths paths, iso.layout(run));
  // No repository: an empty folder stands where a unit's clone would be.
  if (::mkdir(paths.work.c_str(), 0700) != 0)
    return fail("create {}: {}", paths.work, errno_text(errno));
  // As the pipeline does, the prompt is written before ready() (there is none here).
  AW_CHECK(write_file(paths.prompt_file, "", 0600));
  AW_CHECK(iso.ready(CloneDir{paths.work, DirId{}}, paths));
  if (cmd.prepare) {
    SandboxPaths sp = sandbox_base_paths(cfg);
    sp.clone = paths.work;
    sp.home = paths.home;
    sp.provider_state = {paths.tmp, paths.outputs};
    AW_TRY(SandboxPlan plan, make_plan(cfg.sandbox, sp));
    AW_CHECK(cmd.prepare(paths, plan, iso.sandbox_note()));
  }
  PhasePlan phase{"probe", cmd.argv, true};
  for (auto& a : phase.argv)
    for (size_t p; (p = a.find("{tmp}")) != std::string::npos;) a.replace(p, 5, paths.tmp);
  AW_CHECK(iso.before_phase());
  AW_TRY(Launcher launcher, iso.launcher(phase, 0));
  IsolatedResult out;
  out.sandbox_note = iso.sandbox_note();
  PhaseSpec spec;
  spec.name = phase.name;
  spec.argv = phase.argv;
  spec.env = unit_env(paths, id, phase.name, iso, {}, "");
  spec.cwd = paths.work;
  spec.timeout = cmd.timeout;
  spec.launcher = std::move(launcher);
  spec.on_output = [&](Stream s, std::string_view b) {
    (s == Stream::out ? out.out : out.err) += b;
  };
  auto result = run_phase(spec);
  std::vector<std::string> notes;
  AW_CHECK(iso.after_phase(0, notes));
  if (!result) return tl::make_unexpected(result.error());
  out.phase = *result;
  return out;
}

}  // namespace

Result<IsolatedResult> run_isolated(const Config& cfg, const IsolatedCommand& cmd) {
  IsolationSpec spec;
  spec.label = "probe";
  AW_TRY(std::string id, new_run_id());
  AW_TRY(std::unique_ptr<Isolator> iso,
         cmd.isolator ? cmd.isolator(id) : make_isolator(cfg, spec, id));
  AW_TRY(RunFolder run, make_run_folder(state_dir_of(cfg), id));
  auto r = run_in(*iso, cfg, run, id, cmd);
  (void)iso->finish(false);
  (void)remove_tree(run.root);
  return r;
}

}  // namespace aw
