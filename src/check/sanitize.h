// Deterministic text sanitizing for anything the agent writes that a human or a forge will read.
// The steps, in order (each documented in sanitize.cc):
//   1. ANSI escape sequences removed (CSI, OSC, and two-byte ESC sequences).
//   2. Invalid UTF-8 replaced by U+FFFD; then NFC.
//   3. Removed: C0/C1 controls except \n and \t (\r\n -> \n, lone \r -> \n), DEL, zero-width
//      and bidi formatting characters, U+2028/2029, Unicode tag characters.
//   4. HTML comments removed; tags outside a small safe set escaped (`<` -> `&lt;`); attributes
//      of safe tags dropped.
//   5. URLs whose scheme is not https, or whose host is not allowed, or that carry user info,
//      replaced by "(link removed)"; javascript:/data:/vbscript:/file: likewise.
//   6. @mentions (and @org/team) wrapped in backticks so they notify nobody.
//   7. closes/fixes/resolves #N (all tenses, also owner/repo#N and issue URLs) wrapped in
//      backticks so merging closes nothing.
//   8. Capped at max_bytes on a UTF-8 boundary, with "…" (U+2026) appended when cut.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace aw {

struct SanitizeStats {
  int mentions = 0;  // @mentions neutralized
  int links = 0;     // URLs seen (kept or removed)
  int links_removed = 0;
  bool truncated = false;
};

std::string sanitize_text(std::string_view in, const std::vector<std::string>& allowed_domains,
                          size_t max_bytes, SanitizeStats* stats = nullptr);

// True when host (lowercase ASCII) is an exact entry or a subdomain of a "*.x" entry.
bool host_allowed(std::string_view host, const std::vector<std::string>& allowed_domains);

}  // namespace aw
