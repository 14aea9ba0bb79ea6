// `serve [--listen ADDR:PORT] [--listen-anywhere] [--json]`: the local API and the dashboard.
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "base/fs.h"
#include "base/json_write.h"
#include "cli/commands.h"
#include "config/config.h"
#include "record/store.h"
#include "serve/api.h"
#include "serve/children.h"
#include "serve/guard.h"
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
  auto cfg = load_given_config(g.config);
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
  std::string bound = (*server)->address();
  std::string listening = bound.find(':') == std::string::npos
                              ? fmt::format("{}:{}", bound, port)
                              : fmt::format("[{}]:{}", bound, port);
  // The URL names the address this socket holds: one to 127.0.0.1 while bound to [::1] alone
  // went to whatever else listened on 127.0.0.1 at this port, and the page there read the token
  // from location.hash.
  auto host = page_host(bound, port);
  std::string url = host ? fmt::format("http://{}/#token={}", *host, *token) : "";
  std::string token_file = state + "/serve/token";
  if (!is_loopback_address(opts->address))
    fmt::print(stderr,
               "awaywork serve: WARNING: listening on {} (--listen-anywhere): anyone who can "
               "reach this port and has the token can start units as you; the Host check still "
               "accepts only 127.0.0.1, localhost and [::1] names\n",
               listening);
  if (!host)
    fmt::print(stderr,
               "awaywork serve: no URL printed: this server holds neither 127.0.0.1 nor [::1] "
               "(the only names the page answers to), and a URL to either would go to whatever "
               "else listens there on port {0}. Forward that port here (ssh -L {0}:{1}) and take "
               "the token from {2}\n",
               port, listening, token_file);
  if (g.json)
    fmt::print("{}\n",
               json_text(nlohmann::json{{"address", bound},
                                        {"port", port},
                                        {"url", host ? nlohmann::json(url) : nlohmann::json()},
                                        {"token_file", token_file}}));
  else if (host)
    fmt::print("awaywork serve: listening on {}\nopen {}\n", listening, url);
  else
    fmt::print("awaywork serve: listening on {}\n", listening);
  std::fflush(stdout);
  (*server)->run();
  // run() returns once every unit this server started has ended. One killed after the grace
  // could not record its end; it is marked interrupted now rather than by the next command.
  if (auto again = Store::open(state)) recover_abandoned(*cfg, *again);
  return kExitDone;
}

}  // namespace aw
