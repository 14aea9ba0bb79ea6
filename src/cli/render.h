// Text renderings of records for people; --json prints to_json(record) instead.
#pragma once

#include <string>
#include <vector>

#include "record/record.h"

namespace aw {

std::string render_summary(const UnitRecord& u);                 // after `run`
std::string render_detail(const UnitRecord& u);                  // `show ID`
std::string render_table(const std::vector<UnitRecord>& units);  // `units`

// What a unit's egress log said of one injected secret (config `secrets:`, issue 27), by name:
// the hosts it was added for and in how many requests, and where its placeholder was refused
// (sent to a host without its rule). Never a value: the log holds none.
struct InjectedUse {
  std::string name;
  std::vector<std::string> hosts;    // added for, in the order first seen
  int requests = 0;                  // requests it was added to
  std::vector<std::string> refused;  // hosts its placeholder was sent to and refused
};
// `show ID`'s lines for them; "" when the log named none.
std::string render_injected_use(const std::vector<InjectedUse>& use);

}  // namespace aw
