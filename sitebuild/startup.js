// What the ordinary start of a page's worker imports, found at build time in Node:
//
//   node startup.js '{"runtime": DIR, "packages": [...], "figures": [...], "stdlib": PATH,
//                     "sitePackages": PATH, "out": FILE.json}'
//
// It starts Pyodide from the runtime folder as static/worker.js's ordinary start does (the
// lock beside it, the packages a page loads), draws the figures, imports the cells' module as
// a cells' worker does, and writes the modules it imported from source: the standard
// library's (by their names inside python_stdlib.zip) and the installed packages' (by their
// paths under site-packages). sitebuild/startup.py ships bytecode for those that have none, so
// that a browser's ordinary start unmarshals code instead of compiling it.
"use strict";
const fs = require("fs");
const path = require("path");

const args = JSON.parse(process.argv[2]);

async function main() {
  const { loadPyodide } = require(path.join(args.runtime, "pyodide.js"));
  const pyodide = await loadPyodide({ indexURL: `${args.runtime}/` });
  const failures = [];
  await pyodide.loadPackage(args.packages, {
    messageCallback: () => {},
    errorCallback: (text) => failures.push(text),
  });
  if (failures.length) throw new Error(`loading the packages failed: ${failures.join("; ")}`);
  pyodide.globals.set("figure_ids", pyodide.toPy(args.figures));
  const imported = pyodide.runPython(`
import json, sys
from worker import cells, live
live.start(figure_ids)
sources = {"stdlib": set(), "site": set()}
for mod in list(sys.modules.values()):
    source = getattr(mod, "__file__", None)
    if not (isinstance(source, str) and source.endswith(".py")):
        continue  # built in, an extension module, or imported from bytecode (a .pyc)
    for where, prefix in (("stdlib", "${args.stdlib}/"), ("site", "${args.sitePackages}")):
        if source.startswith(prefix):
            sources[where].add(source[len(prefix):])
del figure_ids
json.dumps({where: sorted(files) for where, files in sources.items()})
`);
  fs.writeFileSync(args.out, imported);
}

main().then(
  () => process.exit(0),
  (err) => {
    const why = err && err.message ? err.message : err;
    console.error(`listing the ordinary start's imports failed: ${why}`);
    process.exit(1);
  },
);
