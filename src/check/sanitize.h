// Deterministic, idempotent text sanitizing for anything the agent writes that a human or a forge
// will read.
//   SanitizeOptions o{{"github.com", "*.github.com"}, 65536, "owner/repo"};
//   std::string body = sanitize_text(raw, o, &stats);
// Two stages. The character stage runs first so that nothing a later step does can bring back
// what it removed:
//   1. ANSI escapes removed; invalid UTF-8 -> U+FFFD; \r\n and lone \r -> \n; C0/C1 controls
//      (except \n \t), DEL, U+2028/9 and every default-ignorable code point (zero-width and bidi
//      formatting, variation selectors, tags, BOM, fillers: check/invisible.h) removed but one
//      VS15/VS16 right after an emoji; then NFC.
// The markdown stage knows which text GitHub surely renders as code (fenced blocks, inline code
// spans; see sanitize_structure.cc) and leaves it exactly as written. It runs again on its own
// output until that reads the same sanitized again: a step judges the text around what it
// rewrites, which a later step (or its own replacement) may rewrite. Everywhere else:
//   2. URLs kept only when https, on an allowed host (ASCII, no punycode), without user info,
//      with an unencoded scheme; one carrying a second URL in its path, query or fragment is cut
//      before it; every other link, mailto:, tel:, javascript:... becomes "(link removed)". A
//      Windows path (`C:\x`) is no link.
//   3. HTML: a small safe set of tags kept without attributes; every other `<` that could start
//      a tag, comment or autolink escaped, so hidden comments show; entities other than
//      &lt; &gt; &amp; &quot; &#123; &#125; escaped.
//   4. Link and reference-definition titles and image alt text removed (hidden text); a
//      reference definition to anything but an https URL shown as text.
//   5. @mentions, and references after a closing keyword (every tense) or to another
//      repository, wrapped in <code>…</code> (inert in prose, in HTML blocks and in tables),
//      matched on a folded form (NFKC, case, confusables) so full-width `＠x` is caught too.
//   6. `{{` and `}}` (also in `${{`) written as entities.
//   7. Cut to max_chars code points (GitHub counts characters) with a visible note.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace aw {

struct SanitizeStats {
  int mentions = 0;  // @mentions neutralized
  int links = 0;     // URLs seen (kept or removed)
  int links_removed = 0;
  bool truncated = false;
};

struct SanitizeOptions {
  // Link hosts kept: exact names or "*.domain" for any subdomain. GitHub's own: its pages and
  // the hosts it serves repository files, images and avatars from (raw.githubusercontent.com...).
  std::vector<std::string> allowed_domains = {"github.com", "*.github.com",
                                              "*.githubusercontent.com"};
  size_t max_chars = 65536;  // code points; GitHub: title 256, body and comment 65536
  std::string repo;          // "owner/name": references to it stay live; empty: none do
  bool one_line = false;     // a title: GitHub renders inline markdown only (no fences, blocks)
  // A commit message (with one_line): GitHub closes issues from the commits it reads whatever
  // wraps the reference, so the reference after a closing keyword (also in a code span right
  // after it) becomes "(reference removed)" instead of being wrapped.
  bool commit = false;
};

std::string sanitize_text(std::string_view in, const SanitizeOptions& options,
                          SanitizeStats* stats = nullptr);
// The same with default options but these domains and cap (max_chars code points).
std::string sanitize_text(std::string_view in, const std::vector<std::string>& allowed_domains,
                          size_t max_chars, SanitizeStats* stats = nullptr);

// A title (a pull request's, an issue's, a commit subject) made from any text, whatever its
// source (the agent's request, the owner's prompt, an issue): line breaks and tabs become spaces,
// the `<` of a marker form (has_marker_form) becomes `‹` (U+2039) even in code, then sanitize_text
// as a one-line field (o.one_line is set) but for step 3: GitHub shows a title's HTML and
// entities as text, so `<` and `&` stay as written. Cut at o.max_chars code points with " …".
// The same rules for every title awaywork posts.
std::string sanitize_title(std::string_view in, SanitizeOptions o, SanitizeStats* stats = nullptr);

// The title a task text gives: its first line that is not blank, as sanitize_title.
std::string task_title(std::string_view task, const SanitizeOptions& o);

// A commit message whatever built it: every line a commit title (sanitize_title with o.commit
// set; the subject cut at subject_chars code points, the other lines at 1000), blank lines and
// the final newline kept.
std::string sanitize_commit_message(std::string_view in, size_t subject_chars = 256);

// The character stage alone (step 1): valid NFC without controls or anything invisible.
std::string clean_unicode(std::string_view in);

// For comparing, never for display: clean_unicode, then NFKC, case folding, marks stripped and
// common confusables (Cyrillic/Greek look-alikes) mapped to ASCII, whitespace runs as one space,
// trimmed. "ＢＵＧ", "bug" and "Bug\u200b" fold alike.
std::string fold_for_compare(std::string_view in);

// True when the text holds awaywork's hidden marker form `<!-- awaywork:... -->`, in any
// spelling GitHub would still render as that comment (case, spacing, invisible characters).
bool has_marker_form(std::string_view in);

// The text with no marker form left (has_marker_form is false on the result): each `<` that
// opens one, in any spelling, is written "&lt;" (prose still shows `<`; a code span shows the
// entity, visibly). Text without a marker form comes back as it was. Everything awaywork posts
// goes through it (forge/marker.h): a marker in a post is awaywork's own, never quoted text's.
std::string defuse_marker_forms(std::string_view in);

// True when host (lowercase ASCII) is an exact entry or a subdomain of a "*.x" entry.
bool host_allowed(std::string_view host, const std::vector<std::string>& allowed_domains);

}  // namespace aw
