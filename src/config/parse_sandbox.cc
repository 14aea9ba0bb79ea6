// The sandbox: section: policy, network, allowlist domains, extra paths, cgroup limits.

#include "config/parse.h"
#include "config/validate.h"

namespace aw {
namespace {

// Below this a "memory: 4" is surely a forgotten unit, not a limit of 4 bytes.
constexpr uint64_t kMinMemory = 1ull << 20;

void parse_memory(const Value& v, const ParseCtx& ctx, uint64_t& out) {
  parse_min_size(v, ctx, "write a size, e.g. memory: 4G", kMinMemory, "1M", "write a unit, e.g. 4G",
                 out);
}

void parse_limits(const Value& v, const ParseCtx& ctx, Limits& out) {
  if (v.node.IsScalar() && v.node.Scalar() == "off") {
    out.enabled = false;
    return;
  }
  if (!expect_map(v, "write e.g. limits: {memory: 4G, pids: 512, cpu: 2}, or limits: off",
                  ctx.issues))
    return;
  for (const Field& f : map_fields(v, {"memory", "pids", "cpu"}, ctx.issues)) {
    if (f.key == "memory") {
      parse_memory(f.value, ctx, out.memory_bytes);
    } else if (f.key == "pids") {
      if (auto n = get_int(f.value, 1, 4194304, "write e.g. pids: 512", ctx.issues))
        out.pids = static_cast<int>(*n);
    } else if (f.key == "cpu") {
      if (auto d = get_number(f.value, 1024, "write a number of CPUs, e.g. cpu: 2 or cpu: 0.5",
                              ctx.issues))
        out.cpus = *d;
    }
  }
}

void parse_allow(const Value& v, const ParseCtx& ctx, std::vector<std::string>& out) {
  constexpr std::string_view hint =
      "write a list of domains, e.g. allow: [example.com, \"*.pypi.org\"]";
  auto items = get_list(v, hint, ctx.issues);
  if (!items) return;
  for (const auto& item : *items) {
    auto s = get_string(item, hint, ctx.issues);
    if (!s) continue;
    if (auto d = check_domain(*s))
      out.push_back(*d);
    else
      ctx.issues.add(item.mark, item.path, d.error().message);
  }
}

}  // namespace

void parse_sandbox(const Value& v, const ParseCtx& ctx, SandboxConfig& out) {
  if (!expect_map(v, "write e.g. sandbox: {mode: preferred, network: none}", ctx.issues)) return;
  const std::vector<std::string> keys = {"mode",   "network",  "allow", "writable",
                                         "hidden", "readable", "limits"};
  for (const Field& f : map_fields(v, keys, ctx.issues)) {
    if (f.key == "mode") {
      if (auto i = get_enum(f.value, {"off", "preferred", "required"}, ctx.issues))
        out.mode = static_cast<SandboxMode>(*i);
    } else if (f.key == "network") {
      if (auto i = get_enum(f.value, {"none", "allowlist", "host"}, ctx.issues))
        out.network = static_cast<Network>(*i);
    } else if (f.key == "allow") {
      parse_allow(f.value, ctx, out.allow);
    } else if (f.key == "writable") {
      if (auto p = get_paths(f.value, ctx, "write a list of paths, e.g. writable: [~/.cache/pip]"))
        out.writable = *p;
    } else if (f.key == "hidden") {
      if (auto p = get_paths(f.value, ctx, "write a list of paths, e.g. hidden: [~/secrets]"))
        out.hidden = *p;
    } else if (f.key == "readable") {
      if (auto p = get_paths(f.value, ctx, "write a list of paths, e.g. readable: [~/notes/api]"))
        out.readable = *p;
    } else if (f.key == "limits") {
      parse_limits(f.value, ctx, out.limits);
    }
  }
}

}  // namespace aw
