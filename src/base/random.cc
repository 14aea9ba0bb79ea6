#include "base/random.h"

#include <sys/random.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "base/fs.h"
#include "base/hex.h"

namespace aw {

namespace detail {

Status random_bytes_from(RandomSource source, void* out, size_t n) {
  auto* p = static_cast<unsigned char*>(out);
  for (size_t got = 0; got < n;) {
    errno = 0;
    ssize_t r = source(p + got, n - got, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      // Nothing half-filled is left to be mistaken for random bytes by a caller that ignores this.
      std::memset(out, 0, n);
      return fail("getrandom: {}", r < 0 ? errno_text(errno) : "it returned no bytes");
    }
    got += static_cast<size_t>(r);
  }
  return {};
}

}  // namespace detail

Status random_bytes(void* out, size_t n) {
  return detail::random_bytes_from(&::getrandom, out, n);
}

Result<std::string> random_hex(size_t n) {
  std::vector<unsigned char> bytes(n);
  AW_CHECK(random_bytes(bytes.data(), n));
  return to_hex(bytes);
}

}  // namespace aw
