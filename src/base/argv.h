// A NULL-terminated `char*` array for execve/posix_spawn (an argv or an envp) that owns its
// strings. Build it before fork: the child of a threaded process may only make system calls (no
// allocation), so it must find the array ready.
//
//   CStrings argv(spec.argv), envp(spec.env);
//   ::execve(argv.get()[0], argv.get(), envp.get());
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace aw {

class CStrings {
 public:
  CStrings() { point(); }
  explicit CStrings(std::vector<std::string> strings) : strings_(std::move(strings)) { point(); }
  // A move hands the strings' buffer over whole: each string stays where it is, and so do the
  // pointers to it. A moved-from CStrings is for assigning to, not for exec.
  CStrings(CStrings&&) noexcept = default;
  CStrings& operator=(CStrings&&) noexcept = default;
  // A copy has strings of its own: its pointers are made anew.
  CStrings(const CStrings& o) : strings_(o.strings_) { point(); }
  CStrings& operator=(const CStrings& o) {
    if (this != &o) {
      strings_ = o.strings_;
      point();
    }
    return *this;
  }

  // The array, its last element nullptr; valid as long as this object is not changed.
  char* const* get() const { return ptrs_.data(); }
  std::size_t size() const { return strings_.size(); }
  bool empty() const { return strings_.empty(); }
  const std::vector<std::string>& strings() const { return strings_; }

 private:
  void point() {
    ptrs_.clear();
    ptrs_.reserve(strings_.size() + 1);
    for (auto& s : strings_) ptrs_.push_back(s.data());
    ptrs_.push_back(nullptr);
  }

  std::vector<std::string> strings_;
  std::vector<char*> ptrs_;
};

}  // namespace aw
