// The top-level limits: section (the watchdog's floors, the engine's silence) and
// max_transcript_bytes.
#include <fmt/format.h>

#include <cstdlib>

#include "config/duration.h"
#include "config/parse.h"
#include "config/size.h"

namespace aw {

namespace {

// "1G", "512M", 0 or off (no floor).
void parse_disk_floor(const Value& v, const ParseCtx& ctx, uint64_t& out) {
  constexpr std::string_view hint = "write a size, e.g. disk_floor: 1G (or off)";
  auto s = get_string(v, hint, ctx.issues);
  if (!s) return;
  if (*s == "off" || *s == "0") {
    out = 0;
    return;
  }
  auto n = parse_size(*s);
  if (!n)
    ctx.issues.add(v.mark, v.path, n.error().message);
  else
    out = *n;
}

// "5%", 0 or off: a share of the host's total memory that must stay available.
void parse_memory_floor(const Value& v, const ParseCtx& ctx, double& out) {
  constexpr std::string_view hint = "write a percentage of the host's memory, e.g. 5% (or off)";
  auto s = get_string(v, hint, ctx.issues);
  if (!s) return;
  if (*s == "off" || *s == "0") {
    out = 0;
    return;
  }
  char* end = nullptr;
  double d = std::strtod(s->c_str(), &end);
  bool ok = end && end != s->c_str() && std::string_view(end) == "%" && d > 0 && d <= 99;
  if (!ok) {
    ctx.issues.add(v.mark, v.path,
                   fmt::format("'{}' is not a percentage from 0 to 99; {}", *s, hint));
    return;
  }
  out = d;
}

}  // namespace

void parse_watchdog_limits(const Value& v, const ParseCtx& ctx, WatchdogLimits& out) {
  if (!expect_map(v, "write e.g. limits: {disk_floor: 1G, memory_floor: 5%, engine_silence: 60s}",
                  ctx.issues))
    return;
  for (const Field& f :
       map_fields(v, {"disk_floor", "memory_floor", "engine_silence"}, ctx.issues)) {
    if (f.key == "disk_floor")
      parse_disk_floor(f.value, ctx, out.disk_floor);
    else if (f.key == "memory_floor")
      parse_memory_floor(f.value, ctx, out.memory_floor_percent);
    else if (f.key == "engine_silence")
      // How long a container engine may stay silent (config/duration.h).
      parse_duration_key(f.value, ctx, {1000, 3600 * 1000, "1s", "1h"}, "engine_silence: 60s",
                         out.engine_silence_ms);
  }
}

void parse_transcript_cap(const Value& v, const ParseCtx& ctx, uint64_t& out) {
  parse_min_size(v, ctx, "write a size, e.g. max_transcript_bytes: 256M", 4096, "4K",
                 "write e.g. 256M", out);
}

void parse_min_size(const Value& v, const ParseCtx& ctx, std::string_view hint, uint64_t min,
                    std::string_view min_text, std::string_view advice, uint64_t& out) {
  auto s = get_string(v, hint, ctx.issues);
  if (!s) return;
  auto n = parse_size(*s);
  if (!n) {
    ctx.issues.add(v.mark, v.path, n.error().message);
  } else if (*n < min) {
    ctx.issues.add(
        v.mark, v.path,
        fmt::format("'{}' is {} bytes, below the {} minimum; {}", *s, *n, min_text, advice));
  } else {
    out = *n;
  }
}

}  // namespace aw
