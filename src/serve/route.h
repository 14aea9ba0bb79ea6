// What a request target names, parsed before anything is read from disk: the route, a validated
// unit id, and the query parameters that route accepts. Pure (no I/O): fuzz/fuzz_serve_route.cc
// feeds it arbitrary targets.
//   auto r = parse_route("GET", "/api/v1/units?state=done&limit=20");
//   if (!r) respond(400, r.error().message);
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "base/result.h"

namespace aw {

enum class RouteKind {
  page,     // GET /            the dashboard (no token: it carries none)
  asset,    // GET /app.js ...  the dashboard's files
  metrics,  // GET /metrics
  config,   // GET /api/v1/config       names of repos, agents, profiles
  units,    // GET /api/v1/units        the listing
  submit,   // POST /api/v1/units       start a unit
  unit,     // GET /api/v1/units/ID
  patch,    // GET /api/v1/units/ID/patch
  log,      // GET /api/v1/units/ID/log
  marks,    // GET /api/v1/units/ID/marks    the log's phases, line numbers and times
  events,   // GET /api/v1/units/ID/events   the agent's transcript events (events.json)
  thread,   // GET /api/v1/units/ID/thread   its pull request's opening unit and follow-ups
  cancel,   // POST /api/v1/units/ID/cancel
  replay,   // POST /api/v1/units/ID/replay   run its task again as a new unit
  apply,    // POST /api/v1/units/ID/apply
  doctor,   // GET /api/v1/doctor
  watcher,  // GET /api/v1/watcher      claims, queue, polls and rate limits of `awaywork watch`
};

struct Route {
  RouteKind kind = RouteKind::page;
  std::string unit_id;                       // for the /units/ID routes
  std::string asset;                         // for asset: "app.js"
  std::map<std::string, std::string> query;  // decoded; only the keys the route accepts
  bool api() const { return kind != RouteKind::page && kind != RouteKind::asset; }
};

// Why a target was refused, with the HTTP status to answer.
struct RouteError {
  int status = 400;
  std::string message;
};

tl::expected<Route, RouteError> parse_route(std::string_view method, std::string_view target);

// A unit id as make_unit_id writes it: [a-z0-9-], 1..80 characters, starting with a digit or
// letter. Anything else (".." or an encoded slash) is refused before it reaches a path.
bool valid_unit_id(std::string_view id);

// Does the query string carry something shaped like a credential (token=, access_token=, ...)?
// Checked before authentication so that the answer can say "send it as a header" and the URL is
// never logged.
bool query_has_credential(std::string_view target);

// Percent-decoding of one query component ('+' is a space); nullopt-like failure on a bad escape.
Result<std::string> decode_component(std::string_view s);

}  // namespace aw
