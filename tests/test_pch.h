// The tests' precompiled header (cmake/build_speed.cmake, AW_TEST_PCH): the third-party and
// standard headers most test files include, parsed once a tree instead of once a file. Never
// include it yourself; a test includes what it uses as if this file did not exist.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>
