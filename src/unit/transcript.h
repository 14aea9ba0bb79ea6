// The unit's transcript file: every byte a phase prints passes through one filter (the redactor)
// before it is written.
#pragma once

#include <cstdio>
#include <functional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace aw {

class Transcript {
 public:
  // A streaming filter: it may hold back the tail of a chunk (a secret split across chunks) and
  // must give everything back when called with last=true.
  using Filter = std::function<std::string(std::string_view, bool last)>;
  static Result<Transcript> open(const std::string& path, Filter filter);
  Transcript(Transcript&&) noexcept;
  Transcript& operator=(Transcript&&) noexcept;
  ~Transcript();

  void heading(const std::string& text);  // "── agent: claude -p ──"
  void write(std::string_view bytes);     // through the filter
  void flush();
  void close();  // drains the filter and closes the file

 private:
  Transcript(std::FILE* f, Filter filter) : f_(f), filter_(std::move(filter)) {}
  std::FILE* f_ = nullptr;
  Filter filter_;
};

}  // namespace aw
