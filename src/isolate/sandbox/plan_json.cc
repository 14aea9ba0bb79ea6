#include "isolate/sandbox/plan_json.h"

#include <nlohmann/json.hpp>

#include "base/json_read.h"
#include "base/json_write.h"

namespace aw {

namespace {

// The config's words for these, spelled here so that the sandbox needs nothing of config/'s code.
const char* word(SandboxMode m) {
  return m == SandboxMode::off ? "off" : m == SandboxMode::preferred ? "preferred" : "required";
}
const char* word(Network n) {
  return n == Network::none ? "none" : n == Network::allowlist ? "allowlist" : "host";
}

template <typename E>
Result<E> enum_from(const std::string& field, const std::string& v,
                    std::initializer_list<std::pair<const char*, E>> names) {
  for (const auto& [n, e] : names)
    if (v == n) return e;
  return fail("sandbox plan: {}: unknown value '{}'", field, v);
}

}  // namespace

std::string plan_to_json(const SandboxPlan& p) {
  nlohmann::json readable = nlohmann::json::array();
  for (const auto& r : p.readable)
    readable.push_back({{"source", r.source}, {"target", r.target}, {"why", r.why}});
  nlohmann::json bridges = nlohmann::json::array();
  for (const auto& b : p.bridges) bridges.push_back({{"socket", b.socket}, {"port", b.port}});
  nlohmann::json j = {
      {"mode", word(p.mode)},
      {"network", word(p.network)},
      {"allow", p.allow},
      {"proxy_socket", p.proxy_socket},
      {"proxy_port", p.proxy_port},
      {"bridges", bridges},
      {"system", p.system},
      {"writable", p.writable},
      {"hidden", p.hidden},
      {"root_only", p.root_only},
      {"owner_home", p.owner_home},
      {"readable", readable},
      {"limits",
       {{"memory_bytes", p.limits.memory_bytes},
        {"pids", p.limits.pids},
        {"cpus", p.limits.cpus},
        {"enabled", p.limits.enabled}}},
      {"apply_limits", p.apply_limits},
      {"cgroup_name", p.cgroup_name},
      {"hostname", p.hostname},
  };
  return json_text(j, 2) + "\n";
}

// Every field required and read through JsonRead (base/json_read.h): a missing or wrongly typed
// one is an Error naming it ("sandbox plan: field \"bridges[0].port\": ..."), never a throw.
Result<SandboxPlan> plan_from_json(const std::string& text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) return fail("sandbox plan: not a JSON object");
  // The test-only switches that leave a protection out are set in-process by a test's own plan
  // (SandboxPlan::disable_for_test), never read from a plan another process wrote: a plan naming
  // them is no plan of awaywork's.
  if (j.contains("disable_for_test"))
    return fail("sandbox plan: field \"disable_for_test\" is test-only and never travels");
  JsonRead r(j, "sandbox plan");
  SandboxPlan p;
  AW_TRY(std::string mode, r.str("mode"));
  AW_TRY(p.mode, enum_from<SandboxMode>("mode", mode,
                                        {{"off", SandboxMode::off},
                                         {"preferred", SandboxMode::preferred},
                                         {"required", SandboxMode::required}}));
  AW_TRY(std::string network, r.str("network"));
  AW_TRY(p.network, enum_from<Network>("network", network,
                                       {{"none", Network::none},
                                        {"allowlist", Network::allowlist},
                                        {"host", Network::host}}));
  AW_TRY(p.allow, r.strings("allow"));
  AW_TRY(p.proxy_socket, r.str("proxy_socket"));
  AW_TRY(p.proxy_port, r.uint_in<uint16_t>("proxy_port"));
  AW_TRY(std::vector<JsonRead> bridges, r.array("bridges"));
  for (const JsonRead& b : bridges) {
    SandboxPlan::Bridge one;
    AW_TRY(one.socket, b.str("socket"));
    AW_TRY(one.port, b.uint_in<uint16_t>("port"));
    p.bridges.push_back(std::move(one));
  }
  AW_TRY(p.system, r.strings("system"));
  AW_TRY(p.writable, r.strings("writable"));
  AW_TRY(p.hidden, r.strings("hidden"));
  AW_TRY(p.root_only, r.strings("root_only"));
  AW_TRY(p.owner_home, r.str("owner_home"));
  AW_TRY(std::vector<JsonRead> readable, r.array("readable"));
  for (const JsonRead& e : readable) {
    SandboxPlan::ReadOnly one;
    AW_TRY(one.source, e.str("source"));
    AW_TRY(one.target, e.str("target"));
    AW_TRY(one.why, e.str("why"));
    p.readable.push_back(std::move(one));
  }
  AW_TRY(JsonRead l, r.object("limits"));
  AW_TRY(p.limits.memory_bytes, l.uint_in<uint64_t>("memory_bytes"));
  AW_TRY(p.limits.pids, l.int_in<int>("pids"));
  AW_TRY(p.limits.cpus, l.number("cpus"));
  AW_TRY(p.limits.enabled, l.boolean("enabled"));
  AW_TRY(p.apply_limits, r.boolean("apply_limits"));
  AW_TRY(p.cgroup_name, r.str("cgroup_name"));
  AW_TRY(p.hostname, r.str("hostname"));
  p.unit_netns_fd = -1;
  return p;
}

}  // namespace aw
