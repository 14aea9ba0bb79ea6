// isolation none: the phases run as the owner, in the unit's run folder, with the OS sandbox over
// them when the config asks for it and the machine can build it.
#include <sys/stat.h>

#include "base/fs.h"
#include "unit/isolator.h"
#include "unit/steps.h"

namespace aw {

namespace {

class NoneIsolator : public Isolator {
 public:
  explicit NoneIsolator(std::string note) : note_(std::move(note)) {}
  Result<UnitPaths> layout(const RunDir& dir) override {
    auto p = run_folder_layout(dir);
    if (p) paths_ = *p;
    return p;
  }
  Status ready(const Clone&, const UnitPaths&) override { return {}; }
  Status before_phase() override { return {}; }
  Result<Launcher> launcher(const PhasePlan&, int) override { return Launcher{}; }
  Status after_phase(int, std::vector<std::string>&) override { return {}; }
  // The unit's HOME and TMPDIR go with it; the clone stays for inspection.
  void finish(bool lost) override {
    if (lost || paths_.home.empty()) return;
    (void)remove_tree(paths_.home);
    (void)remove_tree(paths_.tmp);
  }
  std::string sandbox_note() const override { return note_; }

 private:
  std::string note_;
  UnitPaths paths_;
};

}  // namespace

Result<UnitPaths> run_folder_layout(const RunDir& dir) {
  UnitPaths p{dir.work, dir.root + "/home", dir.root + "/tmp", dir.root + "/outputs",
              dir.root + "/prompt.md"};
  for (const auto* sub : {&p.home, &p.tmp, &p.outputs})
    if (::mkdir(sub->c_str(), 0700) != 0) return fail("create {}: {}", *sub, errno_text(errno));
  return p;
}

Result<std::unique_ptr<Isolator>> make_none_isolator(const Config& cfg, const Target&,
                                                     const std::string&) {
  if (cfg.sandbox.mode == SandboxMode::required)
    return fail("sandbox mode `required`, but this build cannot sandbox yet; set `sandbox: {{mode: "
                "preferred}}` to run unsandboxed (recorded on the unit)");
  std::string note = cfg.sandbox.mode == SandboxMode::off
                         ? "unsandboxed: sandbox mode off"
                         : "unsandboxed: this build has no sandbox yet (mode preferred)";
  return std::unique_ptr<Isolator>(new NoneIsolator(note));
}

}  // namespace aw
