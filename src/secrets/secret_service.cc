// The Secret Service backend (org.freedesktop.secrets through libsecret): items of the schema
// org.awaywork.Secret with one attribute, name, in the default collection.
#include <libsecret/secret.h>

#include <cstdlib>
#include <set>

#include "secrets/backends.h"

namespace aw {

namespace {

const SecretSchema* schema() {
  // Built field by field: the struct has private padding members that aggregate init trips over.
  static const SecretSchema s = [] {
    SecretSchema v{};
    v.name = "org.awaywork.Secret";
    v.flags = SECRET_SCHEMA_NONE;
    v.attributes[0] = {"name", SECRET_SCHEMA_ATTRIBUTE_STRING};
    return v;
  }();
  return &s;
}

// GError's message, and the error freed.
std::string take(GError* err) {
  std::string m = err && err->message ? err->message : "unknown error";
  if (err) g_error_free(err);
  return m;
}

constexpr const char* kFix = "or choose the encrypted file with AWAYWORK_SECRET_BACKEND=file";

// Asking the bus whether the service runs avoids D-Bus activation starting a keyring daemon that
// has no unlocked collection (on a headless machine that would only lead to a prompt nobody sees).
Status service_is_running(GDBusConnection* bus) {
  GError* err = nullptr;
  GVariant* r = g_dbus_connection_call_sync(
      bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
      g_variant_new("(s)", "org.freedesktop.secrets"), G_VARIANT_TYPE("(b)"),
      G_DBUS_CALL_FLAGS_NONE, 3000, nullptr, &err);
  if (!r) return fail("the session bus does not answer: {}", take(err));
  gboolean owned = FALSE;
  g_variant_get(r, "(b)", &owned);
  g_variant_unref(r);
  if (!owned) return fail("no Secret Service (org.freedesktop.secrets) runs on the session bus");
  return {};
}

class SecretServiceStore : public SecretStore {
 public:
  std::string backend() const override { return "secret-service"; }

  Result<std::string> get(const std::string& name) override {
    AW_CHECK(check_secret_name(name));
    GError* err = nullptr;
    gchar* v = secret_password_lookup_sync(schema(), nullptr, &err, "name", name.c_str(), nullptr);
    if (err) return fail("Secret Service lookup of {}: {}", name, take(err));
    if (!v)
      return fail("no secret named {} in the Secret Service; add it with `awaywork secret set {}`",
                  name, name);
    std::string out(v);
    secret_password_free(v);  // wipes the copy libsecret held
    return out;
  }

  Status set(const std::string& name, const std::string& value) override {
    AW_CHECK(check_secret_name(name));
    AW_CHECK(check_secret_value(value));
    GError* err = nullptr;
    std::string label = "awaywork secret " + name;
    if (!secret_password_store_sync(schema(), SECRET_COLLECTION_DEFAULT, label.c_str(),
                                    value.c_str(), nullptr, &err, "name", name.c_str(), nullptr))
      return fail("Secret Service could not store {}: {} (is the default collection unlocked?) {}",
                  name, take(err), kFix);
    return {};
  }

  Status remove(const std::string& name) override {
    AW_CHECK(check_secret_name(name));
    GError* err = nullptr;
    gboolean removed =
        secret_password_clear_sync(schema(), nullptr, &err, "name", name.c_str(), nullptr);
    if (err) return fail("Secret Service could not remove {}: {}", name, take(err));
    if (!removed) return fail("no secret named {} in the Secret Service", name);
    return {};
  }

  Result<std::vector<std::string>> names() override {
    GError* err = nullptr;
    GHashTable* attrs =
        g_hash_table_new(g_str_hash, g_str_equal);  // empty: every item of the schema
    GList* items = secret_password_searchv_sync(schema(), attrs, SECRET_SEARCH_ALL, nullptr, &err);
    g_hash_table_unref(attrs);
    if (err) return fail("Secret Service search: {}", take(err));
    std::set<std::string> found;
    for (GList* l = items; l; l = l->next) {
      GHashTable* a = secret_retrievable_get_attributes(SECRET_RETRIEVABLE(l->data));
      if (auto* n = static_cast<const char*>(g_hash_table_lookup(a, "name"))) found.insert(n);
      g_hash_table_unref(a);
    }
    g_list_free_full(items, g_object_unref);
    return std::vector<std::string>(found.begin(), found.end());
  }
};

}  // namespace

Status secret_service_answers() {
  const char* addr = std::getenv("DBUS_SESSION_BUS_ADDRESS");
  if (!addr || !*addr) return fail("DBUS_SESSION_BUS_ADDRESS is not set (no session bus)");
  GError* err = nullptr;
  GDBusConnection* bus = g_bus_get_sync(G_BUS_TYPE_SESSION, nullptr, &err);
  if (!bus) return fail("cannot connect to the session bus: {}", take(err));
  Status running = service_is_running(bus);
  g_object_unref(bus);
  AW_CHECK(running);
  SecretService* svc = secret_service_get_sync(SECRET_SERVICE_NONE, nullptr, &err);
  if (!svc) return fail("the Secret Service does not answer: {}", take(err));
  SecretCollection* def = secret_collection_for_alias_sync(svc, SECRET_COLLECTION_DEFAULT,
                                                           SECRET_COLLECTION_NONE, nullptr, &err);
  g_object_unref(svc);
  if (!def)
    return fail("the Secret Service has no default collection{}",
                err ? ": " + take(err) : std::string());
  g_object_unref(def);
  return {};
}

Result<std::unique_ptr<SecretStore>> open_secret_service_store() {
  return std::unique_ptr<SecretStore>(std::make_unique<SecretServiceStore>());
}

}  // namespace aw
