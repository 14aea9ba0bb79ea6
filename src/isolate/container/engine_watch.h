// Whether the container engine still answers while a phase runs. The phase's main process is the
// engine's client (`docker run`): a hung engine hangs it without a word, and the container may go
// on writing in the clone. An EngineWatch asks the engine about the phase's container every few
// seconds on its own thread; a question left unanswered for the engine's silence makes silent()
// say so, and the caller stops the phase and loses the unit.
//
//   EngineWatch watch(engine, "aw-UNIT-3");
//   ... while the phase runs: if (auto why = watch.silent()) stop it, unit lost: *why
//   watch.stop();  // before removing the container (joins the thread)
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "isolate/container/engine.h"

namespace aw {

class EngineWatch {
 public:
  EngineWatch(Engine engine, std::string container);
  ~EngineWatch();
  EngineWatch(const EngineWatch&) = delete;
  EngineWatch& operator=(const EngineWatch&) = delete;

  // Why the engine counts as gone ("the container engine docker (/usr/bin/docker) did not answer
  // for 60 s (limits.engine_silence)"), once a question went unanswered; never blocks.
  std::optional<std::string> silent() const;
  // Ends the questions (waits for the one in flight, at most the silence).
  void stop();

 private:
  void run();

  Engine engine_;
  std::string container_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::optional<std::string> silent_;
  std::thread thread_;
};

}  // namespace aw
