#include "forge/usage.h"

#include "unit/unit_id.h"

namespace aw {

namespace {

// Both forges' clients count in one shape (ApiStats); the record keys them by the forge's API.
Status save_usage(Store& store, const std::string& api, const ApiStats& st) {
  ForgeUsage u;
  u.api = api;
  u.requests = st.requests;
  u.not_modified = st.not_modified;
  u.retries = st.retries;
  u.waited_ms = st.waited_ms;
  u.rate_remaining = st.rate_remaining;
  u.rate_limit = st.rate_limit;
  u.rate_reset = st.rate_reset;
  u.updated_at = iso_now();
  return store.add_forge_usage(u);
}

}  // namespace

Status save_forge_usage(Store& store, const ForgeSession& s) {
  return save_usage(store, s.forge.api_url, s.gh.stats());
}

Status save_forge_usage(Store& store, const GitLabSession& s) {
  return save_usage(store, s.forge.api_url, s.gl.stats());
}

}  // namespace aw
