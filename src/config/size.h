// Memory sizes as people write them: 4G, 512M, 1024K, 2GiB, or a plain number of bytes.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/result.h"

namespace aw {

// Units are binary (K = 1024) whatever the spelling (K, KB, KiB, k). The error says what is
// wrong and how to write it.
Result<uint64_t> parse_size(std::string_view text);

}  // namespace aw
