#include <gtest/gtest.h>

#include "config/config.h"

namespace aw {
namespace {

Argv words(const std::string& s) {
  auto r = split_words(s);
  EXPECT_TRUE(r) << s << ": " << (r ? "" : r.error().message);
  return r ? *r : Argv{};
}

std::string error_of(const std::string& s) {
  auto r = split_words(s);
  EXPECT_FALSE(r) << s << " should have been refused";
  return r ? "" : r.error().message;
}

TEST(SplitWords, BlanksSeparateWordsAndRunsOfBlanksCountOnce) {
  EXPECT_EQ(words("claude  -p\t--verbose "), (Argv{"claude", "-p", "--verbose"}));
  EXPECT_EQ(words(""), Argv{});
  EXPECT_EQ(words("   "), Argv{});
}

TEST(SplitWords, SingleQuotesKeepEverythingLiteral) {
  EXPECT_EQ(words(R"(echo 'a b' 'it''s' '$HOME \n "x"')"),
            (Argv{"echo", "a b", "its", R"($HOME \n "x")"}));
}

TEST(SplitWords, DoubleQuotesAllowOnlyTheFourEscapes) {
  EXPECT_EQ(words(R"(x "a \"b\" \\ \$ \` \n")"), (Argv{"x", R"(a "b" \ $ ` \n)"}));
}

TEST(SplitWords, BackslashOutsideQuotesEscapesTheNextCharacter) {
  EXPECT_EQ(words(R"(a\ b c\'d \|)"), (Argv{"a b", "c'd", "|"}));
}

TEST(SplitWords, AdjacentQuotedPartsJoinIntoOneWord) {
  EXPECT_EQ(words(R"(--msg="hello world"'!' pre'fix')"), (Argv{"--msg=hello world!", "prefix"}));
}

TEST(SplitWords, EmptyQuotesAreAnEmptyArgument) {
  EXPECT_EQ(words(R"(prog '' "")"), (Argv{"prog", "", ""}));
}

TEST(SplitWords, NothingIsExpanded) {
  EXPECT_EQ(words("echo $HOME ~ ~/x *.txt $(id) `id` ${X} {a,b}"),
            (Argv{"echo", "$HOME", "~", "~/x", "*.txt", "$(id)", "`id`", "${X}", "{a,b}"}));
  EXPECT_EQ(words(R"("$HOME" "*")"), (Argv{"$HOME", "*"}));
}

TEST(SplitWords, UnbalancedSingleQuoteNamesItsColumn) {
  EXPECT_EQ(error_of("echo 'abc"), "unbalanced single quote at column 6; add the closing '");
}

TEST(SplitWords, UnbalancedDoubleQuoteNamesItsColumn) {
  EXPECT_EQ(error_of(R"(a "b \" c)"), "unbalanced double quote at column 3; add the closing \"");
}

TEST(SplitWords, TrailingBackslashIsRefused) {
  EXPECT_EQ(error_of("make \\"),
            "trailing backslash at column 6; remove it, or write \\\\ for a backslash");
}

TEST(SplitWords, ShellOperatorsAsBareWordsAreRefusedWithAnExplanation) {
  std::string e = error_of("npm ci && npm test");
  EXPECT_EQ(e,
            "'&&' at column 8 is a shell operator, but commands are not run through a shell, so "
            "it would reach the program as a plain argument; put the steps in a script and run "
            "that, or write a list such as [sh, -c, \"...\"] to ask for a shell");
  for (const char* op : {"|", "||", ";", ">", ">>", "<", "&"}) {
    std::string msg = error_of(std::string("a ") + op + " b");
    EXPECT_TRUE(msg.starts_with(std::string("'") + op + "' at column 3 is a shell operator"))
        << msg;
  }
}

TEST(SplitWords, OperatorsGluedToWordsAreRefusedToo) {
  EXPECT_TRUE(error_of("make test>log").starts_with("'>' at column 10 is a shell operator"));
  EXPECT_TRUE(error_of("a;b").starts_with("';' at column 2 is a shell operator"));
}

TEST(SplitWords, QuotedOrEscapedOperatorsAreOrdinaryCharacters) {
  EXPECT_EQ(words(R"(grep 'a|b' "x && y" \; \>)"), (Argv{"grep", "a|b", "x && y", ";", ">"}));
}

TEST(SplitWords, LineBreakIsRefusedLikeASemicolon) {
  EXPECT_TRUE(error_of("npm ci\nnpm test").starts_with("line break at column 7"));
  EXPECT_EQ(words("a 'x\ny'"), (Argv{"a", "x\ny"}));
  EXPECT_EQ(words("a \\\nb"), (Argv{"a", "b"}));
}

TEST(SplitWords, CommentIsRefusedButHashInsideAWordIsLiteral) {
  EXPECT_TRUE(error_of("npm test # all").starts_with("'#' at column 10 would start a comment"));
  EXPECT_EQ(words("issue#3 '#'"), (Argv{"issue#3", "#"}));
}

}  // namespace
}  // namespace aw
