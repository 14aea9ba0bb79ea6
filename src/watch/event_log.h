// watch's event log: one JSON object per line (poll, trigger admitted or refused with its reason,
// claim, yield, unit started, phase ended, published, released...), to stderr or a file, each
// with the time and the event's name first.
//
//   EventLog log(stderr_fd_or_file);
//   log.write("trigger_refused", {{"repo", "web"}, {"issue", 4}, {"reason", "role read"}});
#pragma once

#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>

#include "base/result.h"

namespace aw {

class EventLog {
 public:
  // path "" = stderr; a file is appended to (created 0600).
  static Result<EventLog> open(const std::string& path);
  EventLog(EventLog&&) noexcept;
  ~EventLog();
  void write(const std::string& event, nlohmann::json fields = nlohmann::json::object());
  int lines() const { return lines_; }

 private:
  explicit EventLog(std::FILE* f, bool owned) : f_(f), owned_(owned) {}
  std::FILE* f_ = nullptr;
  bool owned_ = false;
  int lines_ = 0;
};

}  // namespace aw
