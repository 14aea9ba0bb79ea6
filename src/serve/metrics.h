// GET /metrics: the record in Prometheus text format (version 0.0.4): units by state and the
// phases' durations. Token required like the API.
#pragma once

#include <string>

#include "base/result.h"
#include "record/store.h"

namespace aw {

Result<std::string> render_metrics(Store& store);

// A label value escaped for the text format (\\, \", \n).
std::string prometheus_label(const std::string& v);

}  // namespace aw
