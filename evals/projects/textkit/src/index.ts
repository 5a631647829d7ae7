export { words } from "./words.ts";
export { slugify } from "./slug.ts";
export { capitalize, titleCase } from "./title.ts";
export { truncate } from "./truncate.ts";
export { wrap } from "./wrap.ts";
