// The languages the map parses: each grammar's wasm file, gzipped (grammars/, packed from the
// grammar packages by scripts/pack-grammars.ts; embedded in the binary: a `type: "file"` import
// is a path, under $bunfs inside the binary), its tags query (data, in queries/), and the node
// types that name a use.
// Importing this file costs a few strings; nothing is read or compiled until a parser is asked for.
import runtimeWasm from "web-tree-sitter/web-tree-sitter.wasm" with { type: "file" };
import typescriptWasm from "./grammars/typescript.wasm.gz" with { type: "file" };
import tsxWasm from "./grammars/tsx.wasm.gz" with { type: "file" };
import javascriptWasm from "./grammars/javascript.wasm.gz" with { type: "file" };
import pythonWasm from "./grammars/python.wasm.gz" with { type: "file" };
import goWasm from "./grammars/go.wasm.gz" with { type: "file" };
import rustWasm from "./grammars/rust.wasm.gz" with { type: "file" };
import javaWasm from "./grammars/java.wasm.gz" with { type: "file" };
import cWasm from "./grammars/c.wasm.gz" with { type: "file" };
import cppWasm from "./grammars/cpp.wasm.gz" with { type: "file" };
import csharpWasm from "./grammars/csharp.wasm.gz" with { type: "file" };
import rubyWasm from "./grammars/ruby.wasm.gz" with { type: "file" };
import phpWasm from "./grammars/php.wasm.gz" with { type: "file" };
import ecmascriptTags from "./queries/ecmascript.scm" with { type: "text" };
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
import { blankMacros, blankMacrosC } from "./macros.ts";

export const RUNTIME_WASM: string = runtimeWasm;

export interface LanguageSpec {
  /** A name for messages and tests. */
  name: string;
  /** The grammar's wasm, gzipped. */
  wasm: string;
  /** Definitions: `@name` on the defined name, `@definition.KIND` on the whole definition. */
  tags: string;
  /** Leaf node types that name something; every one that is not a definition's name is a use. */
  references: string[];
  /** Nodes kept as text whose words are uses too: a C or C++ macro's body (`preproc_arg`). */
  textUses?: string[];
  /** C and C++: the text with its macros blanked, read for definitions when the file does not parse whole (macros.ts). */
  blankMacros?: (text: string) => string;
}

const TS_REFERENCES = ["identifier", "type_identifier", "property_identifier", "shorthand_property_identifier"];
const C_REFERENCES = ["identifier", "type_identifier", "field_identifier"];

const TYPESCRIPT: LanguageSpec = { name: "TypeScript", wasm: typescriptWasm, tags: `${ecmascriptTags}${typescriptTags}`, references: TS_REFERENCES };
const TSX: LanguageSpec = { name: "TSX", wasm: tsxWasm, tags: TYPESCRIPT.tags, references: TS_REFERENCES };
const JAVASCRIPT: LanguageSpec = { name: "JavaScript", wasm: javascriptWasm, tags: `${ecmascriptTags}${javascriptTags}`, references: ["identifier", "property_identifier", "shorthand_property_identifier"] };
const PYTHON: LanguageSpec = { name: "Python", wasm: pythonWasm, tags: pythonTags, references: ["identifier"] };
const GO: LanguageSpec = { name: "Go", wasm: goWasm, tags: goTags, references: ["identifier", "type_identifier", "field_identifier"] };
const RUST: LanguageSpec = { name: "Rust", wasm: rustWasm, tags: rustTags, references: ["identifier", "type_identifier", "field_identifier"] };
const JAVA: LanguageSpec = { name: "Java", wasm: javaWasm, tags: javaTags, references: ["identifier", "type_identifier"] };
const C: LanguageSpec = { name: "C", wasm: cWasm, tags: cTags, references: C_REFERENCES, textUses: ["preproc_arg"], blankMacros: blankMacrosC };
const CPP: LanguageSpec = { name: "C++", wasm: cppWasm, tags: cppTags, references: [...C_REFERENCES, "namespace_identifier"], textUses: ["preproc_arg"], blankMacros };
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
