// Lets exactly one other user connect to a unix socket of the owner's (the inference proxy's,
// bridged into the worker's sandbox): connect(2) needs write permission on the socket file, and a
// POSIX ACL entry gives it to that one uid without opening the socket to a group or to everyone.
#pragma once

#include <sys/types.h>

#include <string>

#include "base/result.h"

namespace aw {

// Sets the access ACL of the socket at path to user::rw-, user:uid:rw-, group::---, mask::rw-,
// other::---. Refuses anything but a socket of this process's own uid (a link is not followed).
// An Error names the file system when it has no ACLs (EOPNOTSUPP).
Status grant_socket_to(const std::string& path, uid_t uid);

}  // namespace aw
