// inert(): hostile text on a terminal or in a log shows its controls, never sends them.
#include "base/inert.h"

#include <gtest/gtest.h>

namespace aw {
namespace {

TEST(Inert, C0AndDelBecomeHexEscapesButLinesAreKept) {
  EXPECT_EQ(inert("clear\x1b[2J bell\x07 cr\r del\x7f nul" + std::string(1, '\0')),
            "clear\\x1b[2J bell\\x07 cr\\x0d del\\x7f nul\\x00");
  EXPECT_EQ(inert("two\nlines\tand a tab"), "two\nlines\tand a tab");
}

TEST(InertLine, EscapesNewlineAndTabToo) {
  // A path or a detail shown on a line of its own cannot forge the next line.
  EXPECT_EQ(inert_line("a\nrefused 0 reasons\tb\x1b"), "a\\x0arefused 0 reasons\\x09b\\x1b");
}

TEST(Inert, C1ControlsBecomeUnicodeEscapes) {
  // U+009B is CSI on some terminals, U+0085 a line break for some log viewers.
  EXPECT_EQ(inert("csi \xc2\x9b"
                  "31m nel \xc2\x85 pad \xc2\x80"),
            "csi \\u009b31m nel \\u0085 pad \\u0080");
  EXPECT_EQ(inert_line("\xc2\x9f"), "\\u009f");
}

TEST(Inert, BidiAndInvisibleCharactersBecomeUnicodeEscapes) {
  EXPECT_EQ(inert("invoice\xe2\x80\xae"
                  "fdp.exe"),
            "invoice\\u202efdp.exe");  // RLO
  EXPECT_EQ(inert("\xe2\x81\xa6"
                  "x\xe2\x81\xa9"),
            "\\u2066x\\u2069");                                                   // LRI ... PDI
  EXPECT_EQ(inert("\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c"), "\\u200e\\u200f\\u061c");  // LRM RLM ALM
  EXPECT_EQ(inert("zero\xe2\x80\x8bwidth\xef\xbb\xbf"), "zero\\u200bwidth\\ufeff");
  EXPECT_EQ(inert("line\xe2\x80\xa8sep\xe2\x80\xa9"), "line\\u2028sep\\u2029");
  EXPECT_EQ(inert("soft\xc2\xad"
                  "hyphen"),
            "soft\\u00adhyphen");
  EXPECT_EQ(inert("\xef\xbf\xb9"), "\\ufff9");  // interlinear annotation anchor
  // A tag character (text spelled one invisible character a byte) past U+FFFF: \U and 8 digits.
  EXPECT_EQ(inert("hi\xf3\xa0\x81\x81\xf3\xa0\x81\xbf"), "hi\\U000e0041\\U000e007f");
}

TEST(Inert, InvalidUtf8BytesBecomeHexEscapes) {
  EXPECT_EQ(inert("a\xff"
                  "b"),
            "a\\xffb");
  EXPECT_EQ(inert("\xc0\xaf"), "\\xc0\\xaf");                    // overlong '/'
  EXPECT_EQ(inert("\xe0\x80\xaf"), "\\xe0\\x80\\xaf");           // overlong, three bytes
  EXPECT_EQ(inert("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // a surrogate
  EXPECT_EQ(inert("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // past U+10FFFF
  EXPECT_EQ(inert("cut \xe2\x80"), "cut \\xe2\\x80");            // cut short
  EXPECT_EQ(inert("\x80\xc2\x9b"), "\\x80\\u009b");              // a stray continuation byte
}

TEST(Inert, PrintableTextIsKeptAsItIs) {
  std::string text = "plain ASCII ~!@#$%^&*() \\x1b typed, é 日本語 \xf0\x9f\x98\x80 (U+1F600)";
  EXPECT_EQ(inert(text), text);
  EXPECT_EQ(inert_line(text), text);
  EXPECT_EQ(inert(""), "");
}

TEST(Inert, OneVariationSelectorAfterASymbolIsKept) {
  std::string warning = "\xe2\x9a\xa0\xef\xb8\x8f";  // ⚠ U+FE0F: the emoji form
  EXPECT_EQ(inert(warning + " careful"), warning + " careful");
  EXPECT_EQ(inert("\xc2\xa9\xef\xb8\x8e"), "\xc2\xa9\xef\xb8\x8e");  // (C) U+FE0E
  // After a letter, or a second one: a hiding place, so it is shown.
  EXPECT_EQ(inert("a\xef\xb8\x8f"), "a\\ufe0f");
  EXPECT_EQ(inert(warning + "\xef\xb8\x8f"), warning + "\\ufe0f");
  EXPECT_EQ(inert("\xef\xb8\x8f"), "\\ufe0f");
  EXPECT_EQ(inert("\xe2\x9a\xa0\xef\xb8\x80"), "\xe2\x9a\xa0\\ufe00");  // VS1 is never kept
}

TEST(Inert, IsIdempotentSoAWorkersOutputCanBeMadeInertAgain) {
  // What a second pass keeps, the first already made valid UTF-8 without controls.
  std::string hostile =
      "\x1b]0;t\x07\n\t\xc2\x9b\xe2\x80\xae\xff\xc0\xaf\xf3\xa0\x81\x81\xe2\x9a\xa0\xef\xb8\x8f"
      "\xef\xb8\x8f\\x1b\xed\xa0\x80\xe2\x80";
  for (auto f : {&inert, &inert_line}) {
    std::string once = f(hostile);
    EXPECT_EQ(f(once), once);
    EXPECT_EQ(inert(once), once);
    EXPECT_EQ(inert_line(once).find_first_of("\n\t"), std::string::npos);
  }
  EXPECT_EQ(inert_line(inert(hostile)), inert_line(hostile));
}

}  // namespace
}  // namespace aw
