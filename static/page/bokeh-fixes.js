// What the page mends in BokehJS before it draws a figure, each with why.

// BokehJS's categorical slider takes its option at the handle's position by truncating it, and
// a key press can leave the handle a hair below the next index (2.9999...), so the press
// chooses the old option again: take the nearest one. (Its test: a walk over every choice
// slider, tests/site/test_choice_sliders_browser.py.)
export function roundCategoricalSliders() {
  const view = Bokeh.require("models/widgets/sliders/categorical_slider").CategoricalSliderView;
  view.prototype._calc_from = function ([position]) {
    return this.model.categories[Math.round(position)];
  };
}

// A BokehJS plot view listens to the visual viewport's resizes and never stops (BokehJS issue
// 15290, mended upstream after the version Panel pins), so a plot taken off the page is kept,
// with its canvases and its whole document, as long as the page is open. Here each plot view
// records the listeners it adds there and removes them when it is removed.
export function releaseRemovedPlots() {
  const view = Bokeh.require("models/plots/plot_canvas").PlotView;
  const { connect_signals: connect, remove } = view.prototype;
  view.prototype.connect_signals = function () {
    const viewport = globalThis.visualViewport;
    if (viewport == null) return connect.call(this);
    const added = (this.viewportListeners ??= []); // connected again, it adds more
    viewport.addEventListener = (...listener) => {
      added.push(listener);
      EventTarget.prototype.addEventListener.apply(viewport, listener);
    };
    try {
      connect.call(this);
    } finally {
      delete viewport.addEventListener; // back to EventTarget's own
    }
  };
  view.prototype.remove = function () {
    for (const listener of this.viewportListeners ?? []) {
      globalThis.visualViewport.removeEventListener(...listener);
    }
    remove.call(this);
  };
}
