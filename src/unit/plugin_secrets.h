// The secret store as a unit lends it to the owner's plugins (plugin/call.h, PluginHost::secret):
// opened only when a plugin declares a secret, and every value read is kept, so that what a
// plugin's failed call printed (a plugin may echo its own secret on stderr) is redacted of it
// before it reaches the record. Shared by the notifiers (notify.cc) and the check plugins
// (collect.cc).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "plugin/call.h"
#include "secrets/store.h"

namespace aw {

class PluginSecrets {
 public:
  // host.secret reads through this object, which must outlive the host's calls.
  void lend_to(PluginHost& host);
  // Forgets the values read so far (before the next plugin's call).
  void forget() { read_.clear(); }
  // literals plus every value read since the last forget(): what a call's error is redacted of.
  std::vector<std::string> redaction(const std::vector<std::string>& literals) const;

 private:
  std::unique_ptr<SecretStore> store_;
  std::vector<std::string> read_;
};

}  // namespace aw
