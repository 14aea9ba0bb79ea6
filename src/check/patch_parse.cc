// A recursive-descent reader over the lines of the patch. Each function consumes exactly the
// lines git would print for its part and refuses anything else: the parser never guesses.
#include "check/patch_parse.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>

namespace aw {
namespace {

constexpr std::string_view kEmptyBlob1 = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";
constexpr std::string_view kEmptyBlob256 =
    "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813";
constexpr std::string_view kNoNewline = "\\ No newline at end of file";

struct ParseError {
  std::string rule;
  int line;
  std::string detail;
  std::string path;
};

class Lines {
 public:
  explicit Lines(std::string_view text) : text_(text) {}
  bool done() const { return pos_ >= text_.size(); }
  // The current line without its '\n'. Only valid when !done().
  std::string_view peek() const {
    size_t end = text_.find('\n', pos_);
    if (end == std::string_view::npos) end = text_.size();
    return text_.substr(pos_, end - pos_);
  }
  void next() {
    size_t end = text_.find('\n', pos_);
    pos_ = end == std::string_view::npos ? text_.size() : end + 1;
    ++line_;
  }
  int line() const { return line_; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
};

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

bool is_hex(std::string_view s) {
  if (s.size() != 40 && s.size() != 64) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

bool all_zero(std::string_view s) {
  return s.find_first_not_of('0') == std::string_view::npos;
}

std::optional<unsigned> parse_mode(std::string_view s) {
  if (s.size() != 6) return std::nullopt;
  unsigned v = 0;
  for (char c : s) {
    if (c < '0' || c > '7') return std::nullopt;
    v = v * 8 + unsigned(c - '0');
  }
  return v;
}

// Git's quote_c_style marks names that need quoting; the quoted form is what we must see then.
bool needs_quote(std::string_view s) {
  for (unsigned char c : s)
    if (c < 0x20 || c == '"' || c == '\\' || c >= 0x7f) return true;
  return false;
}

// Parse one (possibly quoted) name at the start of s; returns the rest after it.
std::optional<std::string_view> take_quoted(std::string_view s, std::string& out) {
  if (s.empty() || s[0] != '"') return std::nullopt;
  size_t i = 1;
  while (i < s.size() && s[i] != '"') i += (s[i] == '\\') ? 2 : 1;
  if (i >= s.size()) return std::nullopt;
  if (!unquote_c(s.substr(0, i + 1), out)) return std::nullopt;
  return s.substr(i + 1);
}

// The printed name of side `prefix` ("a/" or "b/") of path, as git prints it in headers.
std::string printed(std::string_view prefix, const std::string& path, bool quoted) {
  std::string s = std::string(prefix) + path;
  if (!quoted) return s;
  std::string q = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '\a':
        q += "\\a";
        break;
      case '\b':
        q += "\\b";
        break;
      case '\t':
        q += "\\t";
        break;
      case '\n':
        q += "\\n";
        break;
      case '\v':
        q += "\\v";
        break;
      case '\f':
        q += "\\f";
        break;
      case '\r':
        q += "\\r";
        break;
      case '"':
        q += "\\\"";
        break;
      case '\\':
        q += "\\\\";
        break;
      default:
        if (c < 0x20 || c >= 0x7f)
          q += fmt::format("\\{:03o}", c);
        else
          q += char(c);
    }
  }
  return q + "\"";
}

class Parser {
 public:
  explicit Parser(std::string_view text) : in_(text) {}

  ParsedPatch run() {
    ParsedPatch out;
    while (!in_.done()) {
      std::string_view l = in_.peek();
      if (!starts_with(l, "diff --git ")) {
        bool first = out.files.empty();
        fail_at(first ? "patch.syntax" : "patch.garbage",
                first ? "the patch must begin with a `diff --git` header"
                      : "a line outside any file section (trailing garbage or a second patch)");
        break;
      }
      FileRecord f;
      if (!file(f)) {
        out.files.push_back(std::move(f));
        break;
      }
      out.files.push_back(std::move(f));
    }
    if (err_)
      out.refusals.push_back(Refusal{err_->rule, err_->path, err_->line, err_->detail, "patch"});
    return out;
  }

 private:
  Lines in_;
  std::optional<ParseError> err_;
  std::string cur_path_;

  bool fail_at(std::string rule, std::string detail) {
    // A header line ending in CR is a CRLF trick (content lines may end in CR; headers never).
    if (!in_.done() && rule != "hunk.count" && !in_.peek().empty() && in_.peek().back() == '\r') {
      rule = "patch.crlf";
      detail = "a header line ends with a carriage return";
    }
    if (!err_) err_ = ParseError{std::move(rule), in_.line(), std::move(detail), cur_path_};
    return false;
  }

  bool git_header(FileRecord& f, bool& quoted) {
    std::string_view rest = in_.peek().substr(11);
    if (!rest.empty() && rest[0] == '"') {
      std::string a, b;
      auto after = take_quoted(rest, a);
      if (!after || after->empty() || (*after)[0] != ' ')
        return fail_at("header.malformed", "unreadable quoted name in the `diff --git` header");
      auto end = take_quoted(after->substr(1), b);
      if (!end || !end->empty())
        return fail_at("header.malformed", "unreadable quoted name in the `diff --git` header");
      if (!starts_with(a, "a/") || !starts_with(b, "b/"))
        return fail_at("header.malformed", "header names must start with a/ and b/");
      if (a.substr(2) != b.substr(2)) {
        cur_path_ = b.substr(2);
        return fail_at("file.rename", "old and new names differ (rename or copy)");
      }
      f.path = a.substr(2);
      quoted = true;
    } else {
      // Unquoted: "a/P b/P" with both names equal, so P's length is fixed by the line's.
      size_t n = rest.size() >= 5 ? (rest.size() - 5) / 2 : 0;
      bool shape = rest.size() >= 7 && (rest.size() - 5) % 2 == 0 && starts_with(rest, "a/") &&
                   rest.substr(2 + n, 3) == " b/";
      if (!shape) {
        // Two different names split by one " b/" is a rename (or copy) header.
        size_t sep = rest.find(" b/");
        if (starts_with(rest, "a/") && sep != std::string_view::npos &&
            rest.find(" b/", sep + 1) == std::string_view::npos) {
          cur_path_ = std::string(rest.substr(sep + 3));
          return fail_at("file.rename", "old and new names differ (rename or copy)");
        }
        return fail_at("header.malformed", "the `diff --git` header does not name one path twice");
      }
      std::string_view a = rest.substr(2, n), b = rest.substr(5 + n);
      if (a != b) {
        cur_path_ = std::string(b);
        return fail_at("file.rename", "old and new names differ (rename or copy)");
      }
      f.path = std::string(a);
      quoted = false;
    }
    cur_path_ = f.path;
    // A name git would have quoted but did not (or the reverse) was not printed by git.
    if (needs_quote(f.path) != quoted)
      return fail_at("header.malformed", "the name's quoting is not what git prints");
    in_.next();
    return true;
  }

  // Extended header lines, in the order git prints them.
  bool extended(FileRecord& f, std::string& old_hash, std::string& new_hash, bool& has_index) {
    auto mode_line = [&](std::string_view prefix, unsigned& dst) -> bool {
      auto m = parse_mode(in_.peek().substr(prefix.size()));
      if (!m) return fail_at("mode.invalid", "unreadable file mode");
      dst = *m;
      in_.next();
      return true;
    };
    if (in_.done()) return fail_at("header.malformed", "the file header ends early");
    std::string_view l = in_.peek();
    for (auto bad : {"rename from ", "rename to ", "copy from ", "copy to ", "similarity index ",
                     "dissimilarity index "}) {
      if (starts_with(l, bad)) {
        bool copy = starts_with(l, "copy");
        (copy ? f.copied : f.renamed) = true;
        return fail_at(copy ? "file.copy" : "file.rename",
                       copy ? "copies are not allowed" : "renames are not allowed");
      }
    }
    if (starts_with(l, "old mode ")) {
      if (!mode_line("old mode ", f.old_mode)) return false;
      if (in_.done() || !starts_with(in_.peek(), "new mode "))
        return fail_at("header.malformed", "`old mode` without `new mode`");
      if (!mode_line("new mode ", f.new_mode)) return false;
      f.mode_changed = true;
    } else if (starts_with(l, "new file mode ")) {
      if (!mode_line("new file mode ", f.new_mode)) return false;
      f.change = FileChange::added;
    } else if (starts_with(l, "deleted file mode ")) {
      if (!mode_line("deleted file mode ", f.old_mode)) return false;
      f.change = FileChange::deleted;
    }
    if (in_.done() || !starts_with(in_.peek(), "index ")) {
      if (f.mode_changed) return true;  // a mode-only change has no index line
      return fail_at("header.malformed", "missing `index` line");
    }
    return index_line(f, old_hash, new_hash, has_index);
  }

  bool index_line(FileRecord& f, std::string& old_hash, std::string& new_hash, bool& has_index) {
    std::string_view l = in_.peek().substr(6);
    size_t dots = l.find("..");
    if (dots == std::string_view::npos) return fail_at("header.index", "malformed `index` line");
    old_hash = std::string(l.substr(0, dots));
    std::string_view after = l.substr(dots + 2);
    size_t sp = after.find(' ');
    new_hash = std::string(after.substr(0, sp));
    if (!is_hex(old_hash) || !is_hex(new_hash) || old_hash.size() != new_hash.size())
      return fail_at("header.index", "`index` must carry two full object names");
    bool plain = f.change == FileChange::modified && !f.mode_changed;
    if (plain) {
      if (sp == std::string_view::npos)
        return fail_at("header.mode_missing", "the `index` line does not state the file mode");
      auto m = parse_mode(after.substr(sp + 1));
      if (!m) return fail_at("mode.invalid", "unreadable file mode on the `index` line");
      f.old_mode = f.new_mode = *m;
    } else if (sp != std::string_view::npos) {
      return fail_at("header.index", "unexpected mode on the `index` line");
    }
    bool zero_old = all_zero(old_hash), zero_new = all_zero(new_hash);
    if (zero_old != (f.change == FileChange::added) ||
        zero_new != (f.change == FileChange::deleted))
      return fail_at("header.index", "object names contradict the added/deleted header");
    if (old_hash == new_hash) return fail_at("header.index", "`index` shows no change");
    has_index = true;
    in_.next();
    return true;
  }

  bool names(const FileRecord& f, bool quoted) {
    bool space = f.path.find(' ') != std::string::npos;
    std::string a = f.change == FileChange::added
                        ? "/dev/null"
                        : printed("a/", f.path, quoted) + (space ? "\t" : "");
    std::string b = f.change == FileChange::deleted
                        ? "/dev/null"
                        : printed("b/", f.path, quoted) + (space ? "\t" : "");
    if (in_.peek() != "--- " + a)
      return fail_at("header.mismatch", "the `---` line does not name the header's file");
    in_.next();
    if (in_.done() || in_.peek() != "+++ " + b)
      return fail_at("header.mismatch", "the `+++` line does not name the header's file");
    in_.next();
    return true;
  }

  static bool number(std::string_view& s, unsigned long& v) {
    size_t i = 0;
    v = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (i > 0 && s[0] == '0') return false;  // git never prints leading zeros
      v = v * 10 + unsigned(s[i] - '0');
      if (v > 100000000) return false;
      ++i;
    }
    if (i == 0) return false;
    s.remove_prefix(i);
    return true;
  }

  static bool range(std::string_view& s, char sign, unsigned long& start, unsigned long& count) {
    if (s.empty() || s[0] != sign) return false;
    s.remove_prefix(1);
    if (!number(s, start)) return false;
    count = 1;
    if (!s.empty() && s[0] == ',') {
      s.remove_prefix(1);
      if (!number(s, count)) return false;
    }
    return true;
  }

  bool hunks(FileRecord& f) {
    unsigned long next_old = 0;  // first old line the next hunk may touch
    bool first = true;
    while (!in_.done() && starts_with(in_.peek(), "@@")) {
      std::string_view h = in_.peek();
      unsigned long os, oc, ns, nc;
      std::string_view s = h.substr(2);
      if (!starts_with(s, " ") || (s.remove_prefix(1), !range(s, '-', os, oc)) ||
          !starts_with(s, " ") || (s.remove_prefix(1), !range(s, '+', ns, nc)) ||
          !starts_with(s, " @@") || (s.size() > 3 && s[3] != ' '))
        return fail_at("hunk.header", "malformed hunk header");
      if ((os == 0 && oc != 0) || (ns == 0 && nc != 0))
        return fail_at("hunk.header", "a hunk range starting at line 0 must be empty");
      if ((f.change == FileChange::added && (os != 0 || oc != 0 || !first)) ||
          (f.change == FileChange::deleted && (ns != 0 || nc != 0 || !first)))
        return fail_at("hunk.header", "a new or deleted file must be one whole-file hunk");
      if (oc + nc == 0) return fail_at("hunk.header", "an empty hunk");
      if (!first && os < next_old)
        return fail_at("hunk.order", "hunks overlap or are out of order");
      next_old = os + oc;
      first = false;
      in_.next();
      if (!hunk_body(f, oc, nc)) return false;
      if (!in_.done() && (starts_with(in_.peek(), "--- ") || starts_with(in_.peek(), "+++ ")))
        return fail_at("patch.garbage", "a second patch's header after a complete hunk");
      if (!in_.done() && !in_.peek().empty() &&
          std::string_view(" +-").find(in_.peek()[0]) != std::string_view::npos)
        return fail_at("hunk.count", "more hunk lines than its header counts");
    }
    if (first) return fail_at("hunk.header", "a text change without any hunk");
    return true;
  }

  bool hunk_body(FileRecord& f, unsigned long oc, unsigned long nc) {
    bool last_was_content = false;
    while (oc > 0 || nc > 0) {
      if (in_.done()) return fail_at("hunk.count", "the patch ends inside a hunk");
      std::string_view l = in_.peek();
      char c = l.empty() ? '\0' : l[0];
      if (c == ' ' && oc > 0 && nc > 0) {
        --oc, --nc;
      } else if (c == '-' && oc > 0) {
        --oc, ++f.removed;
      } else if (c == '+' && nc > 0) {
        --nc, ++f.added;
      } else if (l == kNoNewline && last_was_content) {
        in_.next();
        last_was_content = false;
        continue;
      } else {
        return fail_at("hunk.count", "the hunk's lines do not match the counts in its header");
      }
      last_was_content = true;
      in_.next();
    }
    if (!in_.done() && in_.peek() == kNoNewline) in_.next();
    return true;
  }

  static bool base85_line(std::string_view l) {
    static constexpr std::string_view alphabet =
        "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";
    if (l.size() < 6) return false;
    char c = l[0];
    size_t n = (c >= 'A' && c <= 'Z')   ? size_t(c - 'A' + 1)
               : (c >= 'a' && c <= 'z') ? size_t(c - 'a' + 27)
                                        : 0;
    if (n == 0 || l.size() - 1 != (n + 3) / 4 * 5) return false;
    return l.substr(1).find_first_not_of(alphabet) == std::string_view::npos;
  }

  bool binary_block() {
    std::string_view l = in_.peek();
    std::string_view num;
    if (starts_with(l, "literal "))
      num = l.substr(8);
    else if (starts_with(l, "delta "))
      num = l.substr(6);
    else
      return fail_at("binary.malformed", "expected `literal N` or `delta N`");
    unsigned long v;
    if (!number(num, v) || !num.empty()) return fail_at("binary.malformed", "bad binary size");
    in_.next();
    int lines = 0;
    while (!in_.done() && !in_.peek().empty()) {
      if (!base85_line(in_.peek())) return fail_at("binary.malformed", "bad base85 line");
      in_.next();
      ++lines;
    }
    if (in_.done() || lines == 0) return fail_at("binary.malformed", "truncated binary patch");
    in_.next();  // the blank line that ends the block
    return true;
  }

  bool body(FileRecord& f, bool quoted, const std::string& old_hash, const std::string& new_hash,
            bool has_index) {
    if (in_.done() || starts_with(in_.peek(), "diff --git ")) {
      // No body: an empty file added or deleted, or a mode-only change.
      bool ok = f.mode_changed && !has_index;
      if (f.change == FileChange::added) ok = new_hash == kEmptyBlob1 || new_hash == kEmptyBlob256;
      if (f.change == FileChange::deleted)
        ok = old_hash == kEmptyBlob1 || old_hash == kEmptyBlob256;
      return ok ? true : fail_at("header.malformed", "a changed file without any hunk");
    }
    std::string_view l = in_.peek();
    if (starts_with(l, "Binary files ")) {
      std::string a = f.change == FileChange::added ? "/dev/null" : printed("a/", f.path, quoted);
      std::string b = f.change == FileChange::deleted ? "/dev/null" : printed("b/", f.path, quoted);
      if (l != "Binary files " + a + " and " + b + " differ")
        return fail_at("header.mismatch", "the `Binary files` line does not name the file");
      f.binary = true;
      in_.next();
      return true;
    }
    if (l == "GIT binary patch") {
      f.binary = f.binary_data = true;
      in_.next();
      if (in_.done() || !binary_block())
        return fail_at("binary.malformed", "truncated binary patch");
      if (in_.done() || !binary_block())
        return fail_at("binary.malformed", "missing reverse binary");
      return true;
    }
    if (starts_with(l, "--- ")) return names(f, quoted) && hunks(f);
    return fail_at("header.malformed", "an unknown line in the file header");
  }

  bool file(FileRecord& f) {
    f.line = in_.line();
    cur_path_.clear();
    bool quoted = false;
    if (!git_header(f, quoted)) return false;
    std::string old_hash, new_hash;
    bool has_index = false;
    if (!extended(f, old_hash, new_hash, has_index)) return false;
    return body(f, quoted, old_hash, new_hash, has_index);
  }
};

}  // namespace

bool unquote_c(std::string_view q, std::string& out) {
  out.clear();
  if (q.size() < 2 || q.front() != '"' || q.back() != '"') return false;
  q = q.substr(1, q.size() - 2);
  for (size_t i = 0; i < q.size(); ++i) {
    char c = q[i];
    if (c == '"') return false;
    if (c != '\\') {
      out += c;
      continue;
    }
    if (++i >= q.size()) return false;
    switch (q[i]) {
      case 'a':
        out += '\a';
        break;
      case 'b':
        out += '\b';
        break;
      case 't':
        out += '\t';
        break;
      case 'n':
        out += '\n';
        break;
      case 'v':
        out += '\v';
        break;
      case 'f':
        out += '\f';
        break;
      case 'r':
        out += '\r';
        break;
      case '"':
        out += '"';
        break;
      case '\\':
        out += '\\';
        break;
      default: {
        if (i + 2 >= q.size()) return false;
        unsigned v = 0;
        for (int k = 0; k < 3; ++k) {
          char d = q[i + k];
          if (d < '0' || d > '7') return false;
          v = v * 8 + unsigned(d - '0');
        }
        if (v > 0377) return false;
        out += char(v);
        i += 2;
      }
    }
  }
  return true;
}

ParsedPatch parse_patch(std::string_view patch) {
  ParsedPatch out;
  // Whole-text refusals first: they make the line structure itself untrustworthy.
  if (size_t nul = patch.find('\0'); nul != std::string_view::npos) {
    int line = 1 + int(std::count(patch.begin(), patch.begin() + long(nul), '\n'));
    out.refusals.push_back({"patch.nul", "", line, "the patch contains a NUL byte", "patch"});
    return out;
  }
  if (!patch.empty() && patch.back() != '\n') {
    int line = 1 + int(std::count(patch.begin(), patch.end(), '\n'));
    out.refusals.push_back(
        {"patch.syntax", "", line, "the patch does not end with a newline", "patch"});
    return out;
  }
  out = Parser(patch).run();
  return out;
}

}  // namespace aw
