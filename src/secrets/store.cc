// Which backend: AWAYWORK_SECRET_BACKEND forces one; otherwise the Secret Service when a session
// bus answers with it, else the encrypted file.
#include <cstdlib>

#include "config/paths.h"
#include "secrets/backends.h"

namespace aw {

namespace {
std::optional<std::string> env(const char* name) {
  const char* v = std::getenv(name);
  if (!v) return std::nullopt;
  return std::string(v);
}
}  // namespace

SecretStorePaths default_secret_store_paths() {
  return {default_config_dir() + "/secrets"};
}

Result<std::unique_ptr<SecretStore>> open_secret_store(const SecretStorePaths& paths) {
  std::string dir = paths.dir.empty() ? default_secret_store_paths().dir : paths.dir;
  if (dir.empty() || dir[0] != '/')
    return fail("the secret store folder is not an absolute path (is HOME set?)");
  auto pass = env("AWAYWORK_SECRETS_PASSPHRASE");
  std::string forced = env("AWAYWORK_SECRET_BACKEND").value_or("");
  if (forced == "file") return open_file_store(dir, std::move(pass));
  if (forced == "secret-service") {
    AW_CHECK(with_context(
        secret_service_answers(),
        "AWAYWORK_SECRET_BACKEND=secret-service but the Secret Service is not usable"));
    return open_secret_service_store();
  }
  if (!forced.empty())
    return fail(
        "AWAYWORK_SECRET_BACKEND is {:?}; use file or secret-service, or unset it to choose "
        "automatically",
        forced);
  if (secret_service_answers()) return open_secret_service_store();
  return open_file_store(dir, std::move(pass));
}

}  // namespace aw
