// Joining the config's injection rules with the values the unit read: the only place the two
// meet, so that the proxy's options are made the same way in every isolation.
#include "unit/unit_injection.h"

namespace aw {

void UnitInjection::into(EgressProxyOptions& o) const {
  o.inject = rules;
  o.placeholders = placeholders;
}

UnitInjection make_unit_injection(const Config& cfg, const std::vector<InjectedSecret>& secrets) {
  UnitInjection out;
  for (const InjectedSecret& s : secrets) {
    auto it = cfg.secrets.find(s.name);
    if (it == cfg.secrets.end() || it->second.inject.empty()) continue;
    for (const InjectRule& r : it->second.inject) {
      EgressInjection e;
      e.secret = s.name;
      e.value = s.value;
      e.host = r.host;
      e.header = r.header;
      e.value_template = r.value;
      e.basic_user = r.basic_user;
      e.methods = r.methods;
      e.paths = r.paths;
      out.rules.push_back(std::move(e));
    }
    out.placeholders[s.placeholder] = s.name;
    out.env.push_back(s.name + "=" + s.placeholder);
    out.literals.push_back(s.value);
    out.literals.push_back(s.placeholder);
  }
  return out;
}

}  // namespace aw
