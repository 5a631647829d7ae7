export interface Entry {
  time: string;
  level: string;
  message: string;
}

/** "2026-11-01T10:00:00Z INFO started" becomes { time, level: "INFO", message: "started" }; null when it does not fit. */
export function parseLine(line: string): Entry | null {
  const match = /^(\S+)\s+([A-Z]+)\s+(.*)$/.exec(line.trim());
  if (!match) return null;
  return { time: match[1]!, level: match[2]!, message: match[3]! };
}

export function parseLog(text: string): Entry[] {
  return text.split("\n").flatMap((line) => parseLine(line) ?? []);
}
