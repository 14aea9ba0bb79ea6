// What a forge page does not show, taken out of text an agent reads: the person who admitted an
// issue saw its rendered page, so the task holds only that (issue 41, item 3). The sanitizer's
// own passes make such markup visible in what awaywork posts; here it goes, and is counted so that
// the task can say what was removed.
//   HiddenMarkup h;
//   std::string shown = strip_hidden_markup(clean_for_prompt(body), h);
//   if (h.any()) note += describe(h);  // "2 hidden HTML comments, 1 image alt text"
#pragma once

#include <string>
#include <string_view>

namespace aw {

struct HiddenMarkup {
  int comments = 0;     // <!-- ... --> (to the end of the text when a block one is not closed)
  int alt_texts = 0;    // an image's alt text: ![alt](...), ![alt][ref], <img alt="...">
  int titles = 0;       // a link's or image's title: [x](url "title"), <a title="...">
  int definitions = 0;  // reference definitions, [label]: url "title", whole
  int labels = 0;       // the label of a full reference, [text][label], when it is defined

  bool any() const { return comments + alt_texts + titles + definitions + labels > 0; }
};

// The text (markdown, already cleaned of invisible characters) without what GitHub's rendering
// hides, outside code: HTML comments, image alt text, link and image titles (markdown and the
// alt/title attributes of HTML tags), reference definitions and the labels of full references
// to them. Errs towards removing: text that might be code but is not surely code (see
// sanitize_structure.cc) counts as prose, and a reference definition is removed even where
// CommonMark would read its line as a paragraph's text.
std::string strip_hidden_markup(std::string_view text, HiddenMarkup& removed);

// "2 hidden HTML comments, 1 image alt text, 1 link title" ("" when nothing was removed).
std::string describe(const HiddenMarkup& h);

}  // namespace aw
