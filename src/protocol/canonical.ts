/** JSON with object keys sorted at every depth, so equal arguments give equal text. */
export function canonicalJson(value: unknown): string {
  return jsonText(value, true);
}

/** One array or object being written: its items (or its keys, for an object) and how far along it is. */
interface Open {
  container: unknown[] | Record<string, unknown>;
  keys: string[] | null;
  next: number;
}

/**
 * What JSON.stringify writes, built with a stack of its own instead of recursion: a value from a
 * model may be nested 200,000 levels deep, where JSON.stringify overflows the call stack.
 * `sortKeys`: object keys in sorted order.
 */
export function jsonText(value: unknown, sortKeys = false): string {
  const out: string[] = [];
  const stack: Open[] = [];
  const write = (item: unknown): void => {
    const plain = jsonValue(item);
    if (Array.isArray(plain)) {
      out.push("[");
      stack.push({ container: plain, keys: null, next: 0 });
    } else if (plain !== null && typeof plain === "object") {
      const record = plain as Record<string, unknown>;
      const keys = Object.keys(record).filter((key) => jsonValue(record[key]) !== undefined);
      out.push("{");
      stack.push({ container: record, keys: sortKeys ? keys.sort() : keys, next: 0 });
    } else {
      out.push(JSON.stringify(plain) ?? "null");
    }
  };
  write(value);
  while (stack.length) {
    const open = stack.at(-1)!;
    const length = open.keys ? open.keys.length : (open.container as unknown[]).length;
    if (open.next === length) {
      out.push(open.keys ? "}" : "]");
      stack.pop();
      continue;
    }
    const index = open.next++;
    if (index > 0) out.push(",");
    if (open.keys) {
      const key = open.keys[index]!;
      out.push(JSON.stringify(key), ":");
      write((open.container as Record<string, unknown>)[key]);
    } else {
      write((open.container as unknown[])[index]);
    }
  }
  return out.join("");
}

/** A value as JSON sees it: toJSON applied; undefined for what JSON leaves out (undefined, functions, symbols). */
function jsonValue(value: unknown): unknown {
  const converted = value !== null && typeof value === "object" && typeof (value as { toJSON?: unknown }).toJSON === "function" ? (value as { toJSON(): unknown }).toJSON() : value;
  return converted === undefined || typeof converted === "function" || typeof converted === "symbol" ? undefined : converted;
}

/** A model's raw arguments as a value: JSON text is parsed, anything else is taken as it is. */
export function decodeArguments(raw: unknown): unknown {
  if (typeof raw !== "string") return raw;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}
