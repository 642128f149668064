// svg.d.ts: SVG files import as their source text (the extension builder's rule for .svg).
declare module '*.svg' {
  const source: string;
  export default source;
}
