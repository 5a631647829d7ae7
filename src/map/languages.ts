// The languages the map parses: each grammar's wasm file (embedded in the binary: a
// `type: "file"` import is a path, under $bunfs inside the binary, the package's own file when
// run from source), its tags query (data, in queries/), and the node types that name a use.
// Importing this file costs a few strings; nothing is read or compiled until a parser is asked for.
import runtimeWasm from "web-tree-sitter/web-tree-sitter.wasm" with { type: "file" };
import typescriptWasm from "tree-sitter-typescript/tree-sitter-typescript.wasm" with { type: "file" };
import tsxWasm from "tree-sitter-typescript/tree-sitter-tsx.wasm" with { type: "file" };
import javascriptWasm from "tree-sitter-javascript/tree-sitter-javascript.wasm" with { type: "file" };
import pythonWasm from "tree-sitter-python/tree-sitter-python.wasm" with { type: "file" };
import goWasm from "tree-sitter-go/tree-sitter-go.wasm" with { type: "file" };
import rustWasm from "tree-sitter-rust/tree-sitter-rust.wasm" with { type: "file" };
import javaWasm from "tree-sitter-java/tree-sitter-java.wasm" with { type: "file" };
import cWasm from "tree-sitter-c/tree-sitter-c.wasm" with { type: "file" };
import cppWasm from "tree-sitter-cpp/tree-sitter-cpp.wasm" with { type: "file" };
import csharpWasm from "tree-sitter-c-sharp/tree-sitter-c_sharp.wasm" with { type: "file" };
import rubyWasm from "tree-sitter-ruby/tree-sitter-ruby.wasm" with { type: "file" };
import phpWasm from "tree-sitter-php/tree-sitter-php.wasm" with { type: "file" };
import typescriptTags from "./queries/typescript.scm" with { type: "text" };
import javascriptTags from "./queries/javascript.scm" with { type: "text" };
import pythonTags from "./queries/python.scm" with { type: "text" };
import goTags from "./queries/go.scm" with { type: "text" };
import rustTags from "./queries/rust.scm" with { type: "text" };
import javaTags from "./queries/java.scm" with { type: "text" };
import cTags from "./queries/c.scm" with { type: "text" };
import cppTags from "./queries/cpp.scm" with { type: "text" };
import csharpTags from "./queries/csharp.scm" with { type: "text" };
import rubyTags from "./queries/ruby.scm" with { type: "text" };
import phpTags from "./queries/php.scm" with { type: "text" };

export const RUNTIME_WASM: string = runtimeWasm;

export interface LanguageSpec {
  /** A name for messages and tests. */
  name: string;
  wasm: string;
  /** Definitions: `@name` on the defined name, `@definition.KIND` on the whole definition. */
  tags: string;
  /** Leaf node types that name something; every one that is not a definition's name is a use. */
  references: string[];
}

const TS_REFERENCES = ["identifier", "type_identifier", "property_identifier", "shorthand_property_identifier"];
const C_REFERENCES = ["identifier", "type_identifier", "field_identifier"];

const TYPESCRIPT: LanguageSpec = { name: "TypeScript", wasm: typescriptWasm, tags: typescriptTags, references: TS_REFERENCES };
const TSX: LanguageSpec = { name: "TSX", wasm: tsxWasm, tags: typescriptTags, references: TS_REFERENCES };
const JAVASCRIPT: LanguageSpec = { name: "JavaScript", wasm: javascriptWasm, tags: javascriptTags, references: ["identifier", "property_identifier", "shorthand_property_identifier"] };
const PYTHON: LanguageSpec = { name: "Python", wasm: pythonWasm, tags: pythonTags, references: ["identifier"] };
const GO: LanguageSpec = { name: "Go", wasm: goWasm, tags: goTags, references: ["identifier", "type_identifier", "field_identifier"] };
const RUST: LanguageSpec = { name: "Rust", wasm: rustWasm, tags: rustTags, references: ["identifier", "type_identifier", "field_identifier"] };
const JAVA: LanguageSpec = { name: "Java", wasm: javaWasm, tags: javaTags, references: ["identifier", "type_identifier"] };
const C: LanguageSpec = { name: "C", wasm: cWasm, tags: cTags, references: C_REFERENCES };
const CPP: LanguageSpec = { name: "C++", wasm: cppWasm, tags: cppTags, references: [...C_REFERENCES, "namespace_identifier"] };
const CSHARP: LanguageSpec = { name: "C#", wasm: csharpWasm, tags: csharpTags, references: ["identifier"] };
const RUBY: LanguageSpec = { name: "Ruby", wasm: rubyWasm, tags: rubyTags, references: ["identifier", "constant"] };
const PHP: LanguageSpec = { name: "PHP", wasm: phpWasm, tags: phpTags, references: ["name"] };

/** By lower-case file extension. A `.h` file is read as C++ (a superset that parses both). */
const BY_EXTENSION: Record<string, LanguageSpec> = {
  ".ts": TYPESCRIPT,
  ".mts": TYPESCRIPT,
  ".cts": TYPESCRIPT,
  ".tsx": TSX,
  ".js": JAVASCRIPT,
  ".mjs": JAVASCRIPT,
  ".cjs": JAVASCRIPT,
  ".jsx": JAVASCRIPT,
  ".py": PYTHON,
  ".pyi": PYTHON,
  ".go": GO,
  ".rs": RUST,
  ".java": JAVA,
  ".c": C,
  ".h": CPP,
  ".cc": CPP,
  ".cpp": CPP,
  ".cxx": CPP,
  ".hh": CPP,
  ".hpp": CPP,
  ".hxx": CPP,
  ".cs": CSHARP,
  ".rb": RUBY,
  ".php": PHP,
};

/** The language of a path by its extension, or undefined for a file the map does not parse. */
export function languageOf(path: string): LanguageSpec | undefined {
  const dot = path.lastIndexOf(".");
  if (dot < 0 || dot < path.lastIndexOf("/")) return undefined;
  return BY_EXTENSION[path.slice(dot).toLowerCase()];
}

/** Every language, once each (for tests and the bench). */
export const LANGUAGES: LanguageSpec[] = [TYPESCRIPT, TSX, JAVASCRIPT, PYTHON, GO, RUST, JAVA, C, CPP, CSHARP, RUBY, PHP];
