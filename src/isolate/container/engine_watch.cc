#include "isolate/container/engine_watch.h"

#include <fmt/format.h>

#include <algorithm>

namespace aw {

namespace {

// Often enough that a hang is seen soon after it begins, seldom enough to cost nothing: a quarter
// of the silence, between 250 ms and 5 s.
std::chrono::milliseconds interval_of(std::chrono::milliseconds silence) {
  return std::clamp<std::chrono::milliseconds>(silence / 4, std::chrono::milliseconds(250),
                                               std::chrono::seconds(5));
}

}  // namespace

EngineWatch::EngineWatch(Engine engine, std::string container)
    : engine_(std::move(engine)), container_(std::move(container)) {
  thread_ = std::thread([this] { run(); });
}

EngineWatch::~EngineWatch() {
  stop();
}

std::optional<std::string> EngineWatch::silent() const {
  std::lock_guard<std::mutex> lock(mu_);
  return silent_;
}

void EngineWatch::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

// Any answer counts, "no such container" too (the phase may not have made it yet, or it ended);
// only a question the engine leaves unanswered for its whole silence does not.
void EngineWatch::run() {
  auto every = interval_of(engine_.silence);
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    lock.unlock();
    auto asked = engine_command(
        engine_, {"container", "inspect", "--format", "{{.State.Status}}", container_},
        engine_.silence);
    lock.lock();
    if (!asked && !stopping_) {
      silent_ = fmt::format(
          "the container engine {} ({}) did not answer for {} s (limits.engine_silence): {}",
          to_string(engine_.kind), engine_.client,
          fmt::format("{:g}", static_cast<double>(engine_.silence.count()) / 1000.0),
          asked.error().message);
      return;
    }
    wake_.wait_for(lock, every, [this] { return stopping_; });
  }
}

}  // namespace aw
