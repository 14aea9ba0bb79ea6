// A watch window ("22:00-07:00", local time, may cross midnight): whether it is open at a moment,
// and how long until it closes. A window of start -1 is always open.
#pragma once

#include <cstdint>

#include "config/config.h"

namespace aw {

bool window_open(const WatchWindow& w, int64_t unix_seconds);
// Seconds until the open window closes (0 when closed; a large number for always open).
int64_t window_left(const WatchWindow& w, int64_t unix_seconds);

}  // namespace aw
