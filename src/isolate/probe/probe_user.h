// `awaywork probe` under isolation user: the worker's leak probes (isolate/user/probes.h), run as
// the worker through the same isolator as a unit's agent phase (isolate/probe/isolated_run.h), and
// with the OS sandbox layered over the worker also the sandbox's suite (probes.h). The outer side
// plants the canaries a worker must not reach (an env file and a gh hosts.yml where the owner has
// none, an ssh-agent-like socket /tmp/ssh-XXXXXX/agent.N, an owner process with a canary in its
// environment) and removes them after; after the phase's kill it checks that the detached sleep
// the probe left is gone.
//
// The program run as the worker is a copy of awaywork in the phase's TMPDIR (a unit folder the
// worker owns for the phase): awaywork itself may live where the worker cannot read (/root/...,
// a build tree). The copy goes with the unit's HOME.
#pragma once

#include <optional>

#include "config/config.h"
#include "isolate/probe/probe_report.h"

namespace aw {

// The command's body for isolation user (isolate/probe/probe.h).
ProbeOutcome probe_user(const Config& cfg);

// The half run as the worker, `awaywork __probe-worker WORKER_TARGETS SANDBOX_TARGETS`: prints a
// JSON array of {name, ok, detail}. The exit code when argv[1] is __probe-worker (0: nothing
// leaked, 1: a leak, 2: bad arguments; cli/commands.h's codes), else nullopt. Dispatched by
// main.cc before option parsing.
std::optional<int> probe_worker_main(int argc, char** argv);

}  // namespace aw
