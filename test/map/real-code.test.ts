// Definitions in real code that the map's first queries missed, found by comparing the map with
// Universal Ctags over real repositories (scripts/check-map-languages.ts): each excerpt is quoted
// from the repository and commit named above it (lines left out are marked `…` in a comment).
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { findReferences, findSymbol, type MapFile } from "../../src/map/repo-map.ts";
import { blankMacros, blankMacrosC } from "../../src/map/macros.ts";
import { languageOf } from "../../src/map/languages.ts";
import { loadLanguage } from "../../src/map/parser.ts";
import { readTags } from "../../src/map/tags.ts";

const root = mkdtempSync(join(tmpdir(), "glassbox-real-code-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function file(path: string, text: string): MapFile[] {
  const real = join(root, path);
  mkdirSync(dirname(real), { recursive: true });
  writeFileSync(real, text);
  return [{ path, real }];
}

async function linesOf(files: MapFile[], name: string): Promise<number[]> {
  return (await findSymbol(files, name)).map((hit) => hit.line);
}

// fmtlib/fmt at 60ccad5: include/fmt/base.h 495-510 and 521-531, include/fmt/os.h 222-228,
// include/fmt/format.h 298-306, test/posix-mock-test.cc 131-134.
const FMT = `FMT_BEGIN_NAMESPACE
namespace detail {
template <typename T, typename Enable = void>
struct is_contiguous : std::false_type {};
template <typename T>
struct is_contiguous<T,
                     void_t<decltype(std::declval<T&>().data()),
                            decltype(std::declval<T&>().size()),
                            decltype(std::declval<T&>().operator[](size_t()))>>
    : std::true_type {};
}  // namespace detail

// Parsing-related public API and forward declarations.
FMT_BEGIN_EXPORT

template <typename Char> class basic_string_view {
 private:
  const Char* data_;
  size_t size_;

 public:
  using value_type = Char;
  using iterator = const Char*;

  constexpr basic_string_view() noexcept : data_(nullptr), size_(0) {}
  FMT_CONSTEXPR basic_string_view(const Char* s) : data_(s) {
    if (std::is_same<Char, char>::value && !detail::is_constant_evaluated()) {
    }
  }
};
class FMT_API file {
 private:
  int fd_;  // File descriptor.

  // Constructs a file object with a given descriptor.
  explicit file(int fd) : fd_(fd) {}
};
  template <typename T, FMT_ENABLE_IF(std::is_integral<T>::value)>
  constexpr explicit operator T() const {
    return static_cast<T>(lo_);
  }

  friend constexpr auto operator==(const uint128& lhs, const uint128& rhs)
      -> bool {
    return lhs.hi_ == rhs.hi_ && lhs.lo_ == rhs.lo_;
  }
FILE* test::fdopen(int fildes, const char* mode) {
  EMULATE_EINTR(fdopen, nullptr);
  return ::FMT_POSIX(fdopen(fildes, mode));
}
`;

test("C++ behind macros (fmt): a namespace, a class and a constructor opened or marked by macros, a template's specialization, operators, a pointer-returning scoped function", async () => {
  const files = file("include/fmt/base.h", FMT);
  expect(await linesOf(files, "is_contiguous")).toEqual([4, 6]);
  expect(await linesOf(files, "basic_string_view")).toEqual([16, 25, 26]);
  expect(await linesOf(files, "file")).toEqual([31, 36]);
  expect(await linesOf(files, "operator T")).toEqual([39]);
  expect(await linesOf(files, "operator==")).toEqual([43]);
  expect(await linesOf(files, "fdopen")).toEqual([47]);
  // Macros are not definitions: neither a namespace's opening nor one spelled like a call.
  expect(await linesOf(files, "FMT_BEGIN_EXPORT")).toEqual([]);
  expect(await linesOf(files, "EMULATE_EINTR")).toEqual([]);
  // Uses are read from the text as written: the scoped call, and the macros themselves.
  expect((await findReferences(files, "is_constant_evaluated")).map((hit) => hit.line)).toEqual([27]);
  expect((await findReferences(files, "FMT_API")).map((hit) => hit.line)).toEqual([31]);
});

test("a macro used in a class, spelled like a method, is no definition (googletest, as fmt vendors it)", async () => {
  // fmtlib/fmt at 60ccad5, test/gtest/gtest/gtest.h 1864-1872.
  const files = file(
    "test/gtest/gtest/gtest.h",
    "  class DefaultValueHolderFactory : public ValueHolderFactory {\n   public:\n    DefaultValueHolderFactory() {}\n    ValueHolder* MakeNewHolder() const override { return new ValueHolder(); }\n\n   private:\n    GTEST_DISALLOW_COPY_AND_ASSIGN_(DefaultValueHolderFactory);\n  };\n",
  );
  expect(await linesOf(files, "DefaultValueHolderFactory")).toEqual([1, 3]);
  expect(await linesOf(files, "MakeNewHolder")).toEqual([4]);
  expect(await linesOf(files, "GTEST_DISALLOW_COPY_AND_ASSIGN_")).toEqual([]);
  expect((await findReferences(files, "GTEST_DISALLOW_COPY_AND_ASSIGN_")).map((hit) => hit.line)).toEqual([7]);
});

test("a test macro's body is no function named after the macro (fmt's tests)", async () => {
  // fmtlib/fmt at 60ccad5, test/base-test.cc 463-467 (its closing brace added).
  const files = file("test/base-test.cc", "TYPED_TEST(numeric_arg_test, make_and_visit) {\n  CHECK_ARG_SIMPLE(test_value<TypeParam>());\n  CHECK_ARG_SIMPLE(std::numeric_limits<TypeParam>::min());\n  CHECK_ARG_SIMPLE(std::numeric_limits<TypeParam>::max());\n}\n");
  expect(await linesOf(files, "TYPED_TEST")).toEqual([]);
  expect((await findReferences(files, "min")).map((hit) => hit.line)).toEqual([3]);
});

test("a macro's body is text to tree-sitter, and its words are uses on their own lines (fmt, cJSON)", async () => {
  // fmtlib/fmt at 60ccad5, include/fmt/base.h 398-399.
  const assert = file("include/fmt/assert.h", "#  define FMT_ASSERT(condition, message) \\\n    fmt::detail::ignore_unused((condition), (message))\n");
  expect((await findReferences(assert, "ignore_unused")).map((hit) => hit.line)).toEqual([2]);
  // The parameters are uses where the body names them, and in the parameter list.
  expect((await findReferences(assert, "message")).map((hit) => hit.line)).toEqual([1, 2]);
  // DaveGamble/cJSON at a29814f, cJSON.h 289-293 and 296: each word on its line, a name used four times on a line listed once.
  const bool = file(
    "cJSON.h",
    "#define cJSON_SetBoolValue(object, boolValue) ( \\\n    (object != NULL && ((object)->type & (cJSON_False|cJSON_True))) ? \\\n    (object)->type=((object)->type &(~(cJSON_False|cJSON_True)))|((boolValue)?cJSON_True:cJSON_False) : \\\n    cJSON_Invalid\\\n)\n\n#define cJSON_ArrayForEach(element, array) for(element = (array != NULL) ? (array)->child : NULL; element != NULL; element = element->next)\n",
  );
  expect((await findReferences(bool, "cJSON_True")).map((hit) => hit.line)).toEqual([2, 3]);
  expect((await findReferences(bool, "cJSON_Invalid")).map((hit) => hit.line)).toEqual([4]);
  expect((await findReferences(bool, "element")).map((hit) => hit.line)).toEqual([7]);
  expect((await findReferences(bool, "child")).map((hit) => hit.line)).toEqual([7]);
  // DaveGamble/cJSON at a29814f, cJSON.c 299, and 404 in a function of our own: a name in a macro's body, then in code, in line order.
  const read = file("cJSON.c", "#define can_read(buffer, size) ((buffer != NULL) && (((buffer)->offset + size) <= (buffer)->length))\nstatic void f(parse_buffer *input_buffer) {\n    input_buffer->offset += (size_t)(after_end - number_c_string);\n}\n");
  expect((await findReferences(read, "offset")).map((hit) => hit.line)).toEqual([1, 3]);
});

test("C with a calling convention between type and name (cJSON): int CJSON_CDECL main(void)", async () => {
  // DaveGamble/cJSON at a29814f, tests/parse_hex4.c 67-72.
  const files = file("tests/parse_hex4.c", "int CJSON_CDECL main(void)\n{\n    UNITY_BEGIN();\n    RUN_TEST(parse_hex4_should_parse_all_combinations);\n    return UNITY_END();\n}\n");
  expect(await findSymbol(files, "main")).toEqual([{ path: "tests/parse_hex4.c", line: 1, text: "int CJSON_CDECL main(void)" }]);
  expect((await findReferences(files, "parse_hex4_should_parse_all_combinations")).map((hit) => hit.line)).toEqual([4]);
});

test("a macro alone on its line is blanked, but not a function's type written on a line of its own (GNU style)", async () => {
  // Blanked, C would read `compute` as a type.
  const files = file("src/compute.c", "EXTERN_C_BEGIN\n\nMY_RESULT_T\ncompute(int x)\n{\n    return x;\n}\n\nEXTERN_C_END\n");
  expect(await linesOf(files, "compute")).toEqual([4]);
});

test("a file that parses whole is parsed once; one that does not, with macros, twice", async () => {
  const spec = languageOf("a.h")!;
  const { parser } = await loadLanguage(spec);
  const parse = parser.parse.bind(parser);
  let parses = 0;
  parser.parse = ((...args: Parameters<typeof parse>) => (parses++, parse(...args))) as typeof parser.parse;
  try {
    await readTags(spec, "class view {\n public:\n  FMT_CONSTEXPR view(const char* s) {}\n};\n");
    expect(parses).toBe(1);
    await readTags(spec, FMT);
    expect(parses).toBe(3);
  } finally {
    parser.parse = parse;
  }
});

test("blanking keeps every line and column, and leaves a C function's macro type alone", () => {
  const text = "FMT_BEGIN_NAMESPACE\nclass FMT_API file {\n  FMT_CONSTEXPR20 auto size() -> int {}\n};\nLARGE_INTEGER now(void) {\nint CJSON_CDECL main(void)\nMY_RESULT_T\ncompute(int x)\nstruct MY_TAG my_tag;\n";
  const cpp = blankMacros(text);
  expect(cpp.length).toBe(text.length);
  expect(cpp.split("\n").map((line) => line.trimEnd())).toEqual(["", "class         file {", "                  auto size() -> int {}", "};", "              now(void) {", "int             main(void)", "MY_RESULT_T", "compute(int x)", "struct MY_TAG my_tag;", ""]);
  // C has no constructors: a macro before `name(` is the function's type.
  expect(blankMacrosC(text).split("\n")[4]).toBe("LARGE_INTEGER now(void) {");
  expect(blankMacros("int x = 1;\n")).toBe("int x = 1;\n");
});

test("TypeScript: an interface's method signatures (zod declares its schemas' methods in interfaces)", async () => {
  // colinhacks/zod at e516c3baf, packages/zod/src/v4/classic/schemas.ts 443 and 478-481.
  const files = file(
    "packages/zod/src/v4/classic/schemas.ts",
    "export interface ZodString extends _ZodString<core.$ZodStringInternals<string>> {\n  /** @deprecated Use `z.base64()` instead. */\n  base64(params?: string | core.$ZodCheckBase64Params): this;\n  /** @deprecated Use `z.base64url()` instead. */\n  base64url(params?: string | core.$ZodCheckBase64URLParams): this;\n}\n",
  );
  expect(await findSymbol(files, "base64")).toEqual([{ path: "packages/zod/src/v4/classic/schemas.ts", line: 3, text: "base64(params?: string | core.$ZodCheckBase64Params): this;" }]);
  expect(await linesOf(files, "base64url")).toEqual([5]);
});

test("TypeScript and JavaScript: a named class expression (zod's tests)", async () => {
  // colinhacks/zod at e516c3baf, packages/zod/src/v4/classic/tests/template-literal.test.ts 211-214 (in a test), and the same in JavaScript.
  const excerpt = "  expect(() =>\n    // @ts-expect-error\n    z.templateLiteral([z.instanceof(class MyClass {})])\n  ).toThrow();\n";
  expect(await linesOf(file("packages/zod/src/v4/classic/tests/template-literal.test.ts", excerpt), "MyClass")).toEqual([3]);
  expect(await linesOf(file("test/template-literal.test.js", excerpt.replace("    // @ts-expect-error\n", "")), "MyClass")).toEqual([2]);
});

test("Go type aliases and an interface's methods (cobra)", async () => {
  // spf13/cobra at adbc881, completions.go 136-139 and 311-314.
  const files = file(
    "completions.go",
    "package cobra\n\ntype Completion = string\n\n// CompletionFunc is a function that provides completion results.\ntype CompletionFunc = func(cmd *Command, args []string, toComplete string) ([]Completion, ShellCompDirective)\n\ntype SliceValue interface {\n\t// GetSlice returns the flag value list as an array of strings.\n\tGetSlice() []string\n}\n",
  );
  expect(await linesOf(files, "Completion")).toEqual([3]);
  expect(await linesOf(files, "CompletionFunc")).toEqual([6]);
  expect(await linesOf(files, "GetSlice")).toEqual([10]);
});

test("Rust: a trait's associated type (anyhow)", async () => {
  // dtolnay/anyhow at 1dbe186, src/ptr.rs 180-187.
  const files = file("src/ptr.rs", "// Force turbofish on all calls of `.cast::<U>()`.\npub trait CastTo {\n    type Target;\n}\n\nimpl<T> CastTo for T {\n    type Target = T;\n}\n");
  expect(await linesOf(files, "Target")).toEqual([3, 7]);
});

test("Java: annotation types and their elements (javapoet)", async () => {
  // square/javapoet at b9017a9, src/test/java/com/squareup/javapoet/AnnotationSpecTest.java 34-46, in its class.
  const files = file(
    "src/test/java/com/squareup/javapoet/AnnotationSpecTest.java",
    "public final class AnnotationSpecTest {\n\n  @Retention(RetentionPolicy.RUNTIME)\n  public @interface AnnotationA {\n  }\n\n  @Retention(RetentionPolicy.RUNTIME)\n  public @interface AnnotationC {\n    String value();\n  }\n}\n",
  );
  expect(await linesOf(files, "AnnotationA")).toEqual([4]);
  expect(await linesOf(files, "AnnotationC")).toEqual([8]);
  expect(await linesOf(files, "value")).toEqual([9]);
});

test("C#: a delegate (MediatR)", async () => {
  // jbogard/MediatR at 8a64581, src/MediatR/IPipelineBehavior.cs 12.
  const files = file("src/MediatR/IPipelineBehavior.cs", "namespace MediatR;\n\npublic delegate Task<TResponse> RequestHandlerDelegate<TResponse>(CancellationToken t = default);\n");
  expect(await linesOf(files, "RequestHandlerDelegate")).toEqual([3]);
});

test("Ruby: a module named with its scope (sinatra)", async () => {
  // sinatra/sinatra at cb22afd7, test/server_test.rb 4-5 (its end added).
  const files = file("test/server_test.rb", "module Rackup::Handler\n  class Mock\n  end\nend\n");
  expect(await linesOf(files, "Handler")).toEqual([1]);
  expect(await linesOf(files, "Mock")).toEqual([2]);
});
