// Pointing explains, and glossary terms explain themselves.
//
// Figures: an element marked data-explain inside a figure shows the explanation kept in the
// <template data-explanation> of the same key, in the figure's [data-explain-out] box, and
// lights every element whose data-marks share a name with its data-lights. Mouse (hover),
// touch (tap) and keyboard (focus) all point. The figures live in shadow roots, so the
// listeners sit on the light-DOM <figure> and read the event's composed path: the same
// listeners serve the pre-render and, unchanged, the live figure (the pre-render taken over,
// or one drawn in its place).
//
// A table of pointable cells marked role="grid" is one Tab stop (the cell with tabindex 0):
// the arrow keys, Home/End (the row's ends) and Ctrl+Home/End (the grid's) move focus, the
// stop and the explanation between its cells, as the WAI-ARIA grid pattern has it.
//
// Terms: CSS shows a term's tooltip on hover and focus. This script adds what CSS cannot:
// Escape hides it, a first tap on a touch screen shows it instead of following the link (a
// tap on the tooltip puts it away), and a tooltip that would leave the screen moves inside.
(() => {
  "use strict";

  // ---- figures ----

  // The pointed element (or null) and the scope it explains itself in (or null).
  function pointedIn(event) {
    let target = null;
    for (const node of event.composedPath()) {
      if (!(node instanceof Element)) continue;
      if (!target && node.hasAttribute("data-explain")) target = node;
      if (node.hasAttribute("data-explain-scope")) return [target, node];
      if (node.matches("figure[data-figure]")) break;
    }
    return [null, null];
  }

  const words = (text) => new Set((text || "").split(/\s+/).filter(Boolean));

  function explain(target, scope) {
    const key = target.dataset.explain;
    const out = scope.querySelector("[data-explain-out]");
    if (!out || (out.dataset.showing === key && target.classList.contains("is-pointed"))) return;
    const template = scope.querySelector(`template[data-explanation="${CSS.escape(key)}"]`);
    if (!template) return;
    out.replaceChildren(template.content.cloneNode(true));
    out.dataset.showing = key;
    const lights = words(target.dataset.lights);
    for (const el of scope.querySelectorAll("[data-marks]")) {
      el.classList.toggle("is-lit", [...words(el.dataset.marks)].some((m) => lights.has(m)));
    }
    for (const el of scope.querySelectorAll("[data-explain].is-pointed")) {
      if (el !== target) el.classList.remove("is-pointed");
    }
    target.classList.add("is-pointed");
  }

  // An event whose related target lies in the same shadow tree as its target (the mouse or
  // the focus moving between two cells of one figure) never leaves that tree. So the
  // figure listens to events that have no related target (pointermove, keyup after Tab,
  // click for a tap), and every scope that an event reaches is given listeners of its own
  // for hover and focus, which do see the moves inside it.
  const bound = new WeakSet();
  const POINTING = ["mouseover", "focusin"];

  function onPoint(event) {
    const [target, scope] = pointedIn(event);
    if (!scope) return;
    if (!bound.has(scope)) {
      bound.add(scope);
      for (const type of POINTING) scope.addEventListener(type, onPoint);
    }
    if (!target) return;
    // Tab comes back to the cell the reader left, however it was focused (keys, click, tap).
    if (event.type === "focusin") makeStop(target);
    explain(target, scope);
  }

  const gridOf = (cell) => cell.closest('table[role="grid"]');

  // The grid's pointable cells, row by row (a row without any is left out).
  function gridRows(grid) {
    return [...grid.rows]
      .map((row) => [...row.querySelectorAll("[data-explain]")])
      .filter((cells) => cells.length);
  }

  function makeStop(cell) {
    const grid = gridOf(cell);
    if (!grid) return;
    for (const other of grid.querySelectorAll("[data-explain]")) {
      other.tabIndex = other === cell ? 0 : -1;
    }
  }

  // The cell a key moves to from `cell`, or null when the key is not the grid's.
  function moveTo(cell, event) {
    const rows = gridRows(gridOf(cell));
    const r = rows.findIndex((cells) => cells.includes(cell));
    const c = rows[r].indexOf(cell);
    const at = (row, column) => rows[row][Math.min(column, rows[row].length - 1)];
    const ctrl = event.ctrlKey || event.metaKey;
    switch (event.key) {
      case "ArrowRight":
        return rows[r][Math.min(c + 1, rows[r].length - 1)];
      case "ArrowLeft":
        return rows[r][Math.max(c - 1, 0)];
      case "ArrowDown":
        return at(Math.min(r + 1, rows.length - 1), c);
      case "ArrowUp":
        return at(Math.max(r - 1, 0), c);
      case "Home":
        return ctrl ? rows[0][0] : rows[r][0];
      case "End":
        return ctrl ? rows.at(-1).at(-1) : rows[r].at(-1);
      default:
        return null;
    }
  }

  function onKey(event) {
    if (event.altKey || event.shiftKey) return;
    const [target, scope] = pointedIn(event);
    if (!target || !gridOf(target)) return;
    const next = moveTo(target, event);
    if (!next) return;
    event.preventDefault(); // the arrows and Home/End would scroll the page
    makeStop(next);
    next.focus();
    explain(next, scope);
  }

  for (const figure of document.querySelectorAll("figure[data-figure]")) {
    for (const type of [...POINTING, "pointermove", "pointerdown", "keyup", "click"]) {
      figure.addEventListener(type, onPoint);
    }
    figure.addEventListener("keydown", onKey);
  }

  // ---- glossary terms ----

  const MARGIN = 8; // px kept free between a tooltip and the edge of the screen
  let lastPointer = "mouse";

  function place(wrap) {
    const tip = wrap.querySelector(".term-tip");
    if (!tip) return;
    tip.style.setProperty("--tip-shift", "0px");
    const box = tip.getBoundingClientRect();
    const right = document.documentElement.clientWidth - MARGIN;
    let shift = 0;
    if (box.right > right) shift = right - box.right;
    if (box.left + shift < MARGIN) shift = MARGIN - box.left;
    tip.style.setProperty("--tip-shift", `${Math.round(shift)}px`);
  }

  // A put-away tooltip stays hidden (even under a sticky touch hover) until its term is
  // pointed at or focused anew.
  function putAway(wrap) {
    wrap.classList.remove("term-open");
    wrap.classList.add("term-closed");
  }

  function show(wrap, open) {
    for (const other of document.querySelectorAll(".term-wrap.term-open")) {
      if (other !== wrap) other.classList.remove("term-open");
    }
    wrap.classList.remove("term-closed");
    wrap.classList.toggle("term-open", open);
    place(wrap);
  }

  const termWrap = (event) => event.target instanceof Element && event.target.closest(".term-wrap");
  const onLink = (event) => event.target instanceof Element && event.target.closest("a.term");

  document.addEventListener("pointerdown", (event) => {
    lastPointer = event.pointerType;
    const wrap = termWrap(event);
    if (!wrap) {
      for (const open of document.querySelectorAll(".term-wrap.term-open")) putAway(open);
    }
  });
  document.addEventListener("mouseover", (event) => {
    const wrap = termWrap(event);
    // Entering a term from outside it (not moving between the link and its tooltip).
    if (wrap && !(event.relatedTarget instanceof Node && wrap.contains(event.relatedTarget))) {
      if (lastPointer === "mouse") show(wrap, false);
    }
  });
  document.addEventListener("focusin", (event) => {
    const wrap = termWrap(event);
    if (wrap && onLink(event)) show(wrap, wrap.classList.contains("term-open"));
  });
  document.addEventListener("click", (event) => {
    const wrap = termWrap(event);
    if (!wrap) return;
    if (!onLink(event)) {
      // A tap on the definition itself puts it away (it may cover the next line).
      putAway(wrap);
      return;
    }
    if (lastPointer !== "touch" || wrap.classList.contains("term-open")) return;
    // First tap on a touch screen: show the definition; a second tap follows the link.
    event.preventDefault();
    show(wrap, true);
  });
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    for (const wrap of document.querySelectorAll(".term-wrap")) {
      if (wrap.matches(".term-open, :hover, :focus-within")) putAway(wrap);
    }
  });
})();
