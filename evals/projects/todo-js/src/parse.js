/** "[x] buy milk !2" becomes { done: true, text: "buy milk", priority: 2 }; priority 3 when none is given. */
export function parseLine(line) {
  const match = /^\[( |x)\]\s+(.*?)(?:\s+!(\d))?\s*$/.exec(line);
  if (!match) return null;
  return { done: match[1] === "x", text: match[2], priority: match[3] ? Number(match[3]) : 3 };
}

/** Every line that parses, in order. */
export function parseList(text) {
  return text.split("\n").map(parseLine).filter(Boolean);
}
