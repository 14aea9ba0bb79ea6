// The leak suite run inside the sandbox exactly as an agent would be, against canaries planted on
// the host; and the mutation tests: each protection turned off alone (or with the second layer
// that also covers it) must make its probe report LEAK, so that no probe passes by construction.
// The reading of the answer and its JSON form: probe_report_test.cc; what the pid namespace and
// die-with-parent protect: sandbox_lifetime_test.cc.
#include "isolate/probe/probe_host.h"
#include "probe_world.h"
#include "proxy/egress_proxy.h"

namespace aw::test {
namespace {


TEST(IsolateProbe, TargetsRoundTripThroughTheirTextForm) {
  World w;
  auto back = parse_probe_targets(format_probe_targets(w.full()));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(format_probe_targets(*back), format_probe_targets(w.full()));
  EXPECT_FALSE(parse_probe_targets("nonsense\n"));
}

TEST(IsolateProbe, EveryProbeIsOkInTheFullSandboxAsRoot) {
  NEED_ROOT();
  World w;
  std::string raw;
  auto r = w.probe(w.plan(), w.full(), 0, &raw);
  EXPECT_EQ(leaks(r), std::set<std::string>{}) << raw;
  EXPECT_GE(r.size(), 25u) << raw;  // every probe ran
}

TEST(IsolateProbe, EveryProbeIsOkInTheFullSandboxAsAnUnprivilegedUser) {
  NEED_ROOT();  // to plant canaries and switch to nobody; the sandbox itself runs unprivileged
  World w;
  ASSERT_EQ(::chmod(w.dir.path.c_str(), 0755), 0);
  for (const auto& d : {w.clone, w.home}) ASSERT_EQ(::chown(d.c_str(), 65534, 65534), 0);
  ASSERT_EQ(::chown((w.clone + "/targets").c_str(), 65534, 65534), 0);
  SandboxPlan plan = w.plan();
  plan.apply_limits = false;  // nobody has no cgroup to limit with
  std::string raw;
  auto r = w.probe(plan, w.t, 65534, &raw);
  EXPECT_EQ(leaks(r), std::set<std::string>{}) << raw;
  EXPECT_GE(r.size(), 20u) << raw;
}

// Positive controls: with exactly these protections off, exactly these probes must find their
// target. Where two layers cover the same thing, each layer alone is shown to hold, then both off.
struct Mutation {
  std::set<std::string> off;
  std::set<std::string> must_leak;
};

TEST(IsolateProbe, EachProtectionTurnedOffMakesItsProbeLeak) {
  NEED_ROOT();
  World w;
  // The home and the source repository are not in the view at all; /etc and /usr/local are,
  // read-only.
  const std::set<std::string> writes = {"write.etc", "write.usr_local_bin"};
  const std::set<std::string> hidden = {"hidden.ssh", "hidden.netrc", "hidden.env_file",
                                        "hidden.database", "hidden.secrets"};
  const std::set<std::string> view = {"view.home_notes", "view.browser_cookies",
                                      "view.other_tool_login", "view.other_home"};
  std::set<std::string> old_view_writes = {"write.home", "write.source_repo", "write.sys"};
  old_view_writes.insert(writes.begin(), writes.end());
  old_view_writes.insert(view.begin(), view.end());
  std::set<std::string> net = {"net.host_loopback"};
  if (w.t.tcp.size() > 1) net.insert("net.egress");
  std::set<std::string> view_and_hidden = view;
  view_and_hidden.insert(hidden.begin(), hidden.end());
  const std::vector<Mutation> table = {
      {{"hidden"}, {}},  // the view holds none of these folders: nothing to mask
      {{"view"}, view},  // the old view: the whole host, the hidden paths masked over it
      {{"view", "hidden"}, view_and_hidden},
      {{"rootonly"}, {"rootonly.planted", "rootonly.shadow"}},
      {{"view", "readonly", "landlock"}, old_view_writes},
      {{"pidns"}, {"proc.owner_processes"}},
      {{"readonly"}, {}},  // landlock alone still refuses every write
      {{"landlock"}, {}},  // the read-only mounts alone still refuse every write
      {{"readonly", "landlock"}, writes},
      {{"netns"}, {}},  // landlock alone still refuses TCP connect and abstract sockets
      {{"netns", "landlock"}, with(net, "socket.abstract")},
      {{"tmp"}, {"socket.ssh_agent"}},
      {{"run"}, {"socket.docker", "socket.dbus_session"}},
      {{"seccomp"},
       {"ptrace", "io_uring", "tiocsti", "socket.vsock", "userns.nested", "keyring.owner"}},
      {{"setsid"}, {"tty.controlling"}},
      {{"nnp"}, {"caps.none"}},
      {{"limits"}, {"limits.pids", "limits.memory"}},
  };
  for (const auto& m : table) {
    SandboxPlan plan = w.plan();
    plan.disable_for_test = m.off;
    std::string raw;
    auto r = w.probe(plan, w.full(), 0, &raw);
    std::string label;
    for (const auto& o : m.off) label += o + " ";
    EXPECT_EQ(leaks(r), m.must_leak) << "with " << label << "off:\n" << raw;
  }
}

// Which probes can find their target on this machine at all (no sandbox): the suite's own
// positive control, so that a probe that cannot fail here is noticed.
TEST(IsolateProbe, WithoutAnySandboxEveryProbeFindsItsTarget) {
  NEED_ROOT();
  World w;
  std::ostringstream out;
  ProbeTargets t = w.full();
  t.fork_bomb = 0;  // unlimited here: shown by the mutation test under limits instead
  t.memory_hog = 0;
  auto results = run_probe_suite(t);
  std::set<std::string> ok;
  for (const auto& r : results)
    if (!r.leaked) ok.insert(r.name + ": " + r.detail);
  // tty.controlling needs a terminal (the mutation test provides one); caps.none: root outside
  // holds capabilities only when the test runs with them. The sandboxed sudo can never succeed
  // (its one-uid map): this is where the sudo probe shows it can find sudo working.
  for (auto it = ok.begin(); it != ok.end();)
    it = it->rfind("tty.controlling", 0) == 0 ? ok.erase(it) : ++it;
  EXPECT_EQ(ok, std::set<std::string>{});
}

// network: allowlist, end to end: the phase reaches an allowed host only through the bridge and
// the egress proxy; another host, fronting by SNI, and the host's loopback stay out of reach.
// Positive controls: the same probes leak when the proxy allows the other host / skips the SNI
// check.
TEST(IsolateProbe, AllowlistReachesOnlyAllowedHostsThroughTheProxy) {
  NEED_ROOT();
  World w;
  test::Upstream up;
  ProbeTargets t = w.t;
  t.http_allowed = {{"net.allowed_host", fmt::format("allowed.test:{}", up.port)}};
  t.http_denied = {{"net.denied_host", fmt::format("other.test:{}", up.port)}};
  t.fronting = {{"net.fronting", fmt::format("allowed.test:{} other.test", up.port)}};
  struct Case {
    std::vector<std::string> allow;
    bool check_sni;
    std::set<std::string> must_leak;
  };
  for (const auto& c : {Case{{"allowed.test"}, true, {}},
                        Case{{"allowed.test", "other.test"}, true, {"net.denied_host"}},
                        Case{{"allowed.test"}, false, {"net.fronting"}}}) {
    EgressProxyOptions o;
    o.socket_path = w.dir.path + "/proxy.sock";
    o.allow = c.allow;
    o.static_hosts = {{"allowed.test", "127.0.0.1"}, {"other.test", "127.0.0.1"}};
    o.allow_private_upstream = true;  // the test's upstream is on the host's loopback
    o.check_sni = c.check_sni;
    auto proxy = EgressProxy::start(o);
    ASSERT_TRUE(proxy) << proxy.error().message;
    SandboxPlan plan = w.plan();
    plan.network = Network::allowlist;
    plan.proxy_socket = o.socket_path;
    std::string raw;
    auto r = w.probe(plan, t, 0, &raw);
    EXPECT_EQ(leaks(r), c.must_leak) << raw;
    EXPECT_EQ(r.count("net.allowed_host"), 1u) << raw;
  }
}

// What `awaywork probe` runs: the targets ProbeHost sets up, all ok inside, and found with the
// matching protection off.
TEST(IsolateProbe, ProbeHostTargetsAreOkInsideAndFoundWithTheProtectionOff) {
  NEED_ROOT();
  World w;
  SandboxPlan plan = w.plan();
  auto host =
      ProbeHost::start(plan, {w.owner + "/projects", w.source, w.owner + "/.config/awaywork/env",
                              w.state + "/awaywork.db", w.state + "/secrets.enc"});
  ASSERT_TRUE(host) << host.error().message;
  const ProbeTargets& t = (*host)->targets();
  EXPECT_FALSE(t.proc_marker.empty());
  EXPECT_FALSE(t.keyring_key.empty());
  std::string raw;
  auto r = w.probe(plan, t, 0, &raw);
  EXPECT_EQ(leaks(r), std::set<std::string>{}) << raw;
  EXPECT_EQ(r.count("hidden.database"), 1u) << raw;
  for (const auto& [off, leak] : std::vector<std::pair<std::set<std::string>, std::string>>{
           {{"netns", "landlock"}, "net.host_loopback"},
           {{"pidns"}, "proc.owner_processes"},
           {{"seccomp"}, "keyring.owner"},
           {{"hidden", "view"}, "hidden.database"}}) {
    SandboxPlan p = plan;
    p.disable_for_test = off;
    auto m = w.probe(p, t, 0, &raw);
    EXPECT_TRUE(m[leak]) << leak << "\n" << raw;
  }
}

// The folders above a unit's own ones (the state folder, runs/, its run folder) are in the view
// only as the way to them, read-only (docs/sandbox.md). With the state folder under the host's
// /tmp they are made in the sandbox's private /tmp, which landlock lets the phase write to: the
// read-only mounts are what refuse them, as the positive control with those off shows.
TEST(IsolateProbe, FoldersAboveTheRunFolderRefuseWritesAlsoUnderTmp) {
  NEED_ROOT();
  World w;
  struct TmpState {
    std::string path;
    TmpState() {
      char tmpl[] = "/tmp/aw-sbx-state-XXXXXX";
      path = ::mkdtemp(tmpl);
    }
    ~TmpState() { (void)remove_tree(path); }
  } tmp;
  std::string state = tmp.path + "/state", run = state + "/runs/u1";
  for (const auto& d : {run + "/work", run + "/home", run + "/tmp", state + "/runs/u0"})
    ASSERT_TRUE(make_dirs(d, 0755));
  SandboxPlan plan = w.plan();
  plan.writable = {w.clone, run + "/work", run + "/home", run + "/tmp"};
  plan.hidden.push_back(state);
  ProbeTargets t;
  t.syscalls = false;
  t.writes = {{"write.state", state}, {"write.runs", state + "/runs"}, {"write.run_folder", run}};
  std::string raw;
  auto r = w.probe(plan, t, 0, &raw);
  EXPECT_EQ(leaks(r), std::set<std::string>{}) << raw;
  EXPECT_EQ(r.size(), 3u) << raw;
  plan.disable_for_test = {"readonly"};
  auto off = w.probe(plan, t, 0, &raw);
  EXPECT_EQ(leaks(off), (std::set<std::string>{"write.state", "write.runs", "write.run_folder"}))
      << raw;
}

}  // namespace
}  // namespace aw::test
