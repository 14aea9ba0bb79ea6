// Where a plugin's program really is, for the checks that decide what of it is the plugin's own.
//
//   std::string p = plugin_program_realpath(cfg.command[0]);  // "" when it does not resolve
//   if (plugin_program_is_system(p)) ...  // /usr/bin/python3: the system's, not the plugin's
//
// Shared by approval (what the hash covers), call (what the sandbox lends) and the manifest
// (which folder holds awaywork-plugin.json), so the three agree on one answer.
#pragma once

#include <string>

namespace aw {

// realpath(3) of `path`, or "" when it does not resolve.
std::string plugin_program_realpath(const std::string& path);

// True for a program in the system's own trees (/usr, /bin, /sbin, /lib, /lib64): its folder is
// not the plugin's, so only the program itself is covered.
bool plugin_program_is_system(const std::string& path);

}  // namespace aw
