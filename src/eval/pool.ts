/**
 * Runs `work` on every item with at most `jobs` at once, starting them in order; `done` hears
 * each result as it lands. The results come back in the items' order, whatever order they finish
 * in, so what a caller keeps does not depend on `jobs`. After `stop` the rest never start.
 */
export async function inParallel<T, R>(
  items: readonly T[],
  jobs: number,
  work: (item: T, index: number) => Promise<R>,
  done: (result: R, index: number) => void = () => {},
  stop?: AbortSignal,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    // Once stopped, no item starts; those under way end as `work` lets them.
    while (next < items.length && !stop?.aborted) {
      const index = next++;
      results[index] = await work(items[index]!, index);
      done(results[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, items.length)) }, worker));
  return results;
}
