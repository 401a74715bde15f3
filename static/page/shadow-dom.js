// Bokeh and Panel draw each view in an open shadow root of its own, so what the page looks
// for in a figure (its canvases, its first control, its plots, the roots to label) is found by
// walking into them.

// Every element under `root`, in document order, each followed by those in its shadow root.
export function* elementsIn(root) {
  for (const el of root.querySelectorAll("*")) {
    yield el;
    if (el.shadowRoot) yield* elementsIn(el.shadowRoot);
  }
}
