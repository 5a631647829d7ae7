import { expect, test } from "bun:test";
import { layout, NARROW_WIDTH, type Layout, type Rect } from "../../src/tui/layout.ts";

const rects = (l: Layout) => Object.values(l).filter((rect): rect is Rect => rect !== null);

function overlaps(a: Rect, b: Rect): boolean {
  return a.left < b.left + b.width && b.left < a.left + a.width && a.top < b.top + b.height && b.top < a.top + a.height;
}

test.each([
  [160, 45],
  [120, 40],
  [100, 30],
  [80, 24],
  [60, 20],
  [NARROW_WIDTH, 24],
])("%i×%i: panes tile the screen without overlapping or leaving it", (width, height) => {
  const l = layout(width, height, 3);
  const all = rects(l).filter((rect) => rect.height > 0);
  for (const rect of all) {
    expect(rect.left + rect.width).toBeLessThanOrEqual(width);
    expect(rect.top + rect.height).toBeLessThanOrEqual(height);
  }
  for (let i = 0; i < all.length; i++) for (let j = i + 1; j < all.length; j++) expect(overlaps(all[i]!, all[j]!)).toBe(false);
  const area = all.reduce((sum, rect) => sum + rect.width * rect.height, 0);
  expect(area).toBe(width * height);
});

test("wide screens get the side column; the transcript keeps most of the width", () => {
  const l = layout(160, 45, 2);
  expect(l.meters).not.toBeNull();
  expect(l.transcript.width).toBeGreaterThan(160 / 2);
  expect(l.layers!.height).toBe(4);
  expect(l.plan!.height).toBe(7);
  expect(l.plan!.top + l.plan!.height).toBe(l.layers!.top);
  expect(l.status.top).toBe(44);
});

test("narrow screens stack the verdicts under the transcript", () => {
  const l = layout(70, 30);
  expect(l.meters).toBeNull();
  expect(l.layers).toBeNull();
  expect(l.plan).toBeNull();
  expect(l.verdicts.top).toBe(l.transcript.height);
  expect(l.verdicts.width).toBe(70);
});
