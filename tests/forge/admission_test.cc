// Admission: roles from the trust list, listed users and bots, never github-actions[bot] or
// awaywork itself, nobody after stop_after; each decision says why.
#include <gtest/gtest.h>

#include "forge/admission.h"

namespace aw {
namespace {

struct Roles {
  std::map<std::string, std::string> of;
  int asked = 0;
  RoleLookup lookup() {
    return [this](const std::string& login) -> Result<std::string> {
      ++asked;
      if (login == "broken") return fail("GitHub GET ...: 502");
      auto it = of.find(login);
      return it == of.end() ? std::string("none") : it->second;
    };
  }
};

TEST(Admission, TheDefaultRolesAreAdminMaintainWrite) {
  Roles r{{{"a", "admin"}, {"m", "maintain"}, {"w", "write"}, {"t", "triage"}, {"rd", "read"}}};
  Admission adm(TrustConfig{}, 0, "aw-bot", r.lookup(), 1000);
  EXPECT_TRUE(adm.check({"a", false}).admitted);
  EXPECT_TRUE(adm.check({"m", false}).admitted);
  EXPECT_EQ(adm.check({"w", false}).reason, "role write");
  EXPECT_FALSE(adm.check({"t", false}).admitted);
  Admitted read = adm.check({"rd", false});
  EXPECT_FALSE(read.admitted);
  EXPECT_EQ(read.reason, "role read, not admitted");
  EXPECT_EQ(adm.check({"stranger", false}).reason, "role none, not admitted");
}

TEST(Admission, TheRoleListIsExact) {
  Roles r{{{"t", "triage"}, {"w", "write"}}};
  TrustConfig trust;
  trust.roles = {"triage"};
  Admission adm(trust, 0, "", r.lookup(), 0);
  EXPECT_TRUE(adm.check({"t", false}).admitted);
  EXPECT_FALSE(adm.check({"w", false}).admitted);
}

TEST(Admission, ListedUsersAndBotsAreAdmittedOthersBotsNever) {
  Roles r;
  TrustConfig trust;
  trust.users = {"Carol"};
  trust.bots = {"renovate[bot]"};
  Admission adm(trust, 0, "", r.lookup(), 0);
  EXPECT_EQ(adm.check({"carol", false}).reason, "listed user");
  EXPECT_TRUE(adm.check({"renovate[bot]", true}).admitted);
  Admitted other = adm.check({"dependabot[bot]", true});
  EXPECT_FALSE(other.admitted);
  EXPECT_NE(other.reason.find("not listed"), std::string::npos);
  EXPECT_EQ(r.asked, 0);  // bots and listed users need no lookup
}

TEST(Admission, GithubActionsAndAwayworkItselfNeverEvenAsAdmins) {
  Roles r{{{"aw-bot", "admin"}}};
  TrustConfig trust;
  trust.users = {"aw-bot"};
  trust.bots = {"github-actions[bot]"};  // the config refuses this; admission refuses it anyway
  Admission adm(trust, 0, "aw-bot", r.lookup(), 0);
  EXPECT_FALSE(adm.check({"github-actions[bot]", true}).admitted);
  Admitted self = adm.check({"AW-bot", false});
  EXPECT_FALSE(self.admitted);
  EXPECT_EQ(self.reason, "awaywork's own login, never admitted");
}

TEST(Admission, NobodyAfterStopAfter) {
  Roles r{{{"a", "admin"}}};
  TrustConfig trust;
  trust.users = {"u"};
  Admission late(trust, 1000, "", r.lookup(), 1001);
  EXPECT_FALSE(late.check({"a", false}).admitted);
  EXPECT_FALSE(late.check({"u", false}).admitted);
  EXPECT_NE(late.check({"a", false}).reason.find("stop_after"), std::string::npos);
  Admission early(trust, 1000, "", r.lookup(), 1000);
  EXPECT_TRUE(early.check({"a", false}).admitted);
}

TEST(Admission, ALookupFailureRefusesAndEachLoginIsAskedOnce) {
  Roles r{{{"w", "write"}}};
  Admission adm(TrustConfig{}, 0, "", r.lookup(), 0);
  Admitted b = adm.check({"broken", false});
  EXPECT_FALSE(b.admitted);
  EXPECT_NE(b.reason.find("role unknown"), std::string::npos);
  adm.check({"w", false});
  adm.check({"w", false});
  EXPECT_EQ(r.asked, 2);
}

}  // namespace
}  // namespace aw
