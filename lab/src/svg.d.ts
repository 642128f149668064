// svg.d.ts: SVG files import as their source text (webpack's asset/source).
declare module '*.svg' {
  const source: string;
  export default source;
}
