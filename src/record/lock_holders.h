// Who holds a lock on an SQLite database, for an error that says which process to look at:
//
//   describe_lock_holders("/s/awaywork.db")
//     -> "pid 1234 (sqlite3) holds a write lock on awaywork.db-shm"
//
// Read from /proc/locks: the POSIX and OFD locks of other processes on the database file, its
// -wal and its -shm (where a WAL database's writer holds its lock).
#pragma once

#include <string>

namespace aw {

std::string describe_lock_holders(const std::string& db);

}  // namespace aw
