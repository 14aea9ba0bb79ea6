// Codex login lending (DESIGN.md section 4): where the owner uses a ChatGPT login, Codex keeps it
// in ~/.codex/auth.json and refreshes its tokens now and then. A unit gets a copy in its own
// CODEX_HOME; afterwards only a genuine refresh of the same login is saved back, under a lock, and
// only while the owner's file is still the one lent. Anything else the unit left there (another
// account, an older token, garbage, a link) is dropped and the reason recorded.
#pragma once

#include <sys/types.h>

#include <string>

#include "base/result.h"

namespace aw {

// What was lent: enough to tell later whether the owner's file is still the same one.
struct Lease {
  std::string owner_path;   // the owner's auth.json
  std::string unit_path;    // the copy: unit_codex_home/auth.json
  std::string lent_bytes;   // the owner's file as lent, byte for byte
  std::string lent_sha256;  // hex, for notes
  dev_t dev = 0;            // identity of the owner's file when lent
  ino_t ino = 0;
  int64_t mtime_ns = 0;
};

// Copy owner_auth_path (a regular file owned by this user, opened without following a link) to
// unit_codex_home/auth.json, mode 0600. unit_codex_home must be a real directory (not a link) and
// must not hold an auth.json yet.
Result<Lease> lend_codex_login(const std::string& owner_auth_path,
                               const std::string& unit_codex_home);

// After the unit: under an flock on OWNER_PATH.awaywork-lock, save unit_auth_path over the owner's
// file only when it is a genuine refresh of the login lent (valid JSON object; same auth_mode, same
// OPENAI_API_KEY, same non-empty tokens.account_id; a strictly newer RFC 3339 last_refresh) and
// the owner's file is still byte-identical to what was lent. The save is atomic (a temporary file
// in the same folder, 0600, renamed over; no link followed). The string says what happened, for
// the record's notes: "saved ..." or "not saved: WHY; ...". An Error only when a save that should
// happen could not (the lock, the write); the owner's file is then unchanged.
Result<std::string> return_codex_login(const Lease& lease, const std::string& unit_auth_path);

// "2025-01-15T10:30:00.123456Z" or with a "+02:00" offset -> nanoseconds since the epoch.
Result<int64_t> parse_rfc3339(const std::string& text);

}  // namespace aw
