// OpenSSL 3's EVP and X509 calls, each object owned by a unique_ptr; an OpenSSL failure is an
// Error naming the step (OpenSSL's own queue is cleared, never shown: it holds nothing useful).
#include "proxy/unit_ca.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cstdlib>

#include "base/fs.h"

namespace aw {

// Named, not anonymous: UnitCa::Keys (declared in the header) holds these, and a class with
// external linkage may not have members of an anonymous namespace's types (GCC's
// -Wsubobject-linkage, seen in the unity build).
namespace unit_ca_detail {
struct Free {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(X509* p) const { X509_free(p); }
  void operator()(BIO* p) const { BIO_free(p); }
  void operator()(BIGNUM* p) const { BN_free(p); }
  void operator()(X509_EXTENSION* p) const { X509_EXTENSION_free(p); }
};
}  // namespace unit_ca_detail

namespace {

template <class T>
using Own = std::unique_ptr<T, unit_ca_detail::Free>;

constexpr long kValidSeconds = 30L * 24 * 3600;  // longer than any unit runs

tl::unexpected<Error> ssl_fail(const char* step) {
  ERR_clear_error();
  return fail("unit CA: {} failed (OpenSSL)", step);
}

Result<Own<EVP_PKEY>> p256_key() {
  Own<EVP_PKEY> k(EVP_EC_gen("P-256"));
  if (!k) return ssl_fail("making an EC P-256 key");
  return k;
}

// A random positive 127-bit serial: browsers and OpenSSL reject duplicates under one issuer.
Status set_serial(X509* x) {
  unsigned char b[16];
  if (RAND_bytes(b, sizeof b) != 1) return ssl_fail("RAND_bytes");
  b[0] &= 0x7f;
  Own<BIGNUM> bn(BN_bin2bn(b, sizeof b, nullptr));
  if (!bn || !BN_to_ASN1_INTEGER(bn.get(), X509_get_serialNumber(x))) return ssl_fail("serial");
  return {};
}

Status add_ext(X509* x, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, x, nullptr, nullptr, 0);
  Own<X509_EXTENSION> e(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str()));
  if (!e || X509_add_ext(x, e.get(), -1) != 1) return ssl_fail(OBJ_nid2sn(nid));
  return {};
}

// A certificate's common frame: version 3, serial, validity from an hour ago (clocks differ),
// subject CN, the public key.
Result<Own<X509>> frame(EVP_PKEY* key, const std::string& cn) {
  Own<X509> x(X509_new());
  if (!x || X509_set_version(x.get(), 2) != 1) return ssl_fail("X509_new");
  AW_CHECK(set_serial(x.get()));
  if (!X509_gmtime_adj(X509_getm_notBefore(x.get()), -3600) ||
      !X509_gmtime_adj(X509_getm_notAfter(x.get()), kValidSeconds))
    return ssl_fail("validity");
  X509_NAME* name = X509_get_subject_name(x.get());
  if (X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                                 reinterpret_cast<const unsigned char*>("awaywork"), -1, -1,
                                 0) != 1 ||
      X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                                 reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1,
                                 0) != 1)
    return ssl_fail("subject");
  if (X509_set_pubkey(x.get(), key) != 1) return ssl_fail("public key");
  return x;
}

Result<std::string> pem_of(X509* x) {
  Own<BIO> b(BIO_new(BIO_s_mem()));
  if (!b || PEM_write_bio_X509(b.get(), x) != 1) return ssl_fail("PEM of a certificate");
  char* data = nullptr;
  long n = BIO_get_mem_data(b.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

bool ip_literal(const std::string& host) {
  return host.find(':') != std::string::npos ||
         host.find_first_not_of("0123456789.") == std::string::npos;
}

}  // namespace

struct UnitCa::Keys {
  Own<EVP_PKEY> ca_key, leaf_key;
  Own<X509> ca;
};

UnitCa::~UnitCa() = default;

Result<std::shared_ptr<const UnitCa>> UnitCa::make(const std::vector<std::string>& hosts) {
  if (hosts.empty()) return fail("unit CA: no host to issue for");
  std::shared_ptr<UnitCa> ca(new UnitCa());
  ca->keys_ = std::make_unique<Keys>();
  Keys& k = *ca->keys_;
  AW_TRY(k.ca_key, p256_key());
  AW_TRY(k.leaf_key, p256_key());
  AW_TRY(k.ca, frame(k.ca_key.get(), "awaywork unit CA (egress proxy)"));
  X509* x = k.ca.get();
  if (X509_set_issuer_name(x, X509_get_subject_name(x)) != 1) return ssl_fail("issuer");
  // Name constraints: a client that checks them (OpenSSL, Node, Go, NSS) trusts this CA for the
  // bound hosts only, whatever else it were made to sign.
  std::string permitted = "critical";
  for (const auto& h : hosts) {
    if (h.empty() || ip_literal(h) || h.find_first_of(",;\r\n ") != std::string::npos)
      return fail("unit CA: '{}' is not a host name", h);
    permitted += ",permitted;DNS:" + h;
  }
  AW_CHECK(add_ext(x, x, NID_basic_constraints, "critical,CA:TRUE,pathlen:0"));
  AW_CHECK(add_ext(x, x, NID_key_usage, "critical,keyCertSign,cRLSign"));
  AW_CHECK(add_ext(x, x, NID_subject_key_identifier, "hash"));
  AW_CHECK(add_ext(x, x, NID_name_constraints, permitted));
  if (X509_sign(x, k.ca_key.get(), EVP_sha256()) == 0) return ssl_fail("signing the CA");
  AW_TRY(ca->cert_pem_, pem_of(x));
  Own<BIO> b(BIO_new(BIO_s_mem()));
  if (!b || PEM_write_bio_PrivateKey(b.get(), k.leaf_key.get(), nullptr, nullptr, 0, nullptr,
                                     nullptr) != 1)
    return ssl_fail("PEM of the leaf key");
  char* data = nullptr;
  long n = BIO_get_mem_data(b.get(), &data);
  ca->leaf_key_pem_.assign(data, static_cast<size_t>(n));
  return std::shared_ptr<const UnitCa>(std::move(ca));
}

Result<std::string> UnitCa::issue(const std::string& host) const {
  if (host.empty() || ip_literal(host) || host.find_first_of(",;\r\n ") != std::string::npos)
    return fail("unit CA: '{}' is not a host name", host);
  AW_TRY(Own<X509> x, frame(keys_->leaf_key.get(), host));
  X509* ca = keys_->ca.get();
  if (X509_set_issuer_name(x.get(), X509_get_subject_name(ca)) != 1) return ssl_fail("issuer");
  AW_CHECK(add_ext(x.get(), ca, NID_basic_constraints, "critical,CA:FALSE"));
  AW_CHECK(add_ext(x.get(), ca, NID_key_usage, "critical,digitalSignature"));
  AW_CHECK(add_ext(x.get(), ca, NID_ext_key_usage, "serverAuth"));
  AW_CHECK(add_ext(x.get(), ca, NID_subject_alt_name, "DNS:" + host));
  AW_CHECK(add_ext(x.get(), ca, NID_authority_key_identifier, "keyid:always"));
  if (X509_sign(x.get(), keys_->ca_key.get(), EVP_sha256()) == 0) return ssl_fail("signing a leaf");
  return pem_of(x.get());
}

const std::vector<std::string>& ca_bundle_env_names() {
  // npm through a proxy ignores NODE_EXTRA_CA_CERTS (its agent's TLS over the CONNECT tunnel
  // trusts Node's built-in roots only): its own cafile setting, the whole bundle, is what it reads.
  static const std::vector<std::string> names = {
      "SSL_CERT_FILE",  "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE", "PIP_CERT",
      "GIT_SSL_CAINFO", "CURL_CA_BUNDLE",      "CARGO_HTTP_CAINFO",  "NPM_CONFIG_CAFILE"};
  return names;
}

std::string ca_bundle_text(const UnitCa& ca) {
  // OpenSSL's compiled-in default first (Debian: /usr/lib/ssl/cert.pem, a link to the bundle);
  // the owner's SSL_CERT_FILE is not read: the phase's trust is the machine's, not the owner's.
  std::vector<std::string> candidates = {X509_get_default_cert_file(),
                                         "/etc/ssl/certs/ca-certificates.crt",
                                         "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/cert.pem"};
  std::string system;
  for (const auto& c : candidates) {
    // The system's bundle is usually a link (Debian: cert.pem -> certs/ca-certificates.crt).
    auto text = read_file(c, ReadOptions{16u << 20, true}, nullptr);
    if (text && !text->empty()) {
      system = std::move(*text);
      break;
    }
  }
  if (!system.empty() && system.back() != '\n') system += '\n';
  return system + ca.cert_pem();
}

Status write_ca_bundle(const std::string& path, const UnitCa& ca) {
  return with_context(write_file(path, ca_bundle_text(ca), 0644), "the unit's CA bundle");
}

}  // namespace aw
