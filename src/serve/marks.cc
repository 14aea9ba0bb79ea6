#include "serve/marks.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <optional>

#include "base/fs.h"
#include "unit/transcript_index.h"

namespace aw {

namespace {

using nlohmann::json;

// The newlines in [from, to) of the transcript; nullopt when it holds fewer bytes than that.
Result<std::optional<uint64_t>> newlines(const std::string& path, uint64_t from, uint64_t to) {
  if (to == from) return std::optional<uint64_t>(0);
  FILE* f = std::fopen(path.c_str(), "rbe");
  if (!f) {
    if (errno == ENOENT) return std::optional<uint64_t>();
    return fail("open {}: {}", path, errno_text(errno));
  }
  uint64_t count = 0, left = to - from;
  bool bad = ::fseeko(f, static_cast<off_t>(from), SEEK_SET) != 0;
  std::string buf(std::min<uint64_t>(left, 1 << 20), '\0');
  while (!bad && left > 0) {
    size_t want = static_cast<size_t>(std::min<uint64_t>(left, buf.size()));
    size_t got = std::fread(buf.data(), 1, want, f);
    count += static_cast<uint64_t>(std::count(buf.begin(), buf.begin() + got, '\n'));
    left -= got;
    if (got < want) break;
  }
  bad = bad || std::ferror(f) != 0;
  int err = errno;
  std::fclose(f);
  if (bad) return fail("read {} from byte {}: {}", path, from, errno_text(err));
  if (left > 0) return std::optional<uint64_t>();  // not written yet
  return std::optional<uint64_t>(count);
}

}  // namespace

Result<json> log_marks(const std::string& run_dir, uint64_t offset, uint64_t end) {
  // The transcript's size first, then the index: the writer puts a mark in the index before the
  // bytes it marks, so every mark of a byte before that size is in what is read after.
  struct stat st {};
  uint64_t bytes = ::lstat((run_dir + "/transcript.log").c_str(), &st) == 0 ? st.st_size : 0;
  ReadProblem problem;
  auto text = read_file(run_dir + "/transcript.index", ReadOptions{}, &problem);
  bool indexed = bool(text);
  if (!text && !(problem.what == ReadFailure::open && problem.err == ENOENT))
    return fail("{}", text.error().message);
  std::vector<TranscriptMark> marks = text ? parse_marks(*text) : std::vector<TranscriptMark>();

  json phases = json::array(), times = json::array();
  const TranscriptMark* before = nullptr;  // the last mark at or before `offset`
  size_t first_in = marks.size();          // the first mark at or after `offset`
  for (size_t i = 0; i < marks.size(); ++i) {
    const auto& m = marks[i];
    if (m.kind == TranscriptMark::Kind::phase)
      phases.push_back({{"name", m.phase}, {"offset", m.offset}, {"line", m.line}, {"at", m.ms}});
    if (m.offset <= offset) before = &m;
    if (m.offset >= offset && first_in == marks.size()) first_in = i;
  }
  // The time of the bytes at `offset` is the last mark before them.
  if (first_in > 0 && (first_in == marks.size() || marks[first_in].offset > offset)) {
    const auto& m = marks[first_in - 1];
    times.push_back(json::array({m.offset, m.line, m.ms}));
  }
  bool more = false;
  for (size_t i = first_in; i < marks.size() && marks[i].offset < end; ++i) {
    if (times.size() >= kTimesAtMost) {
      more = true;
      break;
    }
    times.push_back(json::array({marks[i].offset, marks[i].line, marks[i].ms}));
  }

  uint64_t from = before ? before->offset : 0, line = before ? before->line : 0;
  json at;  // null unless counted
  if (offset - from <= kCountAtMost) {
    AW_TRY(auto counted, newlines(run_dir + "/transcript.log", from, offset));
    if (counted) at = line + *counted;
  }
  return json{{"indexed", indexed}, {"bytes", bytes}, {"phases", phases},
              {"times", times},     {"line", at},     {"more", more}};
}

}  // namespace aw
