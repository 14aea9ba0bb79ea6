#include "forge/usage.h"

#include "unit/unit_id.h"

namespace aw {

Status save_forge_usage(Store& store, const ForgeSession& s) {
  const GitHub::Stats& st = s.gh.stats();
  ForgeUsage u;
  u.api = s.forge.api_url;
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

}  // namespace aw
