// A plugin call under isolation user (issue 28 item 4): with the real owner and worker users of
// tests/isolate/user (AW_NEED_USERS: root, a failure under CI=true) and the real awaywork as the
// worker's sandbox helper, a probe plugin reports from inside that it runs as the worker, cannot
// read the owner's home nor a file only the owner (here root) may read, and its call still works,
// its data folder kept between calls and taken back after each; the same plugin as the owner is
// the positive control (the owner's uid, the owner-only file read). write: folders, a plugin folder
// the worker cannot reach and a worker held by another unit are refused before anything runs.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "../isolate/user/user_fixture.h"
#include "base/fs.h"
#include "isolate/user/handoff.h"
#include "isolate/user/worker_lock.h"
#include "plugin/approval.h"
#include "plugin/call.h"
#include "plugin/worker_call.h"
#include "var_tmp_dir.h"

namespace aw {
namespace {

struct PluginAsWorker : ::testing::Test {
  // Not /tmp: the plugin's sandbox has a private one. 755 and root's: the worker reaches what the
  // test lends it by name and changes none of it.
  test::VarTmpDir tmp{"aw-plugin-user"};
  std::string plugdir = tmp.path + "/plugin", shared = tmp.path + "/shared",
              state = tmp.path + "/state", config = tmp.path + "/config";
  PluginHost host;
  PluginConfig p;

  // Call from each test after AW_NEED_USERS.
  void world(const test::Users& u) {
    ASSERT_FALSE(tmp.path.empty());
    ASSERT_EQ(::chmod(tmp.path.c_str(), 0755), 0);
    for (const auto& d : {plugdir, shared}) ASSERT_TRUE(make_dirs(d, 0755));
    for (const auto& d : {state, config}) ASSERT_TRUE(make_dirs(d, 0700));
    ASSERT_TRUE(write_file(shared + "/ok.txt", "READ-OK", 0644));
    ASSERT_TRUE(write_file(shared + "/owner-only.txt", "OWNER-ONLY", 0600));  // root's
    ASSERT_TRUE(write_file(u.owner_home + "/notes.txt", "OWNER-NOTES-CANARY", 0644));
    ASSERT_EQ(test::sh(fmt::format("chown {0}: {1}/notes.txt", u.owner, u.owner_home)), 0);
    host.run = true;
    host.base.owner_home = u.owner_home;
    host.base.config_dir = config;
    host.base.state_dir = state;
    host.base.root_owner = true;
    host.plugins_dir = state + "/plugins";
    host.worker =
        PluginWorker{u.worker.name, state, std::string(AW_BINARY_DIR) + "/src/cli/awaywork"};
    p.name = "probe";
    p.timeout_ms = 30000;
    p.memory_bytes = 64ull << 20;
    p.processes = 32;
    p.read = {shared};
    std::string body = fmt::format(
        "seen=\"uid=$(id -u)\"\n"
        "grep -q CANARY {0}/notes.txt 2>/dev/null && seen=\"$seen home\"\n"
        "grep -q READ-OK {1}/ok.txt && seen=\"$seen read\"\n"
        "grep -q OWNER-ONLY {1}/owner-only.txt 2>/dev/null && seen=\"$seen owner-only\"\n"
        "test -f \"$HOME/request.json\" && seen=\"$seen kept\"\n"
        "echo \"$req\" > \"$HOME/request.json\" && seen=\"$seen data\"\n",
        u.owner_home, shared);
    std::string text = "#!/bin/sh\nread -r req\n" + body +
                       "printf '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"seen\":\"%s\"}}\\n' "
                       "\"$seen\"\n";
    ASSERT_TRUE(write_file(plugdir + "/plugin.sh", text, 0755));
    p.command = {plugdir + "/plugin.sh"};
  }

  std::string seen() {
    if (auto ok = approve_plugin(p, host.plugins_dir); !ok) return "error: " + ok.error().message;
    auto r = call_plugin(p, host, "probe", {{"unit", "u-1"}});
    if (!r) return "error: " + r.error().message;
    if (!r->result.contains("seen") || !r->result["seen"].is_string()) return "no seen";
    return r->result["seen"].get<std::string>();
  }

  // The worker's data folder is under /tmp, outside the test's own folder.
  void TearDown() override {
    if (std::string data = worker_data(); is_unit_path(data)) (void)remove_tree(data);
  }

  // Where the worker's data folder of the plugin is (its record in the owner's state).
  std::string worker_data() const {
    auto j = nlohmann::json::parse(read_or_empty(worker_data_record(host.plugins_dir + "/probe")),
                                   nullptr, false);
    if (j.is_discarded() || !j.contains("path") || !j["path"].is_string()) return "";
    return j["path"].get<std::string>();
  }
};

TEST_F(PluginAsWorker, ItsUidIsTheWorkersTheOwnersFilesAreOutOfReachAndItsCallWorks) {
  AW_NEED_USERS(u);
  world(*u);
  std::string uid = fmt::format("uid={}", u->worker.uid);
  EXPECT_EQ(seen(), uid + " read data");
  // Its data folder is a unit folder of its own, the owner's again after the call (taken back,
  // closed), holding what the plugin wrote, and kept for the next call.
  std::string data = worker_data();
  ASSERT_TRUE(is_unit_path(data)) << data;
  struct stat st {};
  ASSERT_EQ(::lstat(data.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, ::getuid());
  EXPECT_EQ(st.st_mode & 07777, 0711u);
  EXPECT_NE(read_or_empty(data + "/request.json").find("\"method\":\"probe\""), std::string::npos);
  EXPECT_EQ(seen(), uid + " read kept data");
  EXPECT_EQ(worker_data(), data);
  // Nothing of the worker's survives the call.
  auto left = worker_processes(u->worker.uid);
  ASSERT_TRUE(left.has_value()) << left.error().message;
  EXPECT_TRUE(left->empty());
  // The owner's lock is not left behind: a unit can take the worker.
  auto lock = lock_worker(state, u->worker.name);
  ASSERT_TRUE(lock.has_value()) << lock.error().message;
  unlock_worker(*lock);

  // The positive control: the same plugin as the owner (isolation none) reads the file only the
  // owner may read, with the owner's uid; the home stays hidden by the sandbox either way.
  host.worker.reset();
  EXPECT_EQ(seen(), fmt::format("uid={} read owner-only data", ::getuid()));
}

// A declared secret with injection rules, as the worker: the plugin holds its placeholder, never
// the value, and reads the CA bundle of its egress proxy (lent from the worker's helper folder)
// through the variables its clients use. The request itself through the proxy is
// call_probe_test.cc's (the proxy is the same one, in the owner's process).
TEST_F(PluginAsWorker, ASecretAddedAtTheProxyIsAPlaceholderAndItsCaBundleIsReadable) {
  AW_NEED_USERS(u);
  world(*u);
  const std::string value = "glpat-FAKEworkerFAKE12345678";
  p.net = {"pypi.example.test"};
  p.secrets = {"DEPLOY_PASSWORD"};
  host.secret = [&](const std::string& name) -> Result<std::string> {
    if (name == "DEPLOY_PASSWORD") return value;
    return fail("no secret {}", name);
  };
  InjectRule rule;
  rule.host = "pypi.example.test";
  rule.basic_user = "deploy";
  host.inject["DEPLOY_PASSWORD"] = {rule};
  std::string text =
      "#!/bin/sh\nread -r req\nseen=\n"
      "env | grep -qF -e '" +
      value +
      "' && seen=\"$seen value\"\n"
      "case \"$DEPLOY_PASSWORD\" in awaywork-placeholder-DEPLOY_PASSWORD-*) "
      "seen=\"$seen placeholder\";; esac\n"
      "grep -q 'BEGIN CERTIFICATE' \"$SSL_CERT_FILE\" && seen=\"$seen bundle\"\n"
      "[ \"$CURL_CA_BUNDLE\" = \"$SSL_CERT_FILE\" ] && seen=\"$seen same\"\n"
      "grep -q 'PRIVATE KEY' \"$SSL_CERT_FILE\" && seen=\"$seen key\"\n"
      "printf '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"seen\":\"%s\"}}\\n' \"$seen\"\n";
  ASSERT_TRUE(write_file(plugdir + "/plugin.sh", text, 0755));
  EXPECT_EQ(seen(), " placeholder bundle same");
}

TEST_F(PluginAsWorker, WriteFoldersAreRefusedWithTheFix) {
  AW_NEED_USERS(u);
  world(*u);
  p.write = {shared};
  std::string got = seen();
  EXPECT_NE(got.find("plugin probe: plugins.probe.write cannot be lent under isolation user"),
            std::string::npos)
      << got;
  EXPECT_NE(got.find("fix: remove plugins.probe.write"), std::string::npos) << got;
}

TEST_F(PluginAsWorker, AFolderTheWorkerCannotReachIsRefusedWithTheFix) {
  AW_NEED_USERS(u);
  world(*u);
  ASSERT_EQ(::chmod(plugdir.c_str(), 0700), 0);
  std::string got = seen();
  EXPECT_NE(got.find("under isolation user it runs as the worker " + u->worker.name),
            std::string::npos)
      << got;
  EXPECT_NE(got.find("its folder " + plugdir), std::string::npos) << got;
  EXPECT_NE(got.find("fix: put it where the worker can read it"), std::string::npos) << got;
  // Its program, rewritable by the worker, would run as approved code: refused too.
  ASSERT_EQ(::chmod(plugdir.c_str(), 0755), 0);
  ASSERT_EQ(::chmod((plugdir + "/plugin.sh").c_str(), 0777), 0);
  got = seen();
  EXPECT_NE(got.find("is writable by " + u->worker.name), std::string::npos) << got;
}

TEST_F(PluginAsWorker, ItRunsUnderTheLockOfThisProcesssUnitAndNeverBesideAnothers) {
  AW_NEED_USERS(u);
  world(*u);
  std::string uid = fmt::format("uid={}", u->worker.uid);
  // A unit of this process holds the worker (its isolator's lock), between its phases: its
  // notifiers and checks run under that lock.
  {
    auto lock = lock_worker(state, u->worker.name);
    ASSERT_TRUE(lock.has_value()) << lock.error().message;
    EXPECT_EQ(seen(), uid + " read data");
    unlock_worker(*lock);
  }
  // Another process's plugin call holds it (watch polling a source): waited for, then run.
  {
    int ready[2];
    ASSERT_EQ(::pipe(ready), 0);
    pid_t other = ::fork();
    ASSERT_GE(other, 0);
    if (other == 0) {
      ::close(ready[0]);
      auto lock = lock_worker(state, u->worker.name, std::string(kPluginHolder) + "other");
      char c = lock ? 'L' : 'E';
      (void)!::write(ready[1], &c, 1);
      ::usleep(1500 * 1000);  // a call of 1.5 s
      ::_exit(0);             // the lock goes with the process
    }
    ::close(ready[1]);
    char c = 0;
    ASSERT_EQ(::read(ready[0], &c, 1), 1);
    ASSERT_EQ(c, 'L');
    auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(seen(), uid + " read kept data");
    EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1000));
    int status = 0;
    ::waitpid(other, &status, 0);
    ::close(ready[0]);
  }
  // Another process's unit holds it: the call is refused at once, nothing of it runs.
  int ready[2], done[2];
  ASSERT_EQ(::pipe(ready), 0);
  ASSERT_EQ(::pipe(done), 0);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(ready[0]);
    ::close(done[1]);
    auto lock = lock_worker(state, u->worker.name);
    char c = lock ? 'L' : 'E';
    (void)!::write(ready[1], &c, 1);
    (void)!::read(done[0], &c, 1);  // until the parent closes it
    ::_exit(0);
  }
  ::close(ready[1]);
  ::close(done[0]);
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  ASSERT_EQ(c, 'L');
  std::string got = seen();
  ::close(done[1]);
  int status = 0;
  ::waitpid(child, &status, 0);
  ::close(ready[0]);
  EXPECT_NE(got.find("plugin probe did not run: under isolation user it runs as the worker " +
                     u->worker.name + ", and another unit is running as worker"),
            std::string::npos)
      << got;
}

// The recorded data folder is reused only when owned as the record says (security review L3): a
// /tmp cleaner may remove it and another local user make one of that name with the inode number
// back, and root's chown -R would take their tree. No root needed: the folder is this process's,
// and the owner and worker uids are chosen around it.
TEST(WorkerDataRecord, AFolderIsReusedOnlyWhenOwnedAsTheRecordSays) {
  test::VarTmpDir tmp{"aw-worker-data"};
  ASSERT_FALSE(tmp.path.empty());
  std::string record = worker_data_record(tmp.path);
  auto made = make_unit_folder();
  ASSERT_TRUE(made) << made.error().message;
  UnitFolder f = *made;
  uid_t me = ::getuid(), other = me + 4242;
  WorkerUser w;
  w.name = "aw-fake-worker";
  w.uid = other;  // the worker is not this process
  // Taken back and the owner's: reused.
  ASSERT_TRUE(record_worker_data(record, w, f, false));
  auto r = recorded_worker_data(record, w, me);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->folder.path, f.path);
  EXPECT_FALSE(r->handed);
  EXPECT_NE(read_or_empty(record).find("\"handed\":false"), std::string::npos);
  // The same device and inode, owned by someone who is neither the owner nor (handed) the worker:
  // another user's folder, never reused.
  EXPECT_FALSE(recorded_worker_data(record, w, other + 1).has_value());
  // Handed, but not the worker's: not the folder handed.
  ASSERT_TRUE(record_worker_data(record, w, f, true));
  EXPECT_FALSE(recorded_worker_data(record, w, me).has_value());
  // Handed and the worker's (here the worker is this process): taken back by the caller.
  w.uid = me;
  r = recorded_worker_data(record, w, other);
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->handed);
  // Taken back, yet the worker's: the worker made it, never reused.
  ASSERT_TRUE(record_worker_data(record, w, f, false));
  EXPECT_FALSE(recorded_worker_data(record, w, other).has_value());
  // A link in its place is never followed.
  ASSERT_TRUE(remove_unit_folder(f));
  ASSERT_EQ(::symlink(tmp.path.c_str(), f.path.c_str()), 0);
  EXPECT_FALSE(recorded_worker_data(record, w, me).has_value());
  (void)::unlink(f.path.c_str());
}

}  // namespace
}  // namespace aw
