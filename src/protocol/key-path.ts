/** Config keys named by their path (`components.loose_edits`, `model_options.max_tokens`): what profiles and tune speak in. */

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

/** The value at a key path, or undefined when any step of it is missing. */
export function valueAt(object: unknown, path: string): unknown {
  let at: unknown = object;
  for (const key of path.split(".")) {
    if (!isObject(at) || !(key in at)) return undefined;
    at = at[key];
  }
  return at;
}

/** A copy of `object` with `value` at the key path, the objects on the way made where missing. */
export function withValueAt(object: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const [key, ...rest] = path.split(".");
  if (rest.length === 0) return { ...object, [key!]: value };
  const under = isObject(object[key!]) ? (object[key!] as Record<string, unknown>) : {};
  return { ...object, [key!]: withValueAt(under, rest.join("."), value) };
}
