// net: and read: of a program run in a sandbox of its own (parse_grants.h).
#include "config/parse_grants.h"

#include <fmt/format.h>

#include "config/validate.h"

namespace aw {

void parse_grant_net(const Value& v, const ParseCtx& ctx, const NetGrantWords& words,
                     std::vector<std::string>& out) {
  auto hosts =
      get_strings(v, fmt::format("write host names, e.g. net: [{}]", words.example), ctx.issues);
  if (!hosts) return;
  for (const std::string& h : *hosts) {
    auto d = check_domain(h);
    if (!d)
      ctx.issues.add(v.mark, v.path,
                     fmt::format("{}; {} only the hosts named here, through awaywork's egress "
                                 "proxy, e.g. net: [{}]",
                                 d.error().message, words.who_reaches, words.example));
    else
      out.push_back(*d);
  }
}

void parse_grant_read(const Value& v, const ParseCtx& ctx, const ReadGrantWords& words,
                      std::vector<std::string>& out) {
  auto paths =
      get_paths(v, ctx, fmt::format("write a list of paths, e.g. read: [{}]", words.example));
  if (!paths) return;
  for (std::string p : *paths) {
    while (p.size() > 1 && p.back() == '/') p.pop_back();  // "~" expands to "HOME/"
    if (p == "/" || p == ctx.home || (!ctx.home.empty() && ctx.home.starts_with(p + "/"))) {
      ctx.issues.add(v.mark, v.path,
                     fmt::format("'{}' would lend {} all of / or your home; name the {} it "
                                 "needs, e.g. read: [{}]",
                                 p, words.who, words.what, words.example));
      continue;
    }
    out.push_back(p);
  }
}

}  // namespace aw
