#include "secrets/file_format.h"

#include <sodium.h>

#include <cstring>

#include "base/random.h"

namespace aw {

namespace {

constexpr char kMagic[8] = {'A', 'W', 'S', 'E', 'C', 'R', 'T', '1'};
constexpr size_t kNonce = crypto_aead_xchacha20poly1305_ietf_NPUBBYTES;
constexpr size_t kHeader = sizeof kMagic + 1 + 16 + 8 + 8 + kNonce;
// A hostile or corrupt header must not make us allocate without bound.
constexpr uint64_t kMaxMemlimit = 1ull << 30;
constexpr uint64_t kMaxOpslimit = 64;

void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
uint64_t get_u64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

std::string header_bytes(const StoreHeader& h, const unsigned char* nonce) {
  std::string out(kMagic, sizeof kMagic);
  out.push_back(static_cast<char>(h.kind));
  out.append(reinterpret_cast<const char*>(h.kdf.salt.data()), h.kdf.salt.size());
  put_u64(out, h.kdf.opslimit);
  put_u64(out, h.kdf.memlimit);
  out.append(reinterpret_cast<const char*>(nonce), kNonce);
  return out;
}

// "NAME LEN\nVALUE\n" per secret: names cannot hold a space or newline, values can hold anything.
std::string serialize(const std::map<std::string, std::string>& secrets) {
  std::string out;
  for (const auto& [name, value] : secrets)
    out += fmt::format("{} {}\n", name, value.size()) + value + "\n";
  return out;
}

Result<std::map<std::string, std::string>> parse(const std::string& s) {
  std::map<std::string, std::string> out;
  size_t pos = 0;
  while (pos < s.size()) {
    size_t sp = s.find(' ', pos), nl = s.find('\n', pos);
    if (sp == std::string::npos || nl == std::string::npos || sp > nl)
      return fail("malformed contents");
    std::string name = s.substr(pos, sp - pos);
    size_t len = 0;
    for (size_t i = sp + 1; i < nl; ++i) {
      if (s[i] < '0' || s[i] > '9' || len > (1u << 24)) return fail("malformed contents");
      len = len * 10 + static_cast<size_t>(s[i] - '0');
    }
    pos = nl + 1;
    if (len > s.size() - pos || pos + len >= s.size() || s[pos + len] != '\n')
      return fail("malformed contents");
    out[name] = s.substr(pos, len);
    pos += len + 1;
  }
  return out;
}

}  // namespace

SecretKey::~SecretKey() {
  sodium_memzero(bytes.data(), bytes.size());
}

Result<KdfParams> new_kdf_params() {
  KdfParams p;
  AW_CHECK(with_context(random_bytes(p.salt.data(), p.salt.size()), "the argon2id salt"));
  p.opslimit = crypto_pwhash_OPSLIMIT_INTERACTIVE;
  p.memlimit = crypto_pwhash_MEMLIMIT_INTERACTIVE;
  return p;
}

Result<SecretKey> derive_key(const std::string& passphrase, const KdfParams& p) {
  if (p.memlimit > kMaxMemlimit || p.opslimit > kMaxOpslimit)
    return fail("the argon2id limits in the file are out of range");
  SecretKey key;
  if (crypto_pwhash(key.bytes.data(), key.bytes.size(), passphrase.data(), passphrase.size(),
                    p.salt.data(), p.opslimit, static_cast<size_t>(p.memlimit),
                    crypto_pwhash_ALG_ARGON2ID13) != 0)
    return fail("argon2id failed (out of memory?)");
  return key;
}

Result<StoreHeader> parse_header(const std::string& file) {
  if (file.size() < kHeader + crypto_aead_xchacha20poly1305_ietf_ABYTES ||
      std::memcmp(file.data(), kMagic, sizeof kMagic) != 0)
    return fail("not an awaywork secret store (bad header)");
  auto* p = reinterpret_cast<const unsigned char*>(file.data()) + sizeof kMagic;
  StoreHeader h;
  if (p[0] != static_cast<uint8_t>(KeyKind::key_file) &&
      p[0] != static_cast<uint8_t>(KeyKind::passphrase))
    return fail("not an awaywork secret store (unknown key kind {})", p[0]);
  h.kind = static_cast<KeyKind>(p[0]);
  std::memcpy(h.kdf.salt.data(), p + 1, h.kdf.salt.size());
  h.kdf.opslimit = get_u64(p + 17);
  h.kdf.memlimit = get_u64(p + 25);
  return h;
}

Result<std::string> seal_secrets(const std::map<std::string, std::string>& secrets,
                                 const StoreHeader& h, const SecretKey& key) {
  unsigned char nonce[kNonce];
  AW_CHECK(with_context(random_bytes(nonce, sizeof nonce), "the store's nonce"));
  std::string head = header_bytes(h, nonce);
  std::string plain = serialize(secrets);
  std::string out = head;
  out.resize(head.size() + plain.size() + crypto_aead_xchacha20poly1305_ietf_ABYTES);
  unsigned long long clen = 0;
  crypto_aead_xchacha20poly1305_ietf_encrypt(
      reinterpret_cast<unsigned char*>(out.data()) + head.size(), &clen,
      reinterpret_cast<const unsigned char*>(plain.data()), plain.size(),
      reinterpret_cast<const unsigned char*>(head.data()), head.size(), nullptr, nonce,
      key.bytes.data());
  sodium_memzero(plain.data(), plain.size());
  out.resize(head.size() + clen);
  return out;
}

Result<std::map<std::string, std::string>> open_secrets(const std::string& file,
                                                        const SecretKey& key) {
  AW_TRY(auto h, parse_header(file));
  (void)h;
  auto* bytes = reinterpret_cast<const unsigned char*>(file.data());
  std::string plain(file.size() - kHeader - crypto_aead_xchacha20poly1305_ietf_ABYTES, '\0');
  unsigned long long plen = 0;
  if (crypto_aead_xchacha20poly1305_ietf_decrypt(
          reinterpret_cast<unsigned char*>(plain.data()), &plen, nullptr, bytes + kHeader,
          file.size() - kHeader, bytes, kHeader, bytes + kHeader - kNonce, key.bytes.data()) != 0)
    return fail("does not decrypt");
  plain.resize(plen);
  auto out = parse(plain);
  sodium_memzero(plain.data(), plain.size());
  return out;
}

}  // namespace aw
