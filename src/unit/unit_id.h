// Unit ids sort by time and read well: 20261129-180312-fix-the-typo-3f2a.
#pragma once

#include <ctime>
#include <string>

#include "base/result.h"

namespace aw {

// `when` is UTC seconds; `prompt` gives the slug (first words, [a-z0-9-], at most 24 chars);
// `random` gives the 4 hex digits that keep ids unique within a second.
std::string make_unit_id(std::time_t when, const std::string& prompt, unsigned random);

// A fresh id for now, with random bits from the kernel (base/random.h: an error when it gives
// none, never bits from the clock, which a second unit started in the same tick would share).
Result<std::string> new_unit_id(const std::string& prompt);

// ISO 8601 UTC with milliseconds: 2026-11-29T18:03:12.345Z
std::string iso_now();

}  // namespace aw
