// C and C++ macros where tree-sitter trips on them. tree-sitter parses code before the
// preprocessor, so a file that opens a namespace with a macro (`FMT_BEGIN_NAMESPACE`), marks a
// class (`class FMT_API file {`) or a function (`FMT_CONSTEXPR20 auto size() -> size_t {`) does
// not parse, and what follows the macro is lost: a whole header's definitions, sometimes. Universal
// Ctags guesses past such names; the map blanks them (spaces, so every line and column stays where
// it was) and reads the definitions of the blanked text, for a file that did not parse whole.

/** An upper-case name with an underscore, as macros are spelled (FMT_API, Q_OBJECT), with its arguments if any. */
const MACRO = String.raw`[A-Z][A-Z0-9]*_[A-Z0-9_]*(?:\([^()\n]*\))?`;
/**
 * A line that is a macro alone: `FMT_BEGIN_NAMESPACE`, `FMT_END_EXPORT`, `Q_OBJECT`. Not one
 * above a line that opens with `name(`: that is a function's type, written on a line of its own.
 */
const ALONE = new RegExp(String.raw`^([ \t]*)(${MACRO})(?=[ \t]*$)(?![ \t]*\n[A-Za-z_]\w*[ \t]*\()`, "gm");
/**
 * Macros where a declaration starts (the line's start, after a keyword that opens one, after a
 * template's `>`), followed by a word: `FMT_EXPORT template <…>`, `friend FMT_CONSTEXPR auto
 * operator|(…)`, `FMT_CONSTEXPR typed_node(const Arg& arg) : value(arg) {}`.
 */
const LEADING = String.raw`(^[ \t]*|\b(?:friend|static|inline|constexpr|explicit|virtual|extern|template)[ \t]+|>[ \t]+)((?:${MACRO}[ \t]+)+)(?=[A-Za-z_~])`;
const LEADING_CPP = new RegExp(LEADING, "gm");
/** Between `class` and the class's name, which a base list or a body follows: `class FMT_API file {`, `struct FMT_API pipe {`. */
const TYPE_MARK = new RegExp(String.raw`(\b(?:class|struct|union)[ \t]+)((?:${MACRO}[ \t]+)+)(?=[A-Za-z_]\w*[ \t]*(?:[:{]|final\b|$))`, "gm");
/** In C, not one followed by `name(`: that macro is the function's type (`LARGE_INTEGER now(void) {`), and C has no constructors. */
const LEADING_C = new RegExp(String.raw`${LEADING}(?![A-Za-z_]\w*[ \t]*\()`, "gm");

/** A calling convention between a function's type and its name: `int CJSON_CDECL main(void)`, `cJSON * CJSON_STDCALL f(`. */
const CONVENTION = new RegExp(String.raw`((?:\b(?:void|bool|char|short|int|long|float|double|signed|unsigned|auto)\b|[*&])[ \t]*)((?:${MACRO}[ \t]+)+)(?=[A-Za-z_]\w*[ \t]*\()`, "gm");

const blank = (_: string, before: string, macros: string) => before + macros.replace(/[^\n]/g, " ");

/** A C++ text with what look like macros at those places turned to spaces; the same text when there are none. */
export function blankMacros(text: string): string {
  return text.replace(ALONE, blank).replace(LEADING_CPP, blank).replace(TYPE_MARK, blank).replace(CONVENTION, blank);
}

/** The same for C. */
export function blankMacrosC(text: string): string {
  return text.replace(ALONE, blank).replace(LEADING_C, blank).replace(TYPE_MARK, blank).replace(CONVENTION, blank);
}
