// Result<T>: how errors travel between rooms. No exceptions cross a module boundary; an error is a
// message that each layer prefixes with its own context on the way up.
#pragma once

#include <fmt/format.h>

#include <concepts>
#include <string>
#include <tl/expected.hpp>
#include <utility>

namespace aw {

struct Error {
  std::string message;
};

template <class T>
using Result = tl::expected<T, Error>;

// Status is a Result with nothing to return.
using Status = Result<void>;

// A message made at run time, taken as it is. Only a std::string: a literal goes to the overload
// below, which checks it at compile time and reads "{{" as "{". (A plain std::string parameter
// took literals too, and won as the non-template: their doubled braces reached the reader.)
template <std::same_as<std::string> S>
tl::unexpected<Error> fail(S message) {
  return tl::unexpected<Error>(Error{std::move(message)});
}

template <class... A>
tl::unexpected<Error> fail(fmt::format_string<A...> f, A&&... args) {
  return tl::unexpected<Error>(Error{fmt::format(f, std::forward<A>(args)...)});
}

// Prefix an error with what the caller was doing: "clone repo x: git exited 128".
template <class T>
Result<T> with_context(Result<T> r, std::string_view what) {
  if (!r) r.error().message = fmt::format("{}: {}", what, r.error().message);
  return r;
}

}  // namespace aw

// AW_TRY(var, expr): bind the value of a Result or return its error.
#define AW_CONCAT_(a, b) a##b
#define AW_CONCAT(a, b) AW_CONCAT_(a, b)
#define AW_TRY(var, expr)                                           \
  auto AW_CONCAT(aw_r_, __LINE__) = (expr);                         \
  if (!AW_CONCAT(aw_r_, __LINE__))                                  \
    return tl::unexpected<::aw::Error>(AW_CONCAT(aw_r_, __LINE__).error()); \
  var = std::move(*AW_CONCAT(aw_r_, __LINE__))
// AW_CHECK(expr): return the error of a Status.
#define AW_CHECK(expr)                                                     \
  do {                                                                     \
    auto aw_s_ = (expr);                                                   \
    if (!aw_s_) return tl::unexpected<::aw::Error>(aw_s_.error());         \
  } while (0)
