/** The items not done yet. */
export function pending(items) {
  return items.filter((item) => !item.done);
}

/** Most urgent first (priority 1 before 2), keeping the order of equal ones. */
export function byPriority(items) {
  return [...items].sort((a, b) => a.priority - b.priority);
}
