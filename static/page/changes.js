// The reader's changes to a figure's controls. Once Python is live each goes to the worker,
// one batch at a time (python.js); before then a control's latest value is kept for it, and
// sent first as the figures go live.

import { DOWN, WAITING } from "./phases.js";
import { sendChanges } from "./python.js";
import { HELD, setStatus, state, wiring } from "./state.js";

// The reader's change in a figure's document, as the worker takes it: {figure, key, raw} for
// a control, {figure, action} for an action button; null for any other change.
function readerChange(figureId, event) {
  const click = event.msg_type === "bokeh_event" && event.msg_data?.event_name === "button_click";
  const model = click ? event.msg_data.origin : event.model;
  const wired = model && wiring[figureId].byId.get(model.id);
  if (!wired) return null;
  if (wired.action !== undefined) return click ? { figure: figureId, action: wired.action } : null;
  if (wired.prop === "clicks") {
    if (!click) return null;
    const count = `${figureId}|${wired.key}`;
    state.clicks.set(count, (state.clicks.get(count) ?? 0) + 1);
    return { figure: figureId, key: wired.key, raw: state.clicks.get(count) };
  }
  if (click || event.attr !== wired.prop) return null;
  return { figure: figureId, key: wired.key, raw: model[wired.prop] };
}

// A change to a figure: the reader's, unless the worker's own values are being applied.
// Before Python is live, a control's latest value is kept for it (and the status line says
// so); once live, changes go to the worker, one batch at a time.
export function onFigureChange(figureId, event) {
  if (state.applyingWorkerValues > 0) return;
  const change = readerChange(figureId, event);
  if (!change) return;
  if (state.phase !== "live") {
    if (change.action !== undefined || DOWN.includes(state.phase)) return;
    state.earlyChanges.set(`${figureId}|${change.key}`, change);
    if (WAITING.includes(state.phase)) setStatus(figureId, HELD);
    return;
  }
  const sending = state.sending;
  if (!sending.awaitingReply) return sendChanges([change]);
  if (change.key !== undefined) {
    const same = (c) => c.figure === change.figure && c.key === change.key;
    sending.queued = sending.queued.filter((c) => !same(c));
  }
  sending.queued.push(change);
}
