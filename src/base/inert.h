// Text shown on a terminal or written to a log, made inert: hostile text (an issue's title, an
// agent's words, a planted file name, a refused patch path) may carry a terminal's control
// sequences (ESC [ 2 J, an OSC title change, a C1 CSI U+009B) or characters that reorder or hide
// what the reader sees (U+202E, zero-width, tag characters). inert() shows each of them as an
// escape, so the owner's terminal never obeys one and the reader sees that it was there.
//   fmt::print("refused {}\n", inert_line(path));   // one line: a newline in it is \x0a
//   std::cout << inert(summary);                    // lines kept, everything else visible
//
// The one rule. The text is read as UTF-8 (strict: no overlong forms, no surrogates, nothing past
// U+10FFFF), and what follows is replaced by an escape, everything else is kept as it is:
//   - a byte that does not start a valid UTF-8 sequence: \xNN (its value);
//   - C0 controls U+0000-001F and DEL U+007F: \xNN, except that inert() keeps \n and \t
//     (inert_line() escapes them too: its output is always one line);
//   - C1 controls U+0080-009F: \u0080 .. \u009f (some terminals take U+009B as CSI);
//   - U+2028 and U+2029 (line and paragraph separators), the interlinear annotation controls
//     U+FFF9-FFFB, and every default-ignorable code point (base/default_ignorable.h: bidi
//     embeddings, overrides, isolates and marks, zero-width characters, BOM, soft hyphen,
//     fillers, variation selectors, tag characters): \uNNNN, or \UNNNNNNNN past U+FFFF;
//     but one VS15/VS16 (U+FE0E/FE0F) right after a shown symbol (U+00A9, U+00AE,
//     U+203C-3299, U+1F000-1FAFF) is kept, as "⚠️" needs it; it reorders and hides nothing.
// Hex digits are lowercase. The output is valid UTF-8 (safe for a JSON dump), and inert() of it
// is itself (idempotent: applying it again to what a worker's half already made inert changes
// nothing). A backslash is kept, so an escape cannot be told from the same characters typed:
// this is for showing text, never for storing it (store the original).
#pragma once

#include <string>
#include <string_view>

namespace aw {

// Multi-line text: newlines and tabs kept, everything else by the rule above.
std::string inert(std::string_view text);

// One line (a path, a detail on a line of its own): newlines and tabs escaped too.
std::string inert_line(std::string_view text);

}  // namespace aw
