#include "cli/render.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/inert.h"

namespace aw {

namespace {

std::string phases_block(const UnitRecord& u) {
  std::string out;
  for (const auto& p : u.phases) {
    out += fmt::format("  {:<10} {:<28} {:>8.2f} s  {}\n", p.name, p.outcome,
                       p.duration_ms / 1000.0, fmt::join(p.argv, " "));
    if (p.leftovers_killed > 0)
      out += fmt::format("  {:<10} killed {} leftover process(es): {}\n", "", p.leftovers_killed,
                         fmt::join(p.leftover_names, ", "));
    if (!p.secrets.empty())
      out += fmt::format("  {:<10} secrets (by name): {}\n", "", fmt::join(p.secrets, ", "));
  }
  return out;
}

std::string lines(const char* title, const std::vector<std::string>& items) {
  if (items.empty()) return "";
  std::string out = fmt::format("{}:\n", title);
  for (const auto& i : items) out += "  - " + i + "\n";
  return out;
}

std::string summary(const UnitRecord& u) {
  std::string out = fmt::format("unit    {}\nstate   {}\n", u.id, to_string(u.state));
  if (!u.reason.empty()) out += fmt::format("reason  {}\n", u.reason);
  out += fmt::format("repo    {} at {} ({})\n", u.repo, u.base_ref, u.base_commit.substr(0, 12));
  if (u.issue > 0)
    out += fmt::format("issue   {}#{} {}{}\n", u.forge_repo, u.issue, u.issue_title,
                       u.issue_url.empty() ? "" : " (" + u.issue_url + ")");
  if (!u.pull_request.empty()) out += fmt::format("pr      {}\n", u.pull_request);
  if (!u.replay_of.empty()) out += fmt::format("replay  of {}\n", u.replay_of);
  out += fmt::format("agent   {}   isolation {}, {}\n", u.agent, u.isolation, u.sandbox);
  if (!u.profile.empty()) out += fmt::format("profile {}\n", u.profile);
  out += "phases:\n" + phases_block(u);
  out += fmt::format("patch   {}\n", u.patch_stat.empty() ? "(none)" : u.patch_stat);
  out += fmt::format("branch  {}\n",
                     u.branch.empty() ? "(none)" : u.branch + " " + u.commit.substr(0, 12));
  if (!u.verdict.empty())
    out += fmt::format("check   {}{}\n", u.verdict,
                       u.requests ? fmt::format(", {} request(s) kept", u.requests) : "");
  out += lines("refused because", u.refusals);
  out += lines("omitted (untracked binaries)", u.omitted);
  out += lines("notes", u.notes);
  out += fmt::format("record  {}\n", u.run_dir);
  if (!u.work.empty() && u.work != u.run_dir + "/work") out += fmt::format("clone   {}\n", u.work);
  return out;
}

}  // namespace

// Records hold hostile text (an issue's title and body in the task, an agent's words in a
// reason): a terminal control sequence in it must be shown, never obeyed by the owner's terminal.
// What is printed goes through inert() whole (base/inert.h: lines kept, all else visible).
std::string render_summary(const UnitRecord& u) {
  return inert(summary(u));
}

std::string render_detail(const UnitRecord& u) {
  std::string out = summary(u);
  out += fmt::format("created {}\nended   {}\nprompt  {}\n", u.created_at,
                     u.ended_at.empty() ? "-" : u.ended_at, u.prompt);
  return inert(out);
}

std::string render_injected_use(const std::vector<InjectedUse>& use) {
  // The hosts are what a phase asked for: hostile text, each kept to one line and made inert.
  auto one_line = [](const std::vector<std::string>& hosts) {
    std::vector<std::string> out;
    for (const auto& h : hosts) out.push_back(inert_line(h));
    return fmt::format("{}", fmt::join(out, ", "));
  };
  std::vector<std::string> items;
  for (const auto& u : use) {
    if (u.requests > 0)
      items.push_back(fmt::format("{}: added to {} request(s) for {}", inert_line(u.name),
                                  u.requests, one_line(u.hosts)));
    if (!u.refused.empty())
      items.push_back(
          fmt::format("{}: its placeholder was refused for {} (an exfiltration attempt)",
                      inert_line(u.name), one_line(u.refused)));
  }
  return inert(lines("secrets the egress proxy used (egress.log)", items));
}

std::string render_table(const std::vector<UnitRecord>& units) {
  if (units.empty()) return "no units yet; start one with `awaywork run --repo R --prompt P`\n";
  auto clip = [](const std::string& s, size_t n) {
    return s.size() > n ? "…" + s.substr(s.size() - (n - 1)) : s;
  };
  std::string out = fmt::format("{:<44} {:<12} {:<16} {:<10} {:<20} {}\n", "UNIT", "STATE", "REPO",
                                "AGENT", "ISSUE", "BRANCH");
  for (const auto& u : units)
    out += fmt::format("{:<44} {:<12} {:<16} {:<10} {:<20} {}\n", u.id, to_string(u.state),
                       clip(u.repo, 16), u.agent,
                       u.issue > 0 ? clip(fmt::format("{}#{}", u.forge_repo, u.issue), 20) : "-",
                       u.branch.empty() ? "-" : u.branch);
  return inert(out);
}

}  // namespace aw
