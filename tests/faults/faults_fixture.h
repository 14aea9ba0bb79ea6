// Shared by the fault tests: what the owner finds after something broke around a unit.
//
//   EXPECT_EQ(integrity_check(root + "/state/awaywork.db"), "ok");
//   ASSERT_TRUE(eventually([&] { return exists(marker); }, std::chrono::minutes(2)));
#pragma once

#include <chrono>
#include <functional>
#include <string>

namespace aw::test {

// PRAGMA integrity_check of the SQLite database at path, opened read-only: "ok" when it is
// sound, else what SQLite found (or why it could not open it).
std::string integrity_check(const std::string& db);

// Polls pred every 20 ms until it holds (true) or `within` has passed (false).
bool eventually(const std::function<bool()>& pred, std::chrono::milliseconds within);

}  // namespace aw::test
