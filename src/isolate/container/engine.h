// The container engine (Docker or Podman): which one answers, which images it has, and removing a
// container with a deadline. Every call is a short run of the engine's client, never a shell.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "base/result.h"

namespace aw {

enum class EngineKind { docker, podman };

struct Engine {
  EngineKind kind = EngineKind::docker;
  std::string client;   // absolute path of the client binary
  std::string version;  // the server's version (docker) or podman's own
  // The client's own environment: PATH, the owner's HOME, and the owner's engine variables
  // (DOCKER_HOST, DOCKER_API_VERSION, CONTAINER_HOST, XDG_RUNTIME_DIR) when set. Never a path
  // inside a clone: the client reads its config (credential helpers, proxies, mounts for
  // podman's containers.conf) from there.
  std::vector<std::string> client_env;
  // How long a question may go unanswered before the engine counts as gone (limits.
  // engine_silence): the deadline of image_present and remove_container, and what
  // EngineWatch (engine_watch.h) allows a phase's liveness question.
  std::chrono::milliseconds silence{60000};
};

const char* to_string(EngineKind k);

// preferred: "docker", "podman", an absolute path to either client, or "" (docker, then podman).
// The first that answers within 10 s (or `silence`, when shorter) wins, with its silence set;
// the error says what each attempt answered.
Result<Engine> find_engine(const std::string& preferred,
                           std::chrono::milliseconds silence = std::chrono::seconds(60));

// Error when the image is not in the engine's local store (nothing is pulled).
Status image_present(const Engine& e, const std::string& image);

// `pull IMAGE` with a deadline; the error says plainly that no registry answered.
Status pull_image(const Engine& e, const std::string& image,
                  std::chrono::seconds deadline = std::chrono::seconds(300));

// Where `program` resolves inside a throwaway container of image (run with the same hardening as
// a phase: no network, no capabilities, no-new-privileges). Error when it is not there.
Result<std::string> program_in_image(const Engine& e, const std::string& image,
                                     const std::string& program);

// `rm -f NAME`, then proof that the engine no longer knows it, within `deadline` (the engine's
// silence by default). Success when the container is gone (or never existed). An Error means the
// engine did not answer in time or the container is still there: the unit's clone must be
// considered lost.
Status remove_container(const Engine& e, const std::string& name);
Status remove_container(const Engine& e, const std::string& name,
                        std::chrono::milliseconds deadline);

// Names of containers the engine still has with label awaywork.unit=unit ("" = any unit):
// leftovers of a crashed awaywork, for the watchdog and doctor.
Result<std::vector<std::string>> containers_of_unit(const Engine& e, const std::string& unit);

// Output of a short engine command, killed after `deadline`. Error when the client could not be
// started or did not finish in time; a non-zero exit is returned as the Captured's exit_code.
struct EngineOutput {
  int exit_code = -1;
  std::string out, err;
};
Result<EngineOutput> engine_command(const Engine& e, const std::vector<std::string>& args,
                                    std::chrono::milliseconds deadline);

}  // namespace aw
