// Randomness, from the kernel's getrandom(2) only, for names others must not guess (a socket, a
// prompt file, a sweep's rename), tokens (the local API's, the inference proxy's run tokens) and
// key material (the secret store's key, salt and nonces). It fails closed: when the kernel gives
// nothing the caller gets an error, never bytes from a fallback generator (std::rand, the clock,
// a mt19937 seeded once), whose output another process could predict.
//   AW_TRY(std::string name, random_hex(16));        // 32 hex digits
//   AW_CHECK(random_bytes(nonce, sizeof nonce));
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>

#include "base/result.h"

namespace aw {

// Fills out[0, n) from getrandom(2) (flags 0: it waits until the kernel's pool is initialised),
// reading again after an interrupted or short read.
Status random_bytes(void* out, size_t n);

// n random bytes as 2n lowercase hex digits.
Result<std::string> random_hex(size_t n);

namespace detail {
// The source random_bytes reads, replaceable so a test can make it fail: getrandom's signature.
using RandomSource = ssize_t (*)(void* buf, size_t len, unsigned flags);
Status random_bytes_from(RandomSource source, void* out, size_t n);
}  // namespace detail

}  // namespace aw
