// A FAKE GitLab for a C++ test: starts tests/fakes/fake_gitlab.py (its contract: tests/fakes/
// README.md, section "fake_gitlab.py"), reads the JSON line it prints when ready, and steers it
// through /_fake/ with a tiny HTTP/1.1 client (fake_forge.h). Test code only; header-only
// (nlohmann::json, POSIX).
//
//   aw::test::FakeGitlab gl(tmp);  ASSERT_FALSE(gl.api_url().empty()) << gl.error();
//   std::string token = gl.add_user("aw-bot");          // glpat-... (fake)
//   gl.add_project("grp/sub/app", "/path/to/a/checkout");
//   gl.member("grp", "aw-bot", 30);                      // Developer on the group
//   gl.control("POST", "projects/grp/sub/app/issues", {{"username", "bob"}, {"title", "x"}});
//   ... point awaywork at gl.api_url() (http://127.0.0.1:PORT/api/v4) ...
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fake_forge.h"

namespace aw::test {

class FakeGitlab : public FakeForge {
 public:
  // Started at once, its state under dir/fake-gitlab; api_url() is "" when it did not start.
  // api_url(): http://127.0.0.1:PORT/api/v4; git_url(): + "/GROUP/.../PROJECT.git".
  explicit FakeGitlab(const std::string& dir, const std::vector<std::string>& extra = {})
      : FakeForge("fake_gitlab.py", "awaywork-fake-gitlab-fixture") {
    launch(dir + "/fake-gitlab", extra, "api_url");
  }

  // The API as a user (PRIVATE-TOKEN; "" = anonymous); path below /api/v4.
  Reply api(const std::string& method, const std::string& path, const std::string& token,
            const nlohmann::json& body = nullptr) {
    return request(port_, method, "/api/v4" + path, body,
                   token.empty() ? "" : "PRIVATE-TOKEN: " + token + "\r\n");
  }

  std::string add_user(const std::string& username, bool bot = false) {
    auto u = control("POST", "users", {{"username", username}, {"bot", bot}});
    return u.is_object() ? u["token"].get<std::string>() : "";
  }
  nlohmann::json add_project(const std::string& path, const std::string& source = "") {
    nlohmann::json b = {{"path", path}};
    if (!source.empty()) b["source"] = source;
    return control("POST", "projects", b);
  }
  nlohmann::json member(const std::string& ns, const std::string& username, int level) {
    return control("POST", "members/" + ns, {{"username", username}, {"access_level", level}});
  }
  // An issue's notes, oldest first, as the user of token reads them (project: "grp/sub/app").
  nlohmann::json notes(std::string project, int64_t iid, const std::string& token) {
    for (size_t at = 0; (at = project.find('/', at)) != std::string::npos;)
      project.replace(at, 1, "%2F");
    return api("GET",
               "/projects/" + project + "/issues/" + std::to_string(iid) +
                   "/notes?sort=asc&per_page=100",
               token)
        .body;
  }
  nlohmann::json faults(const nlohmann::json& b) { return control("POST", "faults", b); }
};

}  // namespace aw::test
