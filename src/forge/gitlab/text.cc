#include "forge/gitlab/text.h"

#include <cctype>

namespace aw {

namespace {

bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
}

// The first non-blank character of a line (spaces, tabs) is '/'.
size_t quick_action_at(std::string_view line) {
  size_t i = line.find_first_not_of(" \t");
  return i != std::string_view::npos && line[i] == '/' ? i : std::string_view::npos;
}

// The length of a GitLab reference starting at s[i] (a sigil), 0 when none starts there.
size_t reference_at(std::string_view s, size_t i) {
  char sigil = s[i];
  if (i + 1 >= s.size()) return 0;
  char next = s[i + 1];
  bool digit = std::isdigit(static_cast<unsigned char>(next));
  bool named = std::isalnum(static_cast<unsigned char>(next)) || next == '"';
  // !N, $N, &N take numbers (an image's `![`, an entity's `&lt;` are not references);
  // ~label and %milestone take names, quoted or not.
  if ((sigil == '!' || sigil == '$' || sigil == '&' || sigil == '#') && !digit) return 0;
  if ((sigil == '~' || sigil == '%') && !named) return 0;
  size_t j = i + 1;
  if (next == '"') {
    size_t close = s.find('"', i + 2);
    if (close == std::string_view::npos ||
        s.substr(i, close - i).find('\n') != std::string_view::npos)
      return 0;
    return close + 1 - i;
  }
  while (j < s.size() && (digit ? std::isdigit(static_cast<unsigned char>(s[j])) != 0
                                : word_char(s[j]) || s[j] == ':' || s[j] == '/'))
    ++j;
  while (j > i + 1 && (s[j - 1] == '.' || s[j - 1] == ':' || s[j - 1] == '/')) --j;
  return j - i;
}

// A project path right before a sigil: "grp/sub/app" in "grp/sub/app!3"; its start, or i.
size_t path_start(std::string_view s, size_t i) {
  size_t k = i;
  while (k > 0 && (word_char(s[k - 1]) || s[k - 1] == '/')) --k;
  std::string_view path = s.substr(k, i - k);
  if (path.find('/') == std::string_view::npos || path.front() == '/' || path.back() == '/')
    return i;
  if (k > 0 && (std::isalnum(static_cast<unsigned char>(s[k - 1])) || s[k - 1] == ':'))
    return i;  // part of a URL or a longer word
  return k;
}

// One line outside code: GitLab's references wrapped in <code>, inline code spans and
// existing <code> elements left as they are.
std::string wrap_references(std::string_view line) {
  std::string out;
  size_t i = 0;
  while (i < line.size()) {
    char c = line[i];
    if (c == '`') {  // an inline code span: the same run of backticks closes it
      size_t run = line.find_first_not_of('`', i);
      run = (run == std::string_view::npos ? line.size() : run) - i;
      size_t close = line.find(std::string(run, '`'), i + run);
      size_t end = close == std::string_view::npos ? i + run : close + run;
      out.append(line.substr(i, end - i));
      i = end;
      continue;
    }
    if (line.substr(i).starts_with("<code>")) {
      size_t close = line.find("</code>", i);
      size_t end = close == std::string_view::npos ? line.size() : close + 7;
      out.append(line.substr(i, end - i));
      i = end;
      continue;
    }
    // '#': only a cross-project issue (grp/app#4); GitHub's sanitizer judged a bare #N.
    if (c == '~' || c == '!' || c == '%' || c == '$' || c == '&' ||
        (c == '#' && path_start(line, i) < i)) {
      // After a letter or digit a sigil is part of a word ("50%off", "a~b"), unless a project
      // path ends there (grp/app!3): then the reference is the path and what follows.
      size_t from = path_start(line, i);
      bool in_word = i > 0 && std::isalnum(static_cast<unsigned char>(line[i - 1]));
      size_t n = in_word && from == i ? 0 : reference_at(line, i);
      if (n) {
        out.resize(out.size() - (i - from));
        out += "<code>";
        out.append(line.substr(from, i + n - from));
        out += "</code>";
        i += n;
        continue;
      }
    }
    out += c;
    ++i;
  }
  return out;
}

bool fence_line(std::string_view line, char* ch, size_t* len) {
  size_t i = line.find_first_not_of(' ');
  if (i == std::string_view::npos || i > 3) return false;
  char c = line[i];
  if (c != '`' && c != '~') return false;
  size_t run = line.find_first_not_of(c, i);
  run = (run == std::string_view::npos ? line.size() : run) - i;
  if (run < 3) return false;
  *ch = c;
  *len = run;
  return true;
}

}  // namespace

std::string gitlab_inert(std::string_view text) {
  std::string out;
  char fence = 0;
  size_t fence_len = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line =
        text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    char ch = 0;
    size_t len = 0;
    bool is_fence = fence_line(line, &ch, &len);
    bool in_code = fence != 0 || is_fence;
    if (is_fence && fence == 0) {
      fence = ch, fence_len = len;
    } else if (is_fence && ch == fence && len >= fence_len) {
      fence = 0;
    }
    std::string done = in_code ? std::string(line) : wrap_references(line);
    if (size_t at = quick_action_at(done); at != std::string::npos)
      done = done.substr(0, at) + "&#47;" + done.substr(at + 1);
    out += done;
    if (nl == std::string_view::npos) break;
    out += '\n';
    pos = nl + 1;
  }
  return out;
}

bool has_quick_action(std::string_view text) {
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    if (quick_action_at(text.substr(pos, nl == std::string_view::npos ? nl : nl - pos)) !=
        std::string_view::npos)
      return true;
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  return false;
}

}  // namespace aw
