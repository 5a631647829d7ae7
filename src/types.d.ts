declare module "*.md" {
  const text: string;
  export default text;
}

declare module "*.lock" {
  const text: string;
  export default text;
}
