// The fake GitHub's C++ fixture is tests/fakes/fake_github.h (FakeGithub, also spelt FakeGitHub);
// this header only forwards to it.
#pragma once

#include "../fakes/fake_github.h"
