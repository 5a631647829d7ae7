declare module "*.md" {
  const text: string;
  export default text;
}

declare module "*.lock" {
  const text: string;
  export default text;
}

/** A tree-sitter grammar or runtime, imported `with { type: "file" }`: its path (`$bunfs/…` in the binary). */
declare module "*.wasm" {
  const path: string;
  export default path;
}

/** A gzipped tree-sitter grammar, imported `with { type: "file" }`: its path. */
declare module "*.wasm.gz" {
  const path: string;
  export default path;
}

/** A tree-sitter query, imported `with { type: "text" }`. */
declare module "*.scm" {
  const text: string;
  export default text;
}

/** tune's packed battery (src/eval/battery.json.gz), imported `with { type: "file" }`: its path. */
declare module "*.json.gz" {
  const path: string;
  export default path;
}
