// The request parsing of `awaywork serve` on arbitrary bytes: targets (routes, query strings),
// the guard's headers, and JSON bodies of a new unit. Never crashes; whatever is accepted is
// well-formed (a valid unit id, no path separator in an asset name, the token exactly).
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "serve/guard.h"
#include "serve/route.h"
#include "serve/submit.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 3) {
    case 0: {
      for (const char* method : {"GET", "POST"}) {
        auto r = aw::parse_route(method, in);
        if (!r) continue;
        if (!r->unit_id.empty() && !aw::valid_unit_id(r->unit_id)) std::abort();
        if (r->unit_id.find("..") != std::string::npos) std::abort();
        if (r->asset.find('/') != std::string::npos || r->asset.find('%') != std::string::npos)
          std::abort();
      }
      break;
    }
    case 1: {
      // host \n origin \n authorization \n target
      std::string_view parts[4];
      size_t p = 0;
      for (int i = 0; i < 4; ++i) {
        size_t q = in.find('\n', p);
        parts[i] = in.substr(p, q == std::string_view::npos ? std::string_view::npos : q - p);
        p = q == std::string_view::npos ? in.size() : q + 1;
      }
      const std::string token(64, 'f');
      aw::GuardRequest r{"GET", parts[3], parts[0], parts[1], parts[2], true, {}};
      if (!aw::guard(r, {8080, token}) && parts[2] != "Bearer " + token) std::abort();
      break;
    }
    default: {
      aw::Config cfg;
      cfg.agents["claude"] = {};
      auto r = aw::parse_submit(std::string(in), cfg);
      if (r) {
        if (r->repo.empty() || r->prompt.empty()) std::abort();
        auto args = aw::run_args(*r, "/p");
        if (args.front() != "run" || args.back() != "--json") std::abort();
        for (size_t i = 1; i + 1 < args.size(); ++i)
          if (args[i].rfind("--", 0) != 0) std::abort();  // every value rides in --key=value
      }
    }
  }
  return 0;
}
