// The redactor on arbitrary bytes and arbitrary chunking: the same output as in one piece, and
// no literal secret ever survives.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "check/redact.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  static const std::vector<std::string> literals = {"s3cr3t-literal-value", "abcdefabcdef",
                                                    "quote\"slash/secret"};
  size_t chunk = 1 + data[0] % 64;
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  std::string whole = aw::redact_all(text, literals);
  aw::Redactor r(literals);
  std::string pieces;
  for (size_t i = 0; i < text.size(); i += chunk) pieces += r.feed(text.substr(i, chunk));
  pieces += r.finish();
  if (pieces != whole) std::abort();
  for (const auto& l : literals)
    if (whole.find(l) != std::string::npos) std::abort();
  return 0;
}
