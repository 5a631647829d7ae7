/** The inverse of parseLine: the priority is written only when it is not the default 3. */
export function formatItem(item) {
  const mark = item.done ? "[x]" : "[ ]";
  const priority = item.priority !== 3 ? ` !${item.priority}` : "";
  return `${mark} ${item.text}${priority}`;
}
