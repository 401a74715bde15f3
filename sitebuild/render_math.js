// Typeset TeX with KaTeX at build time: reads [[tex, displayMode], ...] as JSON on stdin,
// writes the rendered HTML strings as a JSON array on stdout. Usage: node render_math.js KATEX_JS
const katex = require(process.argv[2]);
let input = "";
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  const out = JSON.parse(input).map(([tex, displayMode]) =>
    katex.renderToString(tex, { displayMode, throwOnError: true, output: "htmlAndMathml" })
  );
  process.stdout.write(JSON.stringify(out));
});
