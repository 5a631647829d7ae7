/** Splits a version like "v1.10.0" into its parts, major first. */
export function parseVersion(text: string): Array<number | string> {
  return text.trim().replace(/^v/, "").split(".");
}

/** -1 if a is older than b, 1 if newer, 0 if they are the same version. */
export function compareVersions(a: string, b: string): number {
  const left = parseVersion(a);
  const right = parseVersion(b);
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const x = left[i] ?? 0;
    const y = right[i] ?? 0;
    if (x < y) return -1;
    if (x > y) return 1;
  }
  return 0;
}

/** Oldest first. */
export function sortVersions(versions: string[]): string[] {
  return [...versions].sort(compareVersions);
}

export function latest(versions: string[]): string | undefined {
  return sortVersions(versions).at(-1);
}
