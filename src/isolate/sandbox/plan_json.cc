#include "isolate/sandbox/plan_json.h"

#include <nlohmann/json.hpp>

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
      {"disable_for_test", p.disable_for_test},
  };
  return j.dump(2) + "\n";
}

Result<SandboxPlan> plan_from_json(const std::string& text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) return fail("sandbox plan: not a JSON object");
  SandboxPlan p;
  try {
    AW_TRY(p.mode, enum_from<SandboxMode>("mode", j.at("mode").get<std::string>(),
                                          {{"off", SandboxMode::off},
                                           {"preferred", SandboxMode::preferred},
                                           {"required", SandboxMode::required}}));
    AW_TRY(p.network, enum_from<Network>("network", j.at("network").get<std::string>(),
                                         {{"none", Network::none},
                                          {"allowlist", Network::allowlist},
                                          {"host", Network::host}}));
    p.allow = j.at("allow").get<std::vector<std::string>>();
    p.proxy_socket = j.at("proxy_socket").get<std::string>();
    p.proxy_port = j.at("proxy_port").get<uint16_t>();
    for (const auto& b : j.at("bridges"))
      p.bridges.push_back({b.at("socket").get<std::string>(), b.at("port").get<uint16_t>()});
    p.system = j.at("system").get<std::vector<std::string>>();
    p.writable = j.at("writable").get<std::vector<std::string>>();
    p.hidden = j.at("hidden").get<std::vector<std::string>>();
    p.root_only = j.at("root_only").get<std::vector<std::string>>();
    p.owner_home = j.at("owner_home").get<std::string>();
    for (const auto& r : j.at("readable"))
      p.readable.push_back({r.at("source").get<std::string>(), r.at("target").get<std::string>(),
                            r.at("why").get<std::string>()});
    const auto& l = j.at("limits");
    p.limits.memory_bytes = l.at("memory_bytes").get<uint64_t>();
    p.limits.pids = l.at("pids").get<int>();
    p.limits.cpus = l.at("cpus").get<double>();
    p.limits.enabled = l.at("enabled").get<bool>();
    p.apply_limits = j.at("apply_limits").get<bool>();
    p.cgroup_name = j.at("cgroup_name").get<std::string>();
    p.hostname = j.at("hostname").get<std::string>();
    p.disable_for_test = j.at("disable_for_test").get<std::set<std::string>>();
  } catch (const nlohmann::json::exception& e) {
    return fail("sandbox plan: {}", e.what());
  }
  p.unit_netns_fd = -1;
  return p;
}

}  // namespace aw
