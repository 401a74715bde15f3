// The worker's answers set on the figures' models: figure id -> model id -> {property: value},
// where a data source's "data" holds only the columns that changed and a button's "clicks" is
// the count the page keeps for it. Values the worker already has must not echo back to it as
// the reader's changes (changes.js), so they are applied through withoutEcho.

import { state, wiring } from "./state.js";

// Apply values the worker has already, without sending them back to it.
export function withoutEcho(apply) {
  state.applyingWorkerValues += 1;
  try {
    apply();
  } finally {
    state.applyingWorkerValues -= 1;
  }
}

// A data source's changed columns as BokehJS holds them: an image comes from the worker as
// {ndarray: its values in order, dtype, shape} and is drawn from a BokehJS ndarray.
function columns(data) {
  const { ndarray } = Bokeh.require("core/util/ndarray");
  const array = (v) => (v?.ndarray ? ndarray(v.ndarray, { dtype: v.dtype, shape: v.shape }) : v);
  return Object.fromEntries(Object.entries(data).map(([name, column]) => [name, column.map(array)]));
}

// Whether a model's value `now` already is what the worker sends: a number, text, or a list
// (a column, a typed array, an image's rows) of them.
function same(now, sent) {
  if (now === sent) return true;
  const list = (v) => Array.isArray(v) || ArrayBuffer.isView(v);
  if (!list(now) || !list(sent) || now.length !== sent.length) return false;
  for (let i = 0; i < now.length; i++) if (!same(now[i], sent[i])) return false;
  return true;
}

// What of `props` (property -> value, a source's "data" by column) the model does not show yet.
function differing(model, props) {
  const out = {};
  for (const [prop, value] of Object.entries(props)) {
    if (prop === "data") {
      const data = Object.entries(value).filter(([name, column]) => !same(model.data[name], column));
      if (data.length) out.data = Object.fromEntries(data);
    } else if (prop === "clicks" || !same(model[prop], value)) {
      out[prop] = value;
    }
  }
  return out;
}

// Set the worker's new values on the figures' models. Values the model already has are left
// alone, so that a figure's whole drawing, sent as it goes live, redraws only what differs. A
// figure not drawn yet is passed over.
export function applyUpdates(updates) {
  for (const [figureId, byModel] of Object.entries(updates)) {
    const doc = state.prerender.docs.get(figureId);
    if (!doc) continue; // not drawn yet: once drawn, it asks for the worker's drawing
    for (const [id, props] of Object.entries(byModel)) {
      const model = doc.get_model_by_id(id);
      if (!model) throw new Error(`the worker changed a model ${figureId} does not have (${id})`);
      const { data, clicks, ...rest } = differing(model, props);
      if (clicks !== undefined) state.clicks.set(`${figureId}|${wiring[figureId].byId.get(id).key}`, clicks);
      // A control the reader has moved again since (a change still queued for it) keeps the
      // reader's value: set back, the reader's next key press would start from the old one.
      const wired = wiring[figureId].byId.get(id);
      const queued = (c) => c.figure === figureId && c.key === wired?.key;
      if (wired?.prop && state.sending.queued.some(queued)) delete rest[wired.prop];
      if (data !== undefined) rest.data = { ...model.data, ...columns(data) };
      if (Object.keys(rest).length) model.setv(rest);
    }
  }
}
