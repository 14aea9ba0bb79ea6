#include "watch/event_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/json_write.h"
#include "watch/iso_time.h"

namespace aw {

Result<EventLog> EventLog::open(const std::string& path) {
  if (path.empty()) return EventLog(stderr, false);
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return fail("--log {}: {}", path, std::strerror(errno));
  std::FILE* f = ::fdopen(fd, "a");
  if (!f) {
    ::close(fd);
    return fail("--log {}: {}", path, std::strerror(errno));
  }
  return EventLog(f, true);
}

EventLog::EventLog(EventLog&& o) noexcept : f_(o.f_), owned_(o.owned_), lines_(o.lines_) {
  o.f_ = nullptr;
  o.owned_ = false;
}

EventLog::~EventLog() {
  if (owned_ && f_) std::fclose(f_);
}

void EventLog::write(const std::string& event, nlohmann::json fields) {
  if (!f_) return;
  // ordered_json keeps time and event first, for a person reading the lines.
  nlohmann::ordered_json line;
  line["time"] = iso_utc(::time(nullptr));
  line["event"] = event;
  for (auto& [k, v] : fields.items()) line[k] = v;
  std::string text = json_text(line) + "\n";
  std::fwrite(text.data(), 1, text.size(), f_);
  std::fflush(f_);
  ++lines_;
}

}  // namespace aw
