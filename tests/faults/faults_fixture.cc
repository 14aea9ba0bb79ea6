#include "faults_fixture.h"

#include <sqlite3.h>

#include <thread>

namespace aw::test {

std::string integrity_check(const std::string& db) {
  sqlite3* h = nullptr;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    std::string why = "open " + db + ": " + (h ? sqlite3_errmsg(h) : "out of memory");
    sqlite3_close(h);
    return why;
  }
  sqlite3_busy_timeout(h, 5000);
  sqlite3_stmt* s = nullptr;
  std::string out;
  if (sqlite3_prepare_v2(h, "PRAGMA integrity_check", -1, &s, nullptr) != SQLITE_OK) {
    out = std::string("prepare: ") + sqlite3_errmsg(h);
  } else {
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
      const unsigned char* t = sqlite3_column_text(s, 0);
      out += (out.empty() ? "" : "\n") + std::string(t ? reinterpret_cast<const char*>(t) : "");
    }
    if (rc != SQLITE_DONE) out += std::string(out.empty() ? "" : "\n") + sqlite3_errmsg(h);
  }
  sqlite3_finalize(s);
  sqlite3_close(h);
  return out;
}

bool eventually(const std::function<bool()>& pred, std::chrono::milliseconds within) {
  auto end = std::chrono::steady_clock::now() + within;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

}  // namespace aw::test
