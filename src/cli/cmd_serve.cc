// `serve [--listen ADDR:PORT] [--listen-anywhere] [--json]`: the local API and the dashboard.
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "base/fs.h"
#include "cli/commands.h"
#include "config/config.h"
#include "record/store.h"
#include "serve/api.h"
#include "serve/children.h"
#include "serve/server.h"
#include "serve/token.h"
#include "unit/pipeline.h"

namespace aw {

int cmd_serve(const GlobalOptions& g, const ServeCliOptions& o) {
  auto opts = parse_listen(o.listen, o.anywhere);
  if (!opts) {
    fmt::print(stderr, "awaywork serve: {}\n", opts.error().message);
    return kExitUsage;
  }
  std::string config_path = g.config.empty() ? default_config_path() : g.config;
  auto cfg = load_config(config_path, !g.config.empty());
  if (!cfg) {
    fmt::print(stderr, "awaywork: {}\n", cfg.error().message);
    return kExitUsage;
  }
  std::string state = state_dir_of(*cfg);
  auto store = Store::open(state);
  auto token = store ? load_or_make_token(state) : tl::unexpected<Error>(store.error());
  if (!token) {
    fmt::print(stderr, "awaywork serve: {}\n", token.error().message);
    return kExitUsage;
  }
  recover_abandoned(*cfg, *store);
  Children children(state + "/serve/children");
  ApiContext ctx{*cfg, g.config, state, self_exe()};
  Api api(std::move(ctx), std::move(*store), children);
  auto server = Server::bind(*opts, *token, api, children);
  if (!server) {
    fmt::print(stderr, "awaywork serve: {}\n", server.error().message);
    return kExitUsage;
  }
  int port = (*server)->port();
  std::string url = fmt::format("http://127.0.0.1:{}/#token={}", port, *token);
  if (!is_loopback_address(opts->address))
    fmt::print(stderr,
               "awaywork serve: WARNING: listening on {} (--listen-anywhere): anyone who can "
               "reach this port and has the token can start units as you; the Host check still "
               "accepts only 127.0.0.1, localhost and [::1] names\n",
               opts->address);
  if (g.json)
    fmt::print("{}\n", nlohmann::json{{"address", opts->address},
                                      {"port", port},
                                      {"url", url},
                                      {"token_file", state + "/serve/token"}}
                           .dump());
  else
    fmt::print("awaywork serve: listening on {}:{}\nopen {}\n", opts->address, port, url);
  std::fflush(stdout);
  (*server)->run();
  return kExitDone;
}

}  // namespace aw
