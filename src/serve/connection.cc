// One client connection: read a header within the header timeout, guard it, read the body within
// the body timeout, answer on the worker pool, and stream a live log with chunked encoding.
#include <fmt/format.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <optional>

#include "serve/assets.h"
#include "serve/guard.h"
#include "serve/route.h"
#include "serve/server_internal.h"
#include "serve/vendor.h"

namespace aw {

namespace {

// A live log whose reads keep failing ends after this long (a passing error is retried: SQLite
// busy past its own timeout on a loaded machine, a record being rewritten); the retries wait
// kRetryFirst, doubling to kRetryMost.
constexpr std::chrono::milliseconds kRetryFor{3000}, kRetryFirst{50}, kRetryMost{500};
constexpr std::chrono::milliseconds kPollEvery{25};  // how often a running unit's log is read

// After a last answer, what the client still sends is read and dropped for at most this long and
// this many bytes (see linger_close).
constexpr std::chrono::milliseconds kLingerFor{3000};
constexpr size_t kLingerBytes = 8u << 20;

constexpr const char* kPagePolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

std::optional<std::string_view> header(const http::fields& f, http::field name) {
  auto it = f.find(name);
  if (it == f.end()) return std::nullopt;
  return std::string_view(it->value().data(), it->value().size());
}

// The first header the guard reads that the request gives more than once; empty if none.
std::string_view repeated_header(const http::fields& f) {
  if (f.count(http::field::host) > 1) return "Host";
  if (f.count(http::field::origin) > 1) return "Origin";
  if (f.count(http::field::authorization) > 1) return "Authorization";
  return {};
}

// The parser found the request malformed (and a 400 is owed): an error of beast's HTTP parser
// but the client leaving, at once or mid-request (nobody left to answer).
bool malformed(beast::error_code ec) {
  return ec.category() == http::make_error_code(http::error::bad_method).category() &&
         ec != http::error::end_of_stream && ec != http::error::partial_message;
}

// Headers every response carries; never an Access-Control-* one.
template <class Res>
void common_headers(Res& res, bool page) {
  res.set(http::field::server, "awaywork");
  res.set(http::field::cache_control, "no-store");
  res.set("X-Content-Type-Options", "nosniff");
  res.set("Referrer-Policy", "no-referrer");
  res.set("X-Frame-Options", "DENY");
  res.set("Cross-Origin-Resource-Policy", "same-origin");
  res.set("Cross-Origin-Opener-Policy", "same-origin");
  res.set("Content-Security-Policy", page ? kPagePolicy : "default-src 'none'");
}

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket s, ServerShared& shared)
      : stream_(std::move(s)), shared_(shared), timer_(stream_.get_executor()) {
    ++shared_.connections;
  }
  ~Connection() {
    --shared_.connections;
    stream_over();
  }

  void start() { read_header(); }

 private:
  void read_header() {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(shared_.opts.header_limit));
    parser_->body_limit(shared_.opts.body_limit);
    stream_.expires_after(shared_.opts.header_timeout);
    http::async_read_header(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->on_header(ec); });
  }

  void on_header(beast::error_code ec) {
    if (ec == http::error::body_limit)
      return reply(error_reply(413, fmt::format("the body is larger than {} bytes",
                                                shared_.opts.body_limit)),
                   false, "?", "?");
    if (ec == http::error::header_limit)
      return reply(error_reply(431, "the request headers are too large"), false, "?", "?");
    if (malformed(ec))
      return reply(error_reply(400, fmt::format("malformed HTTP request: {}", ec.message())), false,
                   "?", "?");
    if (ec) return close();  // timeout (a slow client), a reset, or the client gone
    const auto& req = parser_->get();
    method_ = std::string(req.method_string());
    std::string target(req.target());
    path_ = target.substr(0, target.find('?'));  // what the log shows: never the query
    auto route = parse_route(method_, target);
    GuardRequest g{method_,
                   target,
                   header(req, http::field::host),
                   header(req, http::field::origin),
                   header(req, http::field::authorization),
                   !route || route->api(),
                   repeated_header(req)};
    if (auto no = guard(g, {shared_.port, shared_.token})) return refuse(no->status, no->message);
    if (!route) return refuse(route.error().status, route.error().message);
    route_ = std::move(*route);
    if (route_.kind == RouteKind::log) return start_log();
    auto expect = header(req, http::field::expect);
    if (!expect) return read_body();
    if (!beast::iequals(beast::string_view(expect->data(), expect->size()), "100-continue"))
      return refuse(417, "the only Expect this server answers is 100-continue");
    // curl and others wait for this before sending a body; the request passed the guard and the
    // body limit (a larger Content-Length got its 413 above), so the body is welcome.
    static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
    stream_.expires_after(shared_.opts.body_timeout);
    net::async_write(stream_, net::buffer(kContinue.data(), kContinue.size()),
                     [self = shared_from_this()](beast::error_code ec, size_t) {
                       if (ec) return self->close();
                       self->read_body();
                     });
  }

  void read_body() {
    stream_.expires_after(shared_.opts.body_timeout);
    http::async_read(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->on_body(ec); });
  }

  void refuse(int status, const std::string& message) {
    reply(error_reply(status, message), false, method_, path_);
  }

  void on_body(beast::error_code ec) {
    if (ec == http::error::body_limit)
      return refuse(413, fmt::format("the body is larger than {} bytes", shared_.opts.body_limit));
    if (malformed(ec)) return refuse(400, fmt::format("malformed HTTP request: {}", ec.message()));
    if (ec) return close();
    stream_.expires_never();  // the handler may take a while (doctor); the write gets its own
    const auto& req = parser_->get();
    bool keep = req.keep_alive();
    if (route_.kind == RouteKind::page || route_.kind == RouteKind::asset) {
      const Asset* a = find_asset(route_.kind == RouteKind::page ? "index.html" : route_.asset);
      if (!a && route_.kind == RouteKind::asset) a = vendor_asset(route_.asset);
      if (!a) return reply(error_reply(404, "no such file"), keep, method_, path_);
      return reply({200, std::string(a->content_type), std::string(a->bytes)}, keep, method_, path_,
                   true);
    }
    std::string body = req.body();
    std::string ctype(header(req, http::field::content_type).value_or(""));
    net::post(shared_.pool,
              [self = shared_from_this(), body = std::move(body), ctype = std::move(ctype), keep] {
                Reply r = self->shared_.api.handle(self->route_, body, ctype);
                net::post(self->stream_.get_executor(), [self, r = std::move(r), keep]() mutable {
                  self->reply(std::move(r), keep, self->method_, self->path_);
                });
              });
  }

  void reply(Reply r, bool keep, const std::string& method, const std::string& path,
             bool page = false) {
    auto res = std::make_shared<http::response<http::string_body>>();
    res->result(static_cast<http::status>(r.status));
    res->version(11);
    common_headers(*res, page);
    res->set(http::field::content_type, r.content_type);
    res->keep_alive(keep);
    res->body() = std::move(r.body);
    res->prepare_payload();
    fmt::print(stderr, "serve: {} {} {}\n", method.substr(0, 16), path.substr(0, 200), r.status);
    stream_.expires_after(shared_.opts.body_timeout);
    http::async_write(stream_, *res,
                      [self = shared_from_this(), res, keep](beast::error_code ec, size_t) {
                        if (ec) return self->close();
                        if (!keep) return self->linger_close();
                        self->read_header();
                      });
  }

  // The last answer on this connection is written, but the client may still be sending: the
  // rest of a header or body too large, a body a refusal did not read. Closing a socket with
  // bytes unread sends a reset, and a reset reaching a client still sending loses it the answer.
  // So the sending side is shut (the client sees the end of the answer), and what it still
  // sends is read and dropped until it closes, up to kLingerBytes or kLingerFor.
  void linger_close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    if (ec) return close();
    lingered_ = 0;
    stream_.expires_after(kLingerFor);
    drain();
  }

  void drain() {
    buffer_.clear();
    stream_.async_read_some(buffer_.prepare(16u << 10),
                            [self = shared_from_this()](beast::error_code ec, size_t n) {
                              self->lingered_ += n;
                              if (ec || self->lingered_ >= kLingerBytes) return self->close();
                              self->drain();
                            });
  }

  // The live log: the transcript from `offset`, then new bytes as written, until the unit ends.
  // With `end` (a part of the log, for the page's older parts) or `download=1` (the raw file) it
  // is what the file holds now, up to `end`: it ends there and does not wait for the unit.
  void start_log() {
    offset_ = 0;
    end_ = UINT64_MAX;
    for (auto [key, into] : {std::pair{"offset", &offset_}, std::pair{"end", &end_}}) {
      auto it = route_.query.find(key);
      if (it == route_.query.end()) continue;
      const char* last = it->second.data() + it->second.size();
      auto [p, ec] = std::from_chars(it->second.data(), last, *into);
      if (ec != std::errc() || p != last)
        return refuse(400, fmt::format("query parameter {} must be a whole number of bytes", key));
    }
    if (end_ < offset_)
      return refuse(400,
                    "query parameter end must not be before offset (the part is [offset, end))");
    auto download = route_.query.find("download");
    if (download != route_.query.end() && download->second != "1")
      return refuse(400, "query parameter download takes 1 (the raw log as a file)");
    download_ = download != route_.query.end();
    bounded_ = download_ || route_.query.count("end") > 0;
    poll_log(true);
  }

  void poll_log(bool first) {
    net::post(shared_.pool, [self = shared_from_this(), first] {
      auto slice = self->shared_.api.log_slice(self->route_.unit_id, self->offset_, self->end_);
      net::post(self->stream_.get_executor(), [self, slice = std::move(slice), first]() mutable {
        self->on_slice(std::move(slice), first);
      });
    });
  }

  void on_slice(Result<LogSlice> slice, bool first) {
    if (gone_) return close();
    if (!slice) {
      if (first) return refuse(404, slice.error().message);
      return slice_failed(slice.error().message);
    }
    failures_ = 0;
    if (first) return write_log_header(std::move(*slice));
    write_slice(std::move(*slice));
  }

  // A read failed mid-stream. Cutting the stream would leave the reader a body without its last
  // chunk (a browser reports that as an error, the dashboard stops the log), so the read is
  // tried again; an error that lasts kRetryFor ends the log with a line saying why.
  void slice_failed(const std::string& why) {
    auto now = std::chrono::steady_clock::now();
    if (failures_++ == 0) {
      failing_since_ = now;
      fmt::print(stderr, "serve: {} {}: reading the log failed, trying again: {}\n", method_,
                 path_.substr(0, 200), why);
    }
    if (now - failing_since_ >= kRetryFor) {
      fmt::print(stderr, "serve: {} {}: log stream ended: {}\n", method_, path_.substr(0, 200),
                 why);
      return end_log(fmt::format(
          "\n[awaywork serve: the live log ends here: reading it failed for {} s: {}. Open the "
          "log again once that is fixed]\n",
          kRetryFor.count() / 1000, why.substr(0, 500)));
    }
    int doublings = std::min(failures_ - 1, 4);
    next_slice(std::min(kRetryFirst * (1 << doublings), kRetryMost));
  }

  void write_log_header(LogSlice first) {
    log_res_.emplace();
    log_res_->result(http::status::ok);
    log_res_->version(11);
    common_headers(*log_res_, false);
    log_res_->set(http::field::content_type, "text/plain; charset=utf-8");
    // The id is [a-z0-9-] (valid_unit_id): nothing in it can leave the quotes.
    if (download_)
      log_res_->set(http::field::content_disposition,
                    fmt::format("attachment; filename=\"awaywork-{}.log\"", route_.unit_id));
    log_res_->keep_alive(false);
    log_res_->chunked(true);
    log_sr_.emplace(*log_res_);
    streaming_ = true;
    ++shared_.streams;
    fmt::print(stderr, "serve: {} {} 200 (stream)\n", method_, path_.substr(0, 200));
    stream_.expires_after(shared_.opts.body_timeout);
    http::async_write_header(stream_, *log_sr_,
                             [self = shared_from_this(), first = std::move(first)](
                                 beast::error_code ec, size_t) mutable {
                               if (ec) return self->close();
                               self->watch_client();
                               self->write_slice(std::move(first));
                             });
  }

  // The client sends nothing more, so the socket turning readable is how its leaving shows. But
  // readable is not gone: the wait completes on any report that the socket was readable, and an
  // edge-triggered epoll report can be stale (for bytes of the request a read already took), or
  // the client sent bytes after its request. Only the end of its stream or an error is leaving;
  // anything else is looked at and the wait begun again.
  void watch_client() {
    stream_.socket().async_wait(tcp::socket::wait_read,
                                [self = shared_from_this()](beast::error_code ec) {
                                  if (!ec && self->client_still_there())
                                    return self->watch_client();
                                  self->gone_ = true;
                                  self->timer_.cancel();
                                });
  }

  // Without blocking: false when the client closed its side or the socket failed. Bytes it sent
  // after the request answer nothing (the log is the last response on this connection) and are
  // dropped, a bounded amount each time so a client sending without end cannot hold the strand.
  bool client_still_there() {
    char scratch[4096];
    for (int reads = 0; reads < 16;) {
      ssize_t n = ::recv(stream_.socket().native_handle(), scratch, sizeof scratch, MSG_DONTWAIT);
      if (n > 0) {
        ++reads;
        continue;
      }
      if (n == 0) return false;
      if (errno == EINTR) continue;
      return errno == EAGAIN || errno == EWOULDBLOCK;
    }
    return true;
  }

  void write_slice(LogSlice s) {
    if (bounded_ && s.caught_up) s.ended = true;  // a part of the log: what is there now
    if (!s.bytes.empty()) {
      offset_ += s.bytes.size();
      auto data = std::make_shared<std::string>(std::move(s.bytes));
      bool ended = s.ended;
      stream_.expires_after(shared_.opts.body_timeout);  // a reader that stops reading is dropped
      net::async_write(stream_, http::make_chunk(net::buffer(*data)),
                       [self = shared_from_this(), data, ended](beast::error_code ec, size_t) {
                         if (ec) return self->close();
                         if (ended) return self->end_log();
                         self->next_slice(std::chrono::milliseconds(0));  // there may be more
                       });
      return;
    }
    if (s.ended) return end_log();
    next_slice(kPollEvery);
  }

  // The next read of a log that goes on, after `delay`. Once the server is stopping (the units
  // it started have ended by then) the log is read once more at once, for the unit's end, and
  // if it still goes on it ends with a line saying so: the reader must not take the end of the
  // log for the end of the unit.
  void next_slice(std::chrono::milliseconds delay) {
    if (shared_.stopping) {
      if (!read_at_stop_) {
        read_at_stop_ = true;
        return poll_log(false);
      }
      return end_log(
          "\n[awaywork serve: the live log ends here: the server is stopping (the unit may "
          "still be running; open the log again once serve runs)]\n");
    }
    if (delay.count() == 0) return poll_log(false);
    timer_.expires_after(delay);
    timer_.async_wait([self = shared_from_this()](beast::error_code) {
      if (self->gone_) return self->close();
      self->poll_log(false);
    });
  }

  // Every way a log ends, but the client leaving or the socket failing: `last_line` (why it
  // ended early, when it did), then the last chunk, which tells the reader the body is whole.
  void end_log(std::string last_line = {}) {
    if (last_line.empty()) return write_last_chunk();
    auto data = std::make_shared<std::string>(std::move(last_line));
    stream_.expires_after(shared_.opts.body_timeout);
    net::async_write(stream_, http::make_chunk(net::buffer(*data)),
                     [self = shared_from_this(), data](beast::error_code ec, size_t) {
                       if (ec) return self->close();
                       self->write_last_chunk();
                     });
  }

  void write_last_chunk() {
    stream_.expires_after(shared_.opts.body_timeout);
    net::async_write(stream_, http::make_chunk_last(),
                     [self = shared_from_this()](beast::error_code, size_t) { self->close(); });
  }

  // A live log is over (ended, or its client gone): a stopping server no longer waits for it.
  void stream_over() {
    if (streaming_) --shared_.streams;
    streaming_ = false;
  }

  void close() {
    stream_over();
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.close();
  }

  beast::tcp_stream stream_;
  ServerShared& shared_;
  net::steady_timer timer_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::string method_ = "?", path_ = "?";
  Route route_;
  uint64_t offset_ = 0;
  uint64_t end_ = UINT64_MAX;  // the log's part ends before this byte
  bool bounded_ = false;       // end or download: the log ends where the file ends now
  bool download_ = false;      // the raw log as a file (Content-Disposition: attachment)
  size_t lingered_ = 0;        // bytes read and dropped after the last answer
  bool gone_ = false;          // the client left (or the socket failed): nothing can reach it
  bool streaming_ = false;     // counted in shared_.streams until the log is over
  bool read_at_stop_ = false;  // the read after the server began to stop is done
  int failures_ = 0;           // reads of the log that failed in a row
  std::chrono::steady_clock::time_point failing_since_;
  std::optional<http::response<http::empty_body>> log_res_;
  std::optional<http::response_serializer<http::empty_body>> log_sr_;
};

}  // namespace

void serve_connection(tcp::socket socket, ServerShared& shared) {
  std::make_shared<Connection>(std::move(socket), shared)->start();
}

}  // namespace aw
