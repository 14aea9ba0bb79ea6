// AW_NO_WRESTRICT(statement;): the statement compiled with GCC's -Wrestrict off, for the proven
// false positive of GCC 12 at -O3 (GCC bug 105651, the Release build): a short literal assigned
// to or concatenated with a std::string (`s = "/"`, `"\n" + t`) inlines basic_string::_M_replace,
// and the warning claims a memcpy of "9223372036854775810 or more bytes" that "may overlap" at a
// negative offset. That size is past max_size(), on a path _M_replace's own length check rules
// out, and the literal and the string's buffer are distinct objects: no overlap can happen. Used
// at each line GCC 12 reports, never around a block, so -Werror keeps -Wrestrict everywhere else.
#pragma once

#define AW_NO_WRESTRICT(...)                                                      \
  _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wrestrict\"") \
      __VA_ARGS__ _Pragma("GCC diagnostic pop")
