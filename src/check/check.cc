#include "check/check.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "base/fs.h"
#include "check/patch_parse.h"
#include "check/patch_rules.h"
#include "check/redact.h"

namespace aw {
namespace {

constexpr size_t kMaxSecretRefusals = 20;

void scan_patch_secrets(std::string_view patch, const ParsedPatch& parsed,
                        const RequestContext& ctx, std::vector<Refusal>& out) {
  auto hits = find_secrets(patch, ctx.secrets);
  size_t line = 1, at = 0, shown = 0;
  for (const auto& h : hits) {
    line += size_t(std::count(patch.begin() + long(at), patch.begin() + long(h.offset), '\n'));
    at = h.offset;
    // The file whose section holds the line, for the reader's sake.
    std::string path;
    for (const auto& f : parsed.files)
      if (size_t(f.line) <= line) path = f.path;
    if (shown++ == kMaxSecretRefusals) {
      out.push_back({"patch.secret", "", int(line), "more secrets not listed", "patch"});
      break;
    }
    out.push_back({"patch.secret", path, int(line),
                   fmt::format("a secret ({}) in the patch; it is refused, not redacted", h.kind),
                   "patch"});
  }
}

// Validate a path listed as omitted before echoing it (it came from the agent's tree).
std::vector<std::string> checked_omitted(const std::vector<std::string>& in) {
  std::vector<std::string> out;
  for (const auto& p : in) out.push_back(check_path_shape(p) ? "(unprintable path)" : p);
  return out;
}

}  // namespace

Verdict check_outputs(std::string_view patch, std::optional<std::string_view> requests_jsonl,
                      const Bounds& bounds, const RequestContext& ctx) {
  Verdict v;
  ParsedPatch parsed = parse_patch(patch);
  v.refusals = parsed.refusals;
  check_patch_rules(parsed, patch.size(), bounds, v.refusals);
  check_encoded(patch, parsed, bounds, v.refusals);
  scan_patch_secrets(patch, parsed, ctx, v.refusals);
  v.stats.bytes = patch.size();
  v.stats.files = parsed.files.size();
  for (const auto& f : parsed.files) {
    v.stats.added_lines += f.added;
    v.stats.removed_lines += f.removed;
  }
  if (requests_jsonl) {
    if (requests_jsonl->size() > kMaxRequestsBytes)
      v.refusals.push_back({"request.too_big", "", 0, "requests over 1 MiB", "requests"});
    else
      v.requests = parse_requests(*requests_jsonl, bounds, ctx, v.refusals);
  }
  v.omitted = checked_omitted(ctx.omitted);
  v.accepted = v.refusals.empty();
  if (v.accepted) {
    for (const auto& f : parsed.files) v.paths.push_back(f.path);
  } else {
    v.requests.clear();  // nothing of a refused unit is published
  }
  return v;
}

Result<std::string> read_requests_file(const std::string& path) {
  // Never through a link the agent planted; a FIFO or device is refused without blocking.
  return read_file(path, kMaxRequestsBytes);
}

Result<Verdict> check_files(const std::string& bounds_path, const std::string& patch_path,
                            const std::optional<std::string>& requests_path,
                            const RequestContext& ctx) {
  AW_TRY(Bounds bounds, load_bounds(bounds_path));
  // Read generously: the size bound is a refusal in the verdict, not an input error.
  AW_TRY(std::string patch, with_context(read_file(patch_path, 64u << 20), "patch"));
  std::optional<std::string> requests;
  if (requests_path) {
    AW_TRY(std::string r, with_context(read_requests_file(*requests_path), "requests"));
    requests = std::move(r);
  }
  std::optional<std::string_view> rv;
  if (requests) rv = *requests;
  return check_outputs(patch, rv, bounds, ctx);
}

}  // namespace aw
