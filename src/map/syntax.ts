// The guarded edits' syntax check for every language the map parses: the same parsers.
import { languageOf } from "./languages.ts";
import { firstProblem, loadLanguage } from "./parser.ts";

/** Whether the map parses files with this path's extension. */
export function parsesPath(path: string): boolean {
  return languageOf(path) !== undefined;
}

/**
 * What did not parse in a text, as `line N: unexpected `…`` or `line N: missing `…``, or null when
 * it parses (or the map does not parse its language).
 */
export async function parseProblem(path: string, text: string): Promise<string | null> {
  const spec = languageOf(path);
  if (!spec) return null;
  const { parser } = await loadLanguage(spec);
  const tree = parser.parse(text);
  if (!tree) return null;
  try {
    const node = firstProblem(tree.rootNode);
    if (!node) return null;
    const line = node.startPosition.row + 1;
    if (node.isMissing) return `line ${line}: ${spec.name} expected \`${node.type}\` here`;
    const shown = node.text.split("\n")[0]!.trim().slice(0, 80);
    return `line ${line}: ${spec.name} could not parse ${shown ? `\`${shown}\`` : "this line"}`;
  } finally {
    tree.delete();
  }
}
