// Keep the pre-render on screen when Python goes live, instead of drawing every figure again.
//
// The worker builds the page's figures with the same Python code as the build did, so its
// document is the pre-render's in all but the models' ids (Bokeh makes new ones) and a few
// values (Panel's generated names; floats that numpy in the browser rounds differently in
// the last bit). `match` walks a figure's pre-rendered JSON and the live JSON side by side and
// returns how to turn the one into the other: each pre-render id's live id, and the live value
// of every attribute that differs. Anything else that differs (a model of another type, an
// attribute set in one and left at its default in the other, a list of another length holding
// models) is not a difference of values: `match` then returns null and the page draws the
// live document instead.
(() => {
  "use strict";

  // A serialized model: its definition {type: "object", name, id, attributes} or a reference {id}.
  const isModel = (v) => v !== null && typeof v === "object" && typeof v.id === "string";

  const isPlain = (v) => v !== null && typeof v === "object";

  function holdsModel(v) {
    if (isModel(v)) return true;
    if (!isPlain(v)) return false;
    return Object.values(v).some(holdsModel);
  }

  // Every model definition in a serialized document: id -> definition.
  function definitions(json, table = new Map()) {
    if (!isPlain(json)) return table;
    if (isModel(json) && json.type === "object") table.set(json.id, json);
    for (const value of Object.values(json)) definitions(value, table);
    return table;
  }

  // The same value with every model definition in it replaced by a reference to the model.
  function asReferences(v) {
    if (isModel(v)) return { id: v.id };
    if (Array.isArray(v)) return v.map(asReferences);
    if (!isPlain(v)) return v;
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, asReferences(x)]));
  }

  class Mismatch extends Error {}

  // pre: one figure's serialized pre-render document; live: definitions(the live document).
  // -> {ids: Map(pre id -> live id), changes: [{id, attr, value}]} or null.
  function match(pre, preRoot, live, liveRoot) {
    const preDefs = definitions(pre);
    const ids = new Map();
    const taken = new Set();
    const queue = [];
    const changes = [];

    const pair = (a, b) => {
      if (ids.has(a)) {
        if (ids.get(a) !== b) throw new Mismatch(`${a} is two models`);
        return;
      }
      if (taken.has(b)) throw new Mismatch(`${b} stands for two models`);
      ids.set(a, b);
      taken.add(b);
      queue.push([a, b]);
    };

    // Whether two values are equal, pairing the models they hold on the way.
    const same = (a, b) => {
      if (isModel(a) || isModel(b)) {
        if (!isModel(a) || !isModel(b)) throw new Mismatch("a model against a value");
        pair(a.id, b.id);
        return true;
      }
      if (!isPlain(a) || !isPlain(b)) return a === b;
      const keysA = Object.keys(a);
      const keysB = Object.keys(b);
      if (Array.isArray(a) !== Array.isArray(b) || keysA.length !== keysB.length
          || keysA.some((k) => !(k in b))) {
        if (holdsModel(a) || holdsModel(b)) throw new Mismatch("models in values of other shapes");
        return false;
      }
      let equal = true;
      for (const k of keysA) equal = same(a[k], b[k]) && equal; // pair every model, not just some
      return equal;
    };

    try {
      pair(preRoot, liveRoot);
      while (queue.length) {
        const [a, b] = queue.pop();
        const defA = preDefs.get(a);
        const defB = live.get(b);
        if (!defA || !defB) throw new Mismatch(`no definition of ${defA ? b : a}`);
        if (defA.name !== defB.name) throw new Mismatch(`a ${defA.name} against a ${defB.name}`);
        const attrsA = defA.attributes ?? {};
        const attrsB = defB.attributes ?? {};
        const names = Object.keys(attrsA);
        if (names.length !== Object.keys(attrsB).length || names.some((k) => !(k in attrsB))) {
          throw new Mismatch(`${defA.name} sets other attributes`);
        }
        for (const attr of names) {
          if (!same(attrsA[attr], attrsB[attr])) {
            changes.push({ id: b, attr, value: asReferences(attrsB[attr]) });
          }
        }
      }
    } catch (err) {
      if (err instanceof Mismatch) return null;
      throw err;
    }
    return { ids, changes };
  }

  const api = { definitions, match };
  if (typeof module !== "undefined") module.exports = api;
  else self.figuresAdopt = api;
})();
