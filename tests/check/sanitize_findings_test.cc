// What fuzz_requests' rendering oracle (cmark-gfm, as GitHub renders) found live in sanitized
// text, each pinned on a small input (the fuzzer's own inputs are seeds in fuzz/corpus/requests).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "check/sanitize.h"

namespace aw {
namespace {

std::string S(std::string_view in) {
  SanitizeOptions o;
  o.repo = "o/r";
  std::string once = sanitize_text(in, o);
  EXPECT_EQ(sanitize_text(once, o), once) << "not idempotent on: " << in;
  return once;
}

// closing-keyword-before-non-ascii-letter: `Ā` folds to `a`, but GitHub ends `#1` at it.
TEST(CheckSanitizeFindings, AnIssueNumberEndsAtANonAsciiLetterAsOnGitHub) {
  EXPECT_EQ(S("fixes #1\xC4\x80 and closes o/x#2\xC4\x80"),
            "fixes <code>#1</code>\xC4\x80 and closes <code>o/x#2</code>\xC4\x80");
  EXPECT_EQ(S("see other/repo#3\xC4\x80"), "see <code>other/repo#3</code>\xC4\x80");
  EXPECT_EQ(S("fixes #1a"), "fixes #1a");  // no reference on GitHub either
}

// mention-after-unclosed-backticks: once a run of backticks has no closer, cmark-gfm may read
// the code spans after it as literal backticks, so their text is treated as prose.
TEST(CheckSanitizeFindings, CodeSpansAfterAnUnclosedBacktickRunAreNotTrusted) {
  EXPECT_EQ(S("a ``` `@x` and `@y`"), "a ``` `<code>@x</code>` and `<code>@y</code>`");
  EXPECT_EQ(S("`@x` then ```"), "`@x` then ```");  // before it, spans are still code
}

// mention-in-footnote-label: GitHub shows a footnote label as raw text, where <code> is text.
TEST(CheckSanitizeFindings, AFootnoteLabelHoldingAMentionOrReferenceIsEscaped) {
  EXPECT_EQ(S("see [^1 @x] and [^2] and [^3 #4]\n\n[^2]: ok"),
            "see \\[^1 <code>@x</code>] and [^2] and \\[^3 #4]\n\n[^2]: ok");
  EXPECT_EQ(S("an open [^label\ngoes on]"), "an open \\[^label\ngoes on]");
}

// link-title-on-the-next-line: CommonMark lets a link's title follow on the next line.
TEST(CheckSanitizeFindings, ALinkWhoseTitleMayFollowOnTheNextLineIsShownAsText) {
  EXPECT_EQ(S("[x](https://github.com\n\"hidden\") and [y](https://github.com \"t\")"),
            "[x\\](https://github.com\n\"hidden\") and [y](https://github.com \"\")");
  EXPECT_EQ(S("[x](https://github.com \"spans\nlines\")"),
            "[x\\](https://github.com \"spans\nlines\")");
  // Nothing can follow at the end of the text or before a blank line: left as it was (and a
  // second pass changes nothing; link-dest-ends-the-text).
  EXPECT_EQ(S("![x](https://github.com/a](https://github.com/b.png)"),
            "![](https://github.com/a](https://github.com/b.png)");
  EXPECT_EQ(S("[x](https://github.com\n\nnext"), "[x](https://github.com\n\nnext");
}

// autolink-over-quote: GitHub's autolinker reads on over a quote followed by more text.
TEST(CheckSanitizeFindings, AnAllowedHostThatAQuoteContinuesIsRemoved) {
  EXPECT_EQ(S("see https://github.com\".evil.com/x"), "see (link removed)\".evil.com/x");
  EXPECT_EQ(S("say \"https://github.com\"."), "say \"https://github.com\".");
}

// cut-note-after-refdef-destination: ` …` after a reference definition's destination makes
// the line a paragraph, which a second pass escapes; the cut moves back before that line.
TEST(CheckSanitizeFindings, TheCutNeverEndsAReferenceDefinitionWithItsNote) {
  for (bool one_line : {true, false}) {
    SanitizeOptions o;
    o.repo = "o/r";
    o.max_chars = 40;
    o.one_line = one_line;
    std::string cut = sanitize_text("a\n\n[1]: https://github.com/" + std::string(50, 'x'), o);
    EXPECT_EQ(cut, "a\n\n \xE2\x80\xA6") << one_line;
    EXPECT_EQ(sanitize_text(cut, o), cut) << one_line;
    // elsewhere the cut stays where it was
    EXPECT_EQ(sanitize_text("a\n\nsee https://github.com/" + std::string(50, 'x'), o),
              "a\n\nsee https://github.com/" + std::string(12, 'x') + " \xE2\x80\xA6")
        << one_line;
  }
}

// link-host-before-code-span, link-over-code-span-comment: GitHub's autolinker takes everything
// up to white space before code spans are found: over a backtick after the host
// (`https://github.com%60@evil...` has user info: the host is evil), or into a code span that
// holds `<!--`, where it stops, leaving a live comment.
TEST(CheckSanitizeFindings, AnAllowedLinkGluedToABacktickIsRemoved) {
  EXPECT_EQ(S("see https://github.com`@evil.com` now"), "see (link removed)`@evil.com` now");
  EXPECT_EQ(S("see https://github.com/{`<!-- x -->`}"), "see (link removed){`<!-- x -->`}");
  EXPECT_EQ(S("see https://github.com/x `y` now"), "see https://github.com/x `y` now");
  EXPECT_EQ(S("see `https://github.com` now"), "see `https://github.com` now");
}

// url-before-lt: a URL ends at `<`, which the sanitizer writes as `&lt;`; it ends there again on
// a second pass (else the longer URL read as a pull request of another repository).
TEST(CheckSanitizeFindings, AUrlEndsAtTheEntitiesTheSanitizerWrites) {
  EXPECT_EQ(S("see https://github.com/vic<im/repo/pull/10"),
            "see https://github.com/vic&lt;im/repo/pull/10");
  // `https:` before `{{` is no URL, nor before the `&#123;` it becomes (templates-after-scheme)
  EXPECT_EQ(S("see https:{{x}}"), "see https:&#123;&#123;x&#125;&#125;");
}

// slashes-after-code-span: whether a code span is trusted can change on a second pass (a link
// title holding a backtick is emptied by the first), so `//x` is judged by the byte before it.
TEST(CheckSanitizeFindings, SlashesAfterACodeSpanAreJudgedByTheByteBefore) {
  EXPECT_EQ(S("[d](x \"`\") `a`//nd"), "[d](x \"\") `a`//nd");
  EXPECT_EQ(S("[d](//evil.com)"), "[d]((link removed))");
}

// image-alt-on-the-next-line: alt text is removed per line, so an image whose `]` may be on a
// later line would keep its alt hidden; its `[` is escaped and it shows as text.
TEST(CheckSanitizeFindings, AnImageWhoseAltMayEndOnALaterLineIsShownAsText) {
  EXPECT_EQ(S("![hidden\ntext](https://github.com/a.png)"),
            "!\\[hidden\ntext](https://github.com/a.png)");
  EXPECT_EQ(S("![hidden](https://github.com/a.png)"), "![](https://github.com/a.png)");
  EXPECT_EQ(S("`![x` and ![y"), "`![x` and !\\[y");
  // image-close-escaped-1..13: a `]` escaped because its destination goes on unpairs the image too
  EXPECT_EQ(S("![ignore previous](https://github.com/a\nb.png)"),
            "!\\[ignore previous\\](https://github.com/a\nb.png)");
  // a guard unpairs brackets as a second pass pairs them: here the image's `]` is the one after
  // the footnote label, and no `(` follows it, so it is no image
  EXPECT_EQ(S("![a [b](https://github.com/c\nd) e](https://github.com/a.png)"),
            "!\\[a [b\\](https://github.com/c\nd) e](https://github.com/a.png)");
  EXPECT_EQ(S("![a [^x@] b](https://github.com/a.png)"),
            "![a \\[^x@] b](https://github.com/a.png)");
}

// url-holding-reference-1..5: inside an unclosed `[` GitHub's autolinker does not run, so a kept
// URL is text, where `owner/repo#N` after a non-alphanumeric byte is a live reference (and `@x`
// a mention): such a URL is wrapped whole; ordinary ones are kept.
TEST(CheckSanitizeFindings, AKeptUrlHoldingAReferenceOrMentionIsWrapped) {
  EXPECT_EQ(S("[see https://github.com/x?next=%eevil/repo#7 and"),
            "[see <code>https://github.com/x?next=%eevil/repo#7</code> and");
  EXPECT_EQ(S("see https://github.com/@bob/x"), "see <code>https://github.com/@bob/x</code>");
  EXPECT_EQ(S("see https://github.com/o/r#3 and https://github.com/a/b#3"),
            "see https://github.com/o/r#3 and <code>https://github.com/a/b#3</code>");
  EXPECT_EQ(S("see https://github.com/o/r/blob/main/a.md#L10 and https://github.com/a/b/tree/x"),
            "see https://github.com/o/r/blob/main/a.md#L10 and https://github.com/a/b/tree/x");
}

// scheme-before-unfinished-entity: `https:&#123x` is a URL (no entity the sanitizer writes
// follows the scheme), also on a second pass, after `&` became `&amp;`.
TEST(CheckSanitizeFindings, ASchemeIsFollowedOnlyByTheEntitiesTheSanitizerWritesAsWritten) {
  EXPECT_EQ(S("[d](https:&#123mm;x)"), "[d]((link removed)&amp;#123mm;x)");
  EXPECT_EQ(S("https:&#123;x"), "https:&#123;x");
}

// host-before-lt: `<` after a bare host becomes `&lt;`, which the autolinker reads on over (and
// which a second pass read as `&`, removing the link): such a host is not kept.
TEST(CheckSanitizeFindings, AnAllowedHostBeforeALessThanIsRemoved) {
  EXPECT_EQ(S("[&]: https://github.com]: https://github.com<dx"),
            "\\[&]: https://github.com]: (link removed)&lt;dx");
  EXPECT_EQ(S("see https://github.com<b>x</b> and https://github.com/a<b>"),
            "see (link removed)<b>x</b> and https://github.com/a<b>");
}

// footnote-label-with-braces: `{{` in a footnote label becomes `&#123;&#123;` (a `#` a second
// pass escaped the label for, and GitHub, showing the label raw, could read as `#123`).
TEST(CheckSanitizeFindings, AFootnoteLabelHoldingTemplateBracesIsEscaped) {
  EXPECT_EQ(S("[^a {{x}}] and [^b]"), "\\[^a &#123;&#123;x&#125;&#125;] and [^b]");
}

// ---- issue 31, item 18: one run of the passes is not its own result ----
// A pass judges the text around what it rewrites, and a later pass (or its own replacement)
// rewrites that text; the passes now run until their output reads the same sanitized again.

// A regression seed of fuzz/corpus/requests, as fuzz_requests reads it.
std::string seed(const std::string& name) {
  std::ifstream f(std::filesystem::path(AW_SOURCE_DIR) / "fuzz/corpus/requests" / name,
                  std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_FALSE(ss.str().empty()) << name;
  return ss.str();
}

// sanitize(sanitize(x)) == sanitize(x) in every form fuzz_requests checks (and the caps the
// inputs were found with): body, one-line field, title.
void expect_settled(const std::string& in) {
  for (size_t cap : {4096, 200, 177, 45}) {
    for (bool one_line : {false, true}) {
      SanitizeOptions o;
      o.repo = "o/r";
      o.max_chars = cap;
      o.one_line = one_line;
      std::string once = sanitize_text(in, o);
      EXPECT_EQ(sanitize_text(once, o), once) << "cap " << cap << " one_line " << one_line;
      std::string title = sanitize_title(in, o);
      EXPECT_EQ(sanitize_title(title, o), title) << "title, cap " << cap;
    }
  }
}

// alt-text-removal-glues-a-backtick (481 bytes, a 240 s fuzz-long run): a kept URL followed by
// an image; removing its alt text (and white space with it) glued the URL to a backtick, which
// a second pass removes the URL for (GitHub's autolinker would take the backtick). Invalid
// UTF-8 plays no part: the small forms below have none. Dropping a tag's attributes does the
// same.
TEST(CheckSanitizeFindings, ARemovalThatGluesABacktickToAKeptUrlRemovesIt) {
  expect_settled(seed("alt-text-removal-glues-a-backtick"));
  EXPECT_EQ(S("https://github.com/x![a b](c`d` e"), "(link removed)![](c`d` e");
  EXPECT_EQ(S("https://github.com/x<b class=\"y\">`z` w"), "(link removed)<b>`z` w");
  EXPECT_EQ(S("https://github.com/x![a](c) `d` e"), "https://github.com/x![](c) `d` e");
  // found in the one-line form, cap 45 (title-alt-text-removal-glues-a-backtick)
  expect_settled(seed("title-alt-text-removal-glues-a-backtick"));
  for (std::string ticks : {"`", "``", "```", "````"}) {
    std::string in = "https://github.com/x![> ](-" + ticks;
    expect_settled(in);
    SanitizeOptions o;
    o.repo = "o/r";
    o.max_chars = 45;
    o.one_line = true;
    EXPECT_EQ(sanitize_text(in, o), "(link removed)![](-" + ticks);
    EXPECT_EQ(sanitize_title(in, o), "(link removed)![](-" + ticks);
  }
}

// escape-after-scheme-colon (one-line form, cap 177): the `\` guard the sanitizer writes before
// a `]` it shows as text followed `closes:`, and a backslash counted as a slash after a
// scheme: `closes:\` became a URL on a second pass. A backslash escaping other punctuation is
// that punctuation to markdown (`closes:]`), no slash; a dangerous scheme still goes whatever
// follows it but white space.
TEST(CheckSanitizeFindings, AnEscapeIsNoSlashAfterASchemeButADangerousSchemeStillGoes) {
  std::string in = "x\uFF1Ccloses:](&#@a\n![awaywork[]";
  expect_settled(in);
  expect_settled(seed("escape-after-scheme-colon"));
  SanitizeOptions o;
  o.repo = "o/r";
  o.max_chars = 177;
  o.one_line = true;
  EXPECT_EQ(sanitize_text(in, o), "x\uFF1Ccloses:\\](&#`@a`\n!\\[awaywork[]");
  EXPECT_EQ(S("note:\\[x] and closes:\\](y\nz"), "note:\\[x] and closes:\\](y\nz");
  EXPECT_EQ(S("[x](javascript:(alert(1))) [y](javascript:\\(alert(1))) [z](data:[1])"),
            "[x]((link removed)(alert(1))) [y]((link removed)\\(alert(1))) [z]((link removed)[1])");
  EXPECT_EQ(S("[w](javascript:\"alert(1)\") (just about:) <javascript:>"),
            "[w]((link removed)\"alert(1)\") (just about:) &lt;javascript:>");
  EXPECT_EQ(S("[x](https:\\\\evil.com) [y](https:\\/\\/evil.com)"),
            "[x]((link removed)) [y]((link removed))");
}

// link-removed-before-escaped-backtick (kept in fuzz/open, now fixed): `https:\`` was a URL
// (the backslash a slash) whose "(link removed)" left the backtick unescaped, so a second pass
// paired the code spans anew: the URL the first took for code was prose, live on GitHub, and
// removed. The escape is no slash now, and a replacement that changes the pairing is judged
// again before the text is posted.
TEST(CheckSanitizeFindings, AReplacementThatChangesTheCodeSpansIsJudgedAgain) {
  expect_settled(seed("link-removed-before-escaped-backtick"));
  EXPECT_EQ(S("[x](https:\\`a) `https://evil.example/x` b`"),
            "[x](https:\\`a) `https://evil.example/x` b`");
  EXPECT_EQ(S("[x](https:/`a) `https://evil.example/x` b`"),
            "[x]((link removed)`a) `(link removed)` b`");
}

// mention-before-kept-url-1, -2 (the rendering oracle, in a 194 s run for item 18): inside an
// unclosed `[` the autolinker does not run, so `@https://github.com/x` is a mention of `https`;
// the `@` and the URL are wrapped together.
TEST(CheckSanitizeFindings, AnAtBeforeAKeptUrlIsWrappedWithIt) {
  EXPECT_EQ(S("[a @https://github.com/x and"), "[a <code>@https://github.com/x</code> and");
  EXPECT_EQ(S("x @https://docs.github.com/y z"), "x <code>@https://docs.github.com/y</code> z");
  EXPECT_EQ(S("a@https://github.com/x"), "a@https://github.com/x");  // no mention on GitHub
  expect_settled(seed("mention-before-kept-url-2"));
}

// closing-keyword-after-non-ascii-letter-1, -2 (the rendering oracle, in a second 197 s run):
// `Ā` folds to `a`, so `Āfixes` read as one word, but GitHub reads words in ASCII and starts one
// at `fixes`.
TEST(CheckSanitizeFindings, AWordStartsAfterANonAsciiLetterAsOnGitHub) {
  EXPECT_EQ(S("x \xC4\x80"
              "fixes #1 and \xC3\xA9"
              "fixes #2 and prefixes #3"),
            "x \xC4\x80"
            "fixes <code>#1</code> and \xC3\xA9"
            "fixes <code>#2</code> and prefixes #3");
  EXPECT_EQ(S("\xEF\xAC\x81xes #4"), "\xEF\xAC\x81xes <code>#4</code>");  // the ligature fi
  expect_settled(seed("closing-keyword-after-non-ascii-letter-2"));
}

}  // namespace
}  // namespace aw
