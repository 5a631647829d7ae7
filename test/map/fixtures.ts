// One small file per language the map parses: each defines `Widget` (a class, struct or module)
// and `render_all`/`renderAll` (a function), and calls the function once from elsewhere, the
// scoped `Widget::make(` forms of Rust and C++ included.
export interface LanguageCase {
  language: string;
  path: string;
  text: string;
  /** Definitions expected: name → line of the name. */
  definitions: Record<string, number>;
  /** A name used, and a line it is used on. */
  use: { name: string; line: number };
  /** The file with one syntax error, and the line the check names. */
  broken: { text: string; line: number };
}

export const CASES: LanguageCase[] = [
  {
    language: "TypeScript",
    path: "src/widget.ts",
    text: "export interface Shape {\n  area(): number;\n}\nexport class Widget {\n  make(): Widget {\n    return new Widget();\n  }\n}\nexport function renderAll(items: Widget[]): void {\n  items.forEach((item) => item.make());\n}\nexport const LIMIT = 3;\nrenderAll([]);\n",
    definitions: { Shape: 1, Widget: 4, make: 5, renderAll: 9, LIMIT: 12 },
    use: { name: "renderAll", line: 13 },
    broken: { text: "export function ok(): void {}\nexport function bad( {\n  return 1;\n}\n", line: 3 },
  },
  {
    language: "TSX",
    path: "src/view.tsx",
    text: "export function View(props: { n: number }) {\n  return <div>{props.n}</div>;\n}\nconst x = <View n={1} />;\n",
    definitions: { View: 1 },
    use: { name: "View", line: 4 },
    broken: { text: "export function View() {\n  return <div>;\n}\n", line: 2 },
  },
  {
    language: "JavaScript",
    path: "lib/widget.js",
    text: "class Widget {\n  make() {\n    return 1;\n  }\n}\nfunction renderAll(items) {\n  return items.map((i) => i.make());\n}\nrenderAll([]);\n",
    definitions: { Widget: 1, make: 2, renderAll: 6 },
    use: { name: "renderAll", line: 9 },
    broken: { text: "function f() {\n  return [1, 2;\n}\n", line: 2 },
  },
  {
    language: "Python",
    path: "pkg/widget.py",
    text: "class Widget:\n    def make(self):\n        return Widget()\n\n\ndef render_all(items):\n    return [item.make() for item in items]\n\n\nrender_all([])\n",
    definitions: { Widget: 1, make: 2, render_all: 6 },
    use: { name: "render_all", line: 10 },
    broken: { text: "def ok():\n    return 1\n\ndef bad(:\n    return 2\n", line: 4 },
  },
  {
    language: "Go",
    path: "widget/widget.go",
    text: "package widget\n\ntype Widget struct {\n\tN int\n}\n\nfunc (w *Widget) Make() int {\n\treturn w.N\n}\n\nfunc RenderAll(items []Widget) int {\n\treturn items[0].Make()\n}\n\nvar _ = RenderAll(nil)\n",
    definitions: { Widget: 3, Make: 7, RenderAll: 11 },
    use: { name: "RenderAll", line: 15 },
    broken: { text: "package widget\n\nfunc Ok() int {\n\treturn 1 +\n}\n", line: 4 },
  },
  {
    language: "Rust",
    path: "src/widget.rs",
    text: "pub struct Widget {\n    n: i32,\n}\n\nimpl Widget {\n    pub fn make() -> Widget {\n        Widget { n: 1 }\n    }\n}\n\npub fn render_all() -> Widget {\n    Widget::make()\n}\n",
    definitions: { Widget: 1, make: 6, render_all: 11 },
    use: { name: "make", line: 12 },
    broken: { text: "fn ok() -> i32 {\n    1\n}\n\nfn bad() -> i32 {\n    let x = ;\n    x\n}\n", line: 6 },
  },
  {
    language: "Java",
    path: "src/Widget.java",
    text: "public class Widget {\n    public static Widget make() {\n        return new Widget();\n    }\n\n    public static void renderAll() {\n        Widget.make();\n    }\n}\n",
    definitions: { Widget: 1, make: 2, renderAll: 6 },
    use: { name: "make", line: 7 },
    broken: { text: "public class Widget {\n    void f() {\n        int x = ;\n    }\n}\n", line: 3 },
  },
  {
    language: "C",
    path: "src/widget.c",
    text: "struct widget {\n  int n;\n};\n\ntypedef struct widget Widget;\n\nint render_all(Widget *w) {\n  return w->n;\n}\n\nint main(void) {\n  return render_all(0);\n}\n",
    definitions: { widget: 1, Widget: 5, render_all: 7, main: 11 },
    use: { name: "render_all", line: 12 },
    broken: { text: "int ok(void) {\n  return 1;\n}\n\nint bad(void) {\n  return (1 + ;\n}\n", line: 6 },
  },
  {
    language: "C++",
    path: "src/widget.cpp",
    text: "class Widget {\n public:\n  static Widget make();\n};\n\nWidget Widget::make() {\n  return Widget();\n}\n\nint render_all() {\n  Widget::make();\n  return 0;\n}\n",
    definitions: { Widget: 1, make: 6, render_all: 10 },
    use: { name: "make", line: 11 },
    broken: { text: "int ok() {\n  return 1;\n}\n\nint bad() {\n  return (1 + ;\n}\n", line: 6 },
  },
  {
    language: "C#",
    path: "src/Widget.cs",
    text: "public class Widget\n{\n    public static Widget Make() { return new Widget(); }\n\n    public static void RenderAll()\n    {\n        Widget.Make();\n    }\n}\n",
    definitions: { Widget: 1, Make: 3, RenderAll: 5 },
    use: { name: "Make", line: 7 },
    broken: { text: "public class Widget\n{\n    void F()\n    {\n        int x = ;\n    }\n}\n", line: 5 },
  },
  {
    language: "Ruby",
    path: "lib/widget.rb",
    text: "module Shapes\n  class Widget\n    def make\n      Widget.new\n    end\n  end\nend\n\ndef render_all(items)\n  items.map(&:make)\nend\n\nrender_all([])\n",
    definitions: { Shapes: 1, Widget: 2, make: 3, render_all: 9 },
    use: { name: "render_all", line: 13 },
    broken: { text: "def ok\n  1\nend\n\ndef bad(\n  [1, 2\nend\n", line: 5 },
  },
  {
    language: "PHP",
    path: "src/Widget.php",
    text: "<?php\nclass Widget\n{\n    public static function make(): Widget\n    {\n        return new Widget();\n    }\n}\n\nfunction render_all(): Widget\n{\n    return Widget::make();\n}\n\nrender_all();\n",
    definitions: { Widget: 2, make: 4, render_all: 10 },
    use: { name: "render_all", line: 15 },
    broken: { text: "<?php\nfunction ok() {\n    return 1;\n}\n\nfunction bad() {\n    $x = ;\n}\n", line: 7 },
  },
];
