// The default-ignorable table is base's (base/default_ignorable.h): inert() reads it too.
#include "check/invisible.h"

#include <utf8proc.h>

namespace aw {

bool emoji_base(int32_t c) {
  if (c == 0x00A9 || c == 0x00AE || (c >= 0x1F000 && c <= 0x1FAFF)) return true;
  if (c < 0x203C || c > 0x3299) return false;
  // Emoji among the punctuation and letter-like characters of that span: ‼ ⁉ ℹ 〰 〽.
  if (c == 0x203C || c == 0x2049 || c == 0x2139 || c == 0x3030 || c == 0x303D) return true;
  auto cat = utf8proc_category(c);
  return cat == UTF8PROC_CATEGORY_SO || cat == UTF8PROC_CATEGORY_SM;
}

bool drop_invisible(int32_t prev, int32_t c) {
  if (c == '\n' || c == '\t') return false;
  if (c < 0x20 || (c >= 0x7F && c <= 0x9F)) return true;
  if (c == 0x2028 || c == 0x2029 || (c >= 0xFFF9 && c <= 0xFFFB)) return true;
  if (!default_ignorable(c)) return false;
  return !((c == 0xFE0E || c == 0xFE0F) && emoji_base(prev));
}

}  // namespace aw
