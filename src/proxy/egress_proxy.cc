// The proxy server (Boost.Asio, C++20 coroutines, one thread). Errors are error_codes, never
// exceptions; a connection that misbehaves is closed.
// Each connection's allowlist, routing and plain tunnel; the path to a host an injection rule
// binds is egress_inject.cc's, the reading of a request's text egress_request.cc's.
#include "proxy/egress_proxy.h"

#include <sys/stat.h>
#include <unistd.h>

#include <string_view>

#include "base/fs.h"
#include "base/json_escape.h"
#include "proxy/egress_proxy_impl.h"

namespace aw {

using egress::kMaxHead;
using egress::origin_form;
using egress::parse_head;

namespace {

bool private_address(const asio::ip::address& a) {
  if (a.is_loopback() || a.is_unspecified() || a.is_multicast()) return true;
  if (a.is_v6()) {
    auto v6 = a.to_v6();
    if (v6.is_v4_mapped())
      return private_address(asio::ip::make_address_v4(asio::ip::v4_mapped, v6));
    auto b = v6.to_bytes();
    return v6.is_link_local() || (b[0] & 0xfe) == 0xfc;
  }
  auto b = a.to_v4().to_bytes();
  return b[0] == 10 || b[0] == 0 || (b[0] == 172 && (b[1] & 0xf0) == 16) ||
         (b[0] == 192 && b[1] == 168) || (b[0] == 169 && b[1] == 254) ||
         (b[0] == 100 && (b[1] & 0xc0) == 64);
}

}  // namespace

void EgressProxy::Impl::log(const Request& r, const EgressDecision& d,
                            const std::vector<std::string>& injected) {
  if (!opt.log) return;
  std::string path = r.path.substr(0, r.path.find('?'));  // never the query string
  std::string names;
  for (const auto& n : injected) {     // appended, not `"," + x`: GCC 12's -Wrestrict misfires
    if (!names.empty()) names += ',';  // on that at -O2 (a false positive, fatal with -Werror)
    names += json_escape_bytes(n);
  }
  opt.log(fmt::format(
      R"({{"method":"{}","host":"{}","port":{},"path":"{}","allowed":{},"rule":"{}"{}}})",
      json_escape_bytes(r.method), json_escape_bytes(r.host), r.port, json_escape_bytes(path),
      d.allowed ? "true" : "false", json_escape_bytes(d.rule),
      injected.empty() ? "" : fmt::format(R"(,"injected":"{}")", names)));
}

awaitable<error_code> EgressProxy::Impl::connect_upstream(tcp::socket& up, const Request& r,
                                                          bool ip_rule, std::string& why) {
  error_code ec;
  std::string name = r.host;
  if (auto it = opt.static_hosts.find(r.host); it != opt.static_hosts.end()) name = it->second;
  tcp::resolver resolver(io);
  auto results = co_await resolver.async_resolve(name, std::to_string(r.port),
                                                 asio::redirect_error(asio::use_awaitable, ec));
  if (ec) {
    why = "deny resolve-failed";
    co_return ec;
  }
  for (const auto& entry : results) {
    if (!ip_rule && !opt.allow_private_upstream && private_address(entry.endpoint().address())) {
      why = "deny private-address";
      continue;
    }
    up = tcp::socket(io);
    co_await up.async_connect(entry.endpoint(), asio::redirect_error(asio::use_awaitable, ec));
    if (!ec) co_return ec;
    why = "deny connect-failed";
  }
  co_return asio::error::host_unreachable;
}

awaitable<void> EgressProxy::Impl::session(Local::socket sock) {
  auto client = std::make_shared<Local::socket>(std::move(sock));
  std::string data;
  error_code ec;
  size_t head_len =
      co_await asio::async_read_until(*client, asio::dynamic_buffer(data, kMaxHead), "\r\n\r\n",
                                      asio::redirect_error(asio::use_awaitable, ec));
  if (ec) co_return;
  Request r;
  std::string bad = parse_head(data.substr(0, head_len), r);
  if (!bad.empty()) {
    EgressDecision no{false, "deny " + bad};
    co_await refuse(*client, r, no);
    co_return;
  }
  // A placeholder on its way anywhere but its own rule's host (checked before the allowlist:
  // an attempt is logged as one whichever host it names).
  if (auto stray =
          stray_placeholder(opt.placeholders, opt.inject, r.host, r.method == "CONNECT", data)) {
    EgressDecision no{false, "deny placeholder-exfiltration " + *stray};
    co_await refuse(*client, r, no);
    co_return;
  }
  EgressDecision d = decide_host(opt.allow, r.host);
  if (!d.allowed) {
    co_await refuse(*client, r, d);
    co_return;
  }
  if (r.method != "CONNECT") {
    // Plain HTTP: the Host header must name the same host (no fronting), then origin-form.
    std::string hh = r.host_header.substr(0, r.host_header.rfind(':') == std::string::npos ||
                                                     r.host_header.find(']') != std::string::npos
                                                 ? std::string::npos
                                                 : r.host_header.rfind(':'));
    if (!hh.empty() && strcasecmp(hh.c_str(), r.host.c_str()) != 0) {
      EgressDecision no{false, "deny host-header-mismatch"};
      co_await refuse(*client, r, no);
      co_return;
    }
    if (bound_host(opt.inject, r.host)) {
      co_await bound_session(client, r, data, head_len, d, false);
      co_return;
    }
  }
  if (r.method == "CONNECT" && bound_host(opt.inject, r.host)) {
    co_await intercept(client, r, data, head_len, d);
    co_return;
  }
  std::string first;  // what goes upstream before relaying
  if (r.method == "CONNECT") {
    // Promise the tunnel, then read the ClientHello before any upstream connection is made.
    static const std::string ok = "HTTP/1.1 200 Connection established\r\n\r\n";
    co_await asio::async_write(*client, asio::buffer(ok),
                               asio::redirect_error(asio::use_awaitable, ec));
    first = data.substr(head_len);
    bool complete = false;
    char buf[4096];
    while (!ec && (client_hello_sni(first, &complete), !complete) && first.size() < kMaxHead) {
      size_t n = co_await client->async_read_some(asio::buffer(buf),
                                                  asio::redirect_error(asio::use_awaitable, ec));
      first.append(buf, n);
    }
    auto sni = client_hello_sni(first, &complete);
    bool tls = !first.empty() && static_cast<unsigned char>(first[0]) == 0x16;
    if (ec || (opt.check_sni && tls && (!sni || !decide_host({r.host}, *sni).allowed))) {
      r.path = sni ? "sni=" + *sni : "sni=none";
      log(r, {false, "deny sni-mismatch"});
      co_return;  // the tunnel was promised: closing is the refusal
    }
    if (auto stray = stray_placeholder(opt.placeholders, opt.inject, r.host, true, first)) {
      log(r, {false, "deny placeholder-exfiltration " + *stray});
      co_return;  // bytes in clear in a tunnel: the same refusal
    }
  } else {
    first = origin_form(r, data, head_len);
  }
  auto up = std::make_shared<tcp::socket>(io);
  std::string why;
  bool ip_rule = is_ip_literal(r.host);
  error_code up_ec = co_await connect_upstream(*up, r, ip_rule, why);
  if (up_ec) {
    EgressDecision no{false, why};
    if (r.method == "CONNECT")
      log(r, no);  // after the 200, closing is all that is left
    else
      co_await refuse(*client, r, no);
    co_return;
  }
  log(r, d);
  co_await asio::async_write(*up, asio::buffer(first),
                             asio::redirect_error(asio::use_awaitable, ec));
  if (ec) co_return;
  asio::co_spawn(io, pump(client, up), asio::detached);
  asio::co_spawn(io, pump(up, client), asio::detached);
}

awaitable<void> EgressProxy::Impl::accept_loop() {
  for (;;) {
    error_code ec;
    Local::socket s = co_await acceptor.async_accept(asio::redirect_error(asio::use_awaitable, ec));
    if (ec == asio::error::operation_aborted) co_return;
    if (!ec) asio::co_spawn(io, session(std::move(s)), asio::detached);
  }
}

EgressProxy::EgressProxy(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Result<std::unique_ptr<EgressProxy>> EgressProxy::start(EgressProxyOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->opt = std::move(options);
  if (!impl->opt.inject.empty()) {
    AW_TRY(impl->tls, with_context(make_tls_context(impl->opt.ca_file), "egress proxy"));
    if (!impl->opt.ca) {
      std::vector<std::string> hosts;
      for (const auto& rule : impl->opt.inject) hosts.push_back(rule.host);
      AW_TRY(impl->opt.ca, with_context(UnitCa::make(hosts), "egress proxy"));
    }
  }
  const std::string& path = impl->opt.socket_path;
  ::unlink(path.c_str());
  error_code ec;
  impl->acceptor.open(Local(), ec);
  mode_t old = ::umask(0177);
  if (!ec) impl->acceptor.bind(Local::endpoint(path), ec);
  ::umask(old);
  if (!ec) impl->acceptor.listen(128, ec);
  if (ec) return fail("egress proxy: listen on {}: {}", path, ec.message());
  asio::co_spawn(impl->io, impl->accept_loop(), asio::detached);
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] {
    try {
      raw->io.run();
    } catch (...) {  // nothing may escape the proxy thread
    }
  });
  return std::unique_ptr<EgressProxy>(new EgressProxy(std::move(impl)));
}

EgressProxy::~EgressProxy() {
  impl_->io.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
  ::unlink(impl_->opt.socket_path.c_str());
}

const std::string& EgressProxy::socket_path() const {
  return impl_->opt.socket_path;
}

std::string EgressProxy::ca_cert_pem() const {
  return impl_->opt.ca ? impl_->opt.ca->cert_pem() : "";
}

LoggedEgress::~LoggedEgress() {
  proxy.reset();  // joins the proxy's thread before its log closes
  if (log) std::fclose(log);
}

Result<std::unique_ptr<LoggedEgress>> start_logged_egress(EgressProxyOptions options,
                                                          const std::string& log_path) {
  auto e = std::make_unique<LoggedEgress>();
  e->log = std::fopen(log_path.c_str(), "ae");
  options.log = [log = e->log](const std::string& line) {
    if (log) std::fprintf(log, "%s\n", line.c_str()), std::fflush(log);
  };
  AW_TRY(e->proxy, with_context(EgressProxy::start(std::move(options)), "egress proxy"));
  return e;
}

}  // namespace aw
