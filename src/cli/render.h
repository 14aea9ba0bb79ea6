// Text renderings of records for people; --json prints to_json(record) instead.
#pragma once

#include <string>
#include <vector>

#include "record/record.h"

namespace aw {

std::string render_summary(const UnitRecord& u);                 // after `run`
std::string render_detail(const UnitRecord& u);                  // `show ID`
std::string render_table(const std::vector<UnitRecord>& units);  // `units`

}  // namespace aw
