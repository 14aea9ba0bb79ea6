// The encrypted-file backend: DIR/secrets.enc (0600) sealed with a key from DIR/key (0600,
// created once with O_EXCL) or from AWAYWORK_SECRETS_PASSPHRASE through argon2id. Every write
// goes to a fresh 0600 temporary file, is fsynced and renamed over the store, so a crash leaves
// the old or the new store and a link planted at the path is replaced, never written through.
#include <fcntl.h>
#include <sodium.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <optional>

#include "base/fs.h"
#include "base/random.h"
#include "base/unique_fd.h"
#include "secrets/backends.h"
#include "secrets/file_format.h"

namespace aw {

namespace {

constexpr const char* kPassVar = "AWAYWORK_SECRETS_PASSPHRASE";

using Fd = UniqueFd;

// A key or store file others could read is refused rather than silently used: the fix is chmod.
Status check_private_file(int fd, const std::string& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return fail("stat {}: {}", path, errno_text(errno));
  if (!S_ISREG(st.st_mode)) return fail("{} is not a regular file; move it aside", path);
  if (st.st_uid != ::geteuid())
    return fail("{} belongs to uid {}, not to you (uid {}); fix: chown {} {}", path, st.st_uid,
                ::geteuid(), ::geteuid(), path);
  if (st.st_mode & 077)
    return fail("{} has mode {:04o}, readable or writable by others; fix: chmod 600 {}", path,
                st.st_mode & 07777, path);
  return {};
}

Status check_private_dir(const std::string& dir) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) return fail("lstat {}: {}", dir, errno_text(errno));
  if (S_ISLNK(st.st_mode)) return fail("{} is a symbolic link; expected a real folder", dir);
  if (!S_ISDIR(st.st_mode)) return fail("{} is not a folder", dir);
  if (st.st_uid != ::geteuid())
    return fail("{} does not belong to you; fix: chown {} {}", dir, ::geteuid(), dir);
  if (st.st_mode & 022)
    return fail("{} has mode {:04o}, writable by others; fix: chmod 700 {}", dir,
                st.st_mode & 07777, dir);
  return {};
}

// Reads a private file without following a link; nullopt when it does not exist.
Result<std::optional<std::string>> read_private(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
  if (fd < 0 && errno == ENOENT) return std::optional<std::string>{};
  if (fd < 0 && errno == ELOOP)
    return fail("{} is a symbolic link; it is not followed: remove it (rm {})", path, path);
  if (fd < 0) return fail("open {}: {}", path, errno_text(errno));
  Fd guard(fd);
  AW_CHECK(check_private_file(fd, path));
  std::string out;
  char buf[16384];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail("read {}: {}", path, errno_text(errno));
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > (16u << 20)) return fail("{} is larger than 16 MiB; not a secret store", path);
  }
  sodium_memzero(buf, sizeof buf);
  return std::optional<std::string>(std::move(out));
}

Status write_all(int fd, const std::string& data, const std::string& path) {
  AW_CHECK(write_fd(fd, data, path));
  if (::fsync(fd) != 0) return fail("fsync {}: {}", path, errno_text(errno));
  return {};
}

Status replace_atomically(const std::string& dir, const std::string& path,
                          const std::string& data) {
  std::string tmp = dir + "/.secrets.enc.XXXXXX";
  int fd = ::mkostemp(tmp.data(), O_CLOEXEC);  // O_EXCL, mode 0600
  if (fd < 0) return fail("create a temporary file in {}: {}", dir, errno_text(errno));
  Status st;
  {
    Fd guard(fd);
    st = write_all(fd, data, tmp);
  }
  if (st && ::rename(tmp.c_str(), path.c_str()) != 0)
    st = fail("rename {} to {}: {}", tmp, path, errno_text(errno));
  if (!st) {
    ::unlink(tmp.c_str());
    return st;
  }
  Fd d(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW));
  if (d.fd >= 0) ::fsync(d.fd);  // the rename itself must survive a crash
  return {};
}

Result<SecretKey> parse_key_file(const std::string& text, const std::string& path) {
  SecretKey key;
  size_t len = 0;
  std::string hex = text;
  if (!hex.empty() && hex.back() == '\n') hex.pop_back();
  if (hex.size() != 64 ||
      sodium_hex2bin(key.bytes.data(), key.bytes.size(), hex.data(), hex.size(), nullptr, &len,
                     nullptr) != 0 ||
      len != 32)
    return fail("{} is not an awaywork key (64 hex digits expected)", path);
  sodium_memzero(hex.data(), hex.size());
  return key;
}

Result<SecretKey> create_key_file(const std::string& path) {
  SecretKey key;  // made before the file, so that no empty key file is left when it cannot be
  AW_CHECK(with_context(random_bytes(key.bytes.data(), key.bytes.size()), "a new key"));
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return fail("create {}: {}", path, errno_text(errno));
  Fd guard(fd);
  std::string hex(65, '\0');
  sodium_bin2hex(hex.data(), hex.size(), key.bytes.data(), key.bytes.size());
  hex.back() = '\n';
  Status st = write_all(fd, hex, path);
  sodium_memzero(hex.data(), hex.size());
  if (!st) {
    ::unlink(path.c_str());
    return tl::unexpected<Error>(st.error());
  }
  return key;
}

class FileSecretStore : public SecretStore {
 public:
  FileSecretStore(std::string dir, std::optional<std::string> pass)
      : dir_(std::move(dir)),
        store_(dir_ + "/secrets.enc"),
        key_path_(dir_ + "/key"),
        pass_(std::move(pass)) {}
  ~FileSecretStore() override {
    if (pass_) sodium_memzero(pass_->data(), pass_->size());
  }

  std::string backend() const override { return fmt::format("encrypted-file ({})", store_); }

  Result<std::string> get(const std::string& name) override {
    AW_CHECK(check_secret_name(name));
    AW_TRY(auto secrets, load());
    auto it = secrets.find(name);
    if (it == secrets.end())
      return fail("no secret named {} in {}; add it with `awaywork secret set {}`", name, backend(),
                  name);
    return it->second;
  }

  Status set(const std::string& name, const std::string& value) override {
    AW_CHECK(check_secret_name(name));
    AW_CHECK(check_secret_value(value));
    AW_CHECK(make_dirs(dir_, 0700));
    AW_CHECK(check_private_dir(dir_));
    AW_TRY(int lock, take_lock());
    Fd guard(lock);
    AW_TRY(auto secrets, load());
    secrets[name] = value;
    return save(secrets);
  }

  Status remove(const std::string& name) override {
    AW_CHECK(check_secret_name(name));
    if (::access(dir_.c_str(), F_OK) != 0) return fail("no secret named {} in {}", name, backend());
    AW_CHECK(check_private_dir(dir_));
    AW_TRY(int lock, take_lock());
    Fd guard(lock);
    AW_TRY(auto secrets, load());
    if (!secrets.erase(name)) return fail("no secret named {} in {}", name, backend());
    return save(secrets);
  }

  Result<std::vector<std::string>> names() override {
    AW_TRY(auto secrets, load());
    std::vector<std::string> out;
    for (const auto& kv : secrets) out.push_back(kv.first);
    return out;
  }

  // Refuses early (at open) what would be refused at first use: a bad folder, key or store mode.
  Status precheck() {
    if (::access(dir_.c_str(), F_OK) != 0) return {};
    AW_CHECK(check_private_dir(dir_));
    AW_TRY(auto key, read_private(key_path_));
    AW_TRY(auto store, read_private(store_));
    return {};
  }

 private:
  using Map = std::map<std::string, std::string>;

  Result<int> take_lock() {
    int fd = ::open((dir_ + "/lock").c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return fail("open {}/lock: {}", dir_, errno_text(errno));
    if (::flock(fd, LOCK_EX) != 0) {
      ::close(fd);
      return fail("lock {}/lock: {}", dir_, errno_text(errno));
    }
    return fd;
  }

  // The key the store's header asks for; for a new store, the one the environment gives.
  Result<SecretKey> key_for(const StoreHeader& h, bool create) {
    if (h.kind == KeyKind::passphrase) {
      if (!pass_)
        return fail(
            "{} is encrypted with a passphrase; set {} (export it, or run `read -rs {} && export "
            "{}`)",
            store_, kPassVar, kPassVar, kPassVar);
      if (cached_ && cached_salt_ == h.kdf.salt) return *cached_;
      AW_TRY(auto key, derive_key(*pass_, h.kdf));
      cached_ = key;
      cached_salt_ = h.kdf.salt;
      return key;
    }
    if (pass_)
      return fail(
          "{} is encrypted with the key file {}, but {} is set: unset it, or move both files aside "
          "and set the secrets again to encrypt them with the passphrase",
          store_, key_path_, kPassVar);
    AW_TRY(auto text, read_private(key_path_));
    if (text) return parse_key_file(*text, key_path_);
    if (!create)
      return fail(
          "the key file {} is missing: {} cannot be opened without it (restore it from a backup)",
          key_path_, store_);
    return create_key_file(key_path_);
  }

  Result<Map> load() {
    AW_TRY(auto file, read_private(store_));
    if (!file) {
      header_.reset();
      return Map{};
    }
    AW_TRY(auto h, with_context(parse_header(*file), store_));
    AW_TRY(auto key, key_for(h, false));
    auto secrets = open_secrets(*file, key);
    if (!secrets) {
      if (h.kind == KeyKind::passphrase)
        return fail(
            "cannot decrypt {}: the passphrase in {} is wrong, or the file was changed; nothing "
            "was modified",
            store_, kPassVar);
      return fail(
          "cannot decrypt {} with the key {}: another key, or the file was changed; nothing was "
          "modified",
          store_, key_path_);
    }
    header_ = h;
    return secrets;
  }

  Status save(const Map& secrets) {
    StoreHeader h;
    if (header_) {
      h = *header_;
    } else if (pass_) {
      h.kind = KeyKind::passphrase;
      AW_TRY(h.kdf, new_kdf_params());
    }
    AW_TRY(auto key, key_for(h, true));
    AW_TRY(std::string sealed, seal_secrets(secrets, h, key));
    return replace_atomically(dir_, store_, sealed);
  }

  std::string dir_, store_, key_path_;
  std::optional<std::string> pass_;
  std::optional<StoreHeader> header_;  // of the last load; kept so a rewrite keeps its key kind
  std::optional<SecretKey> cached_;    // argon2id is slow on purpose: derive once per salt
  std::array<unsigned char, 16> cached_salt_{};
};

}  // namespace

Result<std::unique_ptr<SecretStore>> open_file_store(const std::string& dir,
                                                     std::optional<std::string> passphrase) {
  if (sodium_init() < 0) return fail("libsodium failed to initialise");
  if (passphrase && passphrase->empty())
    return fail("{} is set but empty; unset it or give a passphrase", kPassVar);
  auto store = std::make_unique<FileSecretStore>(dir, std::move(passphrase));
  AW_CHECK(store->precheck());
  return std::unique_ptr<SecretStore>(std::move(store));
}

}  // namespace aw
