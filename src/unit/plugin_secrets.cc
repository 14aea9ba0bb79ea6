#include "unit/plugin_secrets.h"

namespace aw {

void PluginSecrets::lend_to(PluginHost& host) {
  host.secret = [this](const std::string& name) -> Result<std::string> {
    if (!store_) {
      auto opened = open_secret_store({});
      if (!opened) return tl::make_unexpected(opened.error());
      store_ = std::move(*opened);
    }
    AW_TRY(std::string value, store_->get(name));
    read_.push_back(value);
    return value;
  };
}

std::vector<std::string> PluginSecrets::redaction(const std::vector<std::string>& literals) const {
  std::vector<std::string> all = literals;
  all.insert(all.end(), read_.begin(), read_.end());
  return all;
}

}  // namespace aw
