#include "unit/transcript_steps.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "base/fs.h"
#include "base/json_write.h"
#include "check/redact.h"

namespace aw {

namespace {

using nlohmann::json;

int64_t steps_now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// pread the whole range or fail; a short read (the file shrank) is an error.
bool pread_all(int fd, char* out, size_t n, uint64_t at) {
  while (n > 0) {
    ssize_t r = ::pread(fd, out, n, static_cast<off_t>(at));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    out += r;
    n -= static_cast<size_t>(r);
    at += static_cast<uint64_t>(r);
  }
  return true;
}

// One line of the file as the API gives it: only the fields a step has, each of its type, so a
// planted file cannot put anything else before the page. Nothing when the line is no step.
bool step_of(std::string_view line, json& out) {
  auto j = json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return false;
  auto kind = j.find("kind");
  if (kind == j.end() || !kind->is_string()) return false;
  bool known = false;
  for (int k = 0; k <= static_cast<int>(TranscriptEvent::Kind::usage); ++k)
    known = known || *kind == to_string(static_cast<TranscriptEvent::Kind>(k));
  if (!known) return false;
  out = json::object();
  out["kind"] = *kind;
  for (const char* key : {"text", "tool"}) {
    auto it = j.find(key);
    if (it != j.end() && it->is_string()) out[key] = *it;
  }
  if (!out.contains("text")) out["text"] = "";
  for (const char* key : {"input_tokens", "output_tokens", "ms", "offset"}) {
    auto it = j.find(key);
    if (it != j.end() && it->is_number_integer() && it->get<int64_t>() >= 0) out[key] = *it;
  }
  auto cost = j.find("cost_usd");
  if (cost != j.end() && cost->is_number() && std::isfinite(cost->get<double>()) &&
      cost->get<double>() > 0)
    out["cost_usd"] = *cost;
  return true;
}

constexpr size_t kStepsChunk = 256u << 10;

}  // namespace

std::string format_step(const TranscriptEvent& e, int64_t ms, uint64_t offset) {
  json j = e;
  j["ms"] = ms;
  j["offset"] = offset;
  return json_text(j) + "\n";
}

TranscriptSteps::TranscriptSteps(std::string_view provider, std::string path,
                                 const std::vector<std::string>* literals, uint64_t max_bytes)
    : parser_(provider), path_(std::move(path)), literals_(literals), cap_(max_bytes) {}

TranscriptSteps::~TranscriptSteps() {
  if (fd_ >= 0) ::close(fd_);
}

void TranscriptSteps::feed(std::string_view bytes, uint64_t at) {
  // Line by line, so that each step is stamped with the offset of the line that made it.
  while (!bytes.empty()) {
    size_t nl = bytes.find('\n');
    size_t n = nl == std::string_view::npos ? bytes.size() : nl + 1;
    if (line_start_) line_at_ = at;
    line_start_ = nl != std::string_view::npos;
    parser_.feed(bytes.substr(0, n));
    if (line_start_) put(parser_.take());
    bytes.remove_prefix(n);
    at += n;
  }
}

std::vector<TranscriptEvent> TranscriptSteps::finish() {
  put(parser_.finish());
  line_start_ = true;
  return std::exchange(phase_, {});
}

void TranscriptSteps::put(std::vector<TranscriptEvent> events) {
  if (events.empty()) return;
  int64_t ms = steps_now_ms();
  for (auto& e : events) {
    if (literals_) {
      e.text = redact_all(e.text, *literals_);
      e.tool = redact_all(e.tool, *literals_);
    }
    std::string line = format_step(e, ms, line_at_);
    if (cap_ > 0 && written_ + line.size() > cap_) {
      // The first step past the cap writes why the file ends (once; it may pass the cap by its
      // own few bytes); the events still go to events.json at the phase's end, as before.
      if (dropped_++ == 0) {
        TranscriptEvent note;
        note.kind = TranscriptEvent::Kind::error;
        note.text = fmt::format(
            "the steps file reached {} bytes: later steps are left out here (the log has the "
            "output)",
            cap_);
        append(format_step(note, ms, line_at_));
      }
    } else {
      append(line);
    }
    phase_.push_back(std::move(e));
  }
}

void TranscriptSteps::append(const std::string& line) {
  if (!opened_) {
    opened_ = true;
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd_ < 0) {
      error_ = errno;
      return;
    }
    struct stat st {};
    if (::fstat(fd_, &st) == 0) written_ = static_cast<uint64_t>(st.st_size);
  }
  if (fd_ < 0) return;
  // One write(2) a line on an O_APPEND file: the reader (serve) sees a line whole or, while the
  // call is under way, without its newline, which it leaves for the next read.
  size_t done = 0;
  while (done < line.size()) {
    ssize_t r = ::write(fd_, line.data() + done, line.size() - done);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      if (error_ == 0) error_ = r < 0 ? errno : EIO;
      ::close(fd_);  // a torn line would be all a reader sees of the rest: none from here on
      fd_ = -1;
      return;
    }
    done += static_cast<size_t>(r);
  }
  written_ += line.size();
}

Result<StepsPage> read_steps(const std::string& path, size_t max, StepsCount& seen) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return fail("open {}: {}", path, errno_text(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return fail("stat {}: {}", path, errno_text(errno));
  if (!S_ISREG(st.st_mode)) return fail("{}: not a regular file", path);
  uint64_t size = static_cast<uint64_t>(st.st_size);

  // Count the lines: only the bytes past what was counted before, when it is the same file grown.
  if (seen.dev != st.st_dev || seen.ino != st.st_ino || seen.size > size ||
      seen.mark.size() > seen.size)
    seen = StepsCount{};
  std::string buf;
  if (!seen.mark.empty()) {
    buf.resize(seen.mark.size());
    if (!pread_all(fd, buf.data(), buf.size(), seen.size - buf.size()) || buf != seen.mark)
      seen = StepsCount{};
  }
  seen.dev = st.st_dev;
  seen.ino = st.st_ino;
  for (uint64_t at = seen.size; at < size;) {
    size_t n = static_cast<size_t>(std::min<uint64_t>(kStepsChunk, size - at));
    buf.resize(n);
    if (!pread_all(fd, buf.data(), n, at)) return fail("read {}: {}", path, errno_text(errno));
    size_t last = buf.rfind('\n');
    if (last == std::string::npos) {
      if (n < kStepsChunk) break;  // the line being written: counted when it ends
      at += n;                     // a line longer than a chunk: goes on to its end
      continue;
    }
    seen.lines += static_cast<uint64_t>(std::count(buf.begin(), buf.begin() + last + 1, '\n'));
    at += last + 1;
    seen.size = at;
  }
  size_t k = static_cast<size_t>(std::min<uint64_t>(StepsCount::kMarkBytes, seen.size));
  seen.mark.assign(k, '\0');
  if (k > 0 && !pread_all(fd, seen.mark.data(), k, seen.size - k))
    return fail("read {}: {}", path, errno_text(errno));
  StepsPage page;
  page.total = seen.lines;
  page.events = json::array();

  // The last `max` lines, read backwards from the end of the last complete line.
  std::vector<std::string> lines;  // newest first
  std::string tail;                // the bytes of a line begun in the chunk read before
  uint64_t end = seen.size;
  while (end > 0 && lines.size() < max) {
    size_t n = static_cast<size_t>(std::min<uint64_t>(kStepsChunk, end));
    std::string chunk(n, '\0');
    if (!pread_all(fd, chunk.data(), n, end - n))
      return fail("read {}: {}", path, errno_text(errno));
    end -= n;
    chunk += tail;
    // chunk ends with a newline (the end of the last complete line, or of the line after it)
    size_t stop = chunk.size() - 1;  // the newline that ends the line being cut out
    while (lines.size() < max) {
      size_t nl = stop == 0 ? std::string::npos : chunk.rfind('\n', stop - 1);
      if (nl == std::string::npos) break;
      lines.push_back(chunk.substr(nl + 1, stop - nl - 1));
      stop = nl;
    }
    tail = chunk.substr(0, stop + 1);
    if (end == 0 && lines.size() < max && stop > 0) lines.push_back(tail.substr(0, stop));
    if (end == 0 && lines.size() < max && stop == 0) lines.push_back("");
    // A single line over the whole 64 MiB cap would never come from the writer: stop looking.
    if (tail.size() > TranscriptSteps::kMaxBytes) break;
  }
  page.left_out = page.total > lines.size() ? page.total - lines.size() : 0;
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    json step;
    if (step_of(*it, step)) page.events.push_back(std::move(step));
  }
  return page;
}

}  // namespace aw
