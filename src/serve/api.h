// The local API's handlers (/api/v1, /metrics): each takes a parsed route and answers JSON (or
// text/x-diff, Prometheus text). Called on the server's worker threads; the live log is streamed
// by the connection (connection.cc) through log_slice().
//   Api api(ctx);
//   Reply r = api.handle(route, body, content_type);
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "base/result.h"
#include "config/config.h"
#include "record/store.h"
#include "serve/children.h"
#include "serve/route.h"

namespace aw {

struct Reply {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
};

// {"error": MESSAGE, "status": N}: every refusal, with what to do in the message.
Reply error_reply(int status, const std::string& message);

struct ApiContext {
  Config cfg;
  std::string config_path;  // passed on to the children as --config ("" = their default)
  std::string state_dir;
  std::string self;  // the awaywork binary the children run
};

// Bytes of a unit's transcript from an offset, and whether more can still come.
struct LogSlice {
  std::string bytes;
  bool ended = false;      // the unit is no longer running and every byte was read
  bool caught_up = false;  // the read reached the end asked for, or the file's end as it is now
};

class Api {
 public:
  Api(ApiContext ctx, Store store, Children& children);
  Reply handle(const Route& route, const std::string& body, const std::string& content_type);
  // Bytes [offset, end) of the transcript, at most 256 KiB of them per call. Error when the unit
  // does not exist.
  Result<LogSlice> log_slice(const std::string& id, uint64_t offset, uint64_t end = UINT64_MAX);

 private:
  Reply units(const Route& r);
  Reply unit(const std::string& id);
  Reply patch(const std::string& id);
  Reply submit(const std::string& body, const std::string& content_type);
  Reply marks(const Route& r);
  Reply events(const std::string& id);
  Reply thread(const std::string& id);
  Reply cancel(const std::string& id);
  Reply replay(const std::string& id, const std::string& body);
  Reply apply(const std::string& id);
  // Starts `awaywork run|replay … --json` (argv after the binary and --config) and waits for the
  // record it makes: 202 {id, unit}; what it said when it ended before that is a 400.
  // prompt_file, when given, goes once the run has read it (or failed).
  Reply start_unit(const std::vector<std::string>& args, const std::string& prompt_file,
                   const char* command);
  Reply doctor();
  Reply config();
  Reply watcher();
  Reply metrics();
  Result<UnitRecord> get(const std::string& id);
  std::vector<std::string> self_argv(std::vector<std::string> args) const;

  ApiContext ctx_;
  std::mutex store_mu_;  // one SQLite connection, shared by the worker threads
  Store store_;
  Children& children_;
};

}  // namespace aw
