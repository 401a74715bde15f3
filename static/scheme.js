// The reader's colour scheme: the system's (prefers-color-scheme) unless the reader chose one
// with the header's toggle, which is remembered. Loaded from the head, before anything is
// drawn, so a page never flashes the other scheme.
//
// The prose, code and widgets follow CSS alone (site.css: color-scheme and light-dark()).
// Bokeh draws plots on canvases with the colours the figure's Python chose for a light page,
// so in the dark scheme every colour a canvas is given is turned around here: same hue, and
// a luminance chosen so that its contrast with the dark figure surface equals its contrast
// with white. Any two colours then keep the contrast ratio they had (the WCAG ratio depends
// on luminance alone), so a pair that passes on a light page passes on a dark one.
"use strict";

(() => {
  const STORAGE_KEY = "attention-explained:scheme";
  const root = document.documentElement;
  const systemDark = matchMedia("(prefers-color-scheme: dark)");

  function storedChoice() {
    try {
      const value = localStorage.getItem(STORAGE_KEY);
      return value === "dark" || value === "light" ? value : null;
    } catch {
      return null; // storage blocked: follow the system
    }
  }

  let choice = storedChoice(); // "dark", "light", or null for the system's

  function scheme() {
    return choice ?? (systemDark.matches ? "dark" : "light");
  }

  // ---- Colour arithmetic: sRGB, relative luminance (WCAG) and OKLab (for the hue) ----

  const toLinear = (c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  const toGamma = (c) => (c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055);
  const luminanceOfLinear = ([r, g, b]) => 0.2126 * r + 0.7152 * g + 0.0722 * b;

  function oklabOfLinear([r, g, b]) {
    const l = Math.cbrt(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b);
    const m = Math.cbrt(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b);
    const s = Math.cbrt(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b);
    return [
      0.2104542553 * l + 0.793617785 * m - 0.0040720468 * s,
      1.9779984951 * l - 2.428592205 * m + 0.4505937099 * s,
      0.0259040371 * l + 0.7827717662 * m - 0.808675766 * s,
    ];
  }

  function linearOfOklab([L, a, b]) {
    const l = (L + 0.3963377774 * a + 0.2158037573 * b) ** 3;
    const m = (L - 0.1055613458 * a - 0.0638541728 * b) ** 3;
    const s = (L - 0.0894841775 * a - 1.291485548 * b) ** 3;
    return [
      4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s,
      -1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s,
      -0.0041960863 * l - 0.7034186147 * m + 1.707614701 * s,
    ];
  }

  const inGamut = (rgb) => rgb.every((c) => c >= -1e-6 && c <= 1 + 1e-6);

  // The colour of this hue (OKLab a, b scaled by `chroma`) whose luminance is `target`.
  function withLuminance([, a, b], chroma, target) {
    let lo = 0;
    let hi = 1;
    for (let i = 0; i < 40; i++) {
      const L = (lo + hi) / 2;
      if (luminanceOfLinear(linearOfOklab([L, a * chroma, b * chroma])) < target) lo = L;
      else hi = L;
    }
    return linearOfOklab([(lo + hi) / 2, a * chroma, b * chroma]);
  }

  // rgb: 0-255 channels -> the dark scheme's 0-255 channels. `surface` is the luminance of the
  // dark figure background, the colour white becomes.
  function forDark(rgb, surface) {
    const linear = rgb.map((c) => toLinear(c / 255));
    const luminance = luminanceOfLinear(linear);
    // contrast(new, surface) = contrast(old, white): (t + 0.05) / (surface + 0.05) = 1.05 / (Y + 0.05)
    const target = Math.min(1, (1.05 * (surface + 0.05)) / (luminance + 0.05) - 0.05);
    const lab = oklabOfLinear(linear);
    // Keep the hue; give up chroma only as far as the sRGB gamut demands.
    for (let chroma = 1; chroma > 0; chroma -= 0.05) {
      const out = withLuminance(lab, chroma, target);
      if (inGamut(out)) return out.map((c) => Math.round(toGamma(Math.min(1, Math.max(0, c))) * 255));
    }
    const grey = Math.round(toGamma(target) * 255);
    return [grey, grey, grey];
  }

  // ---- Canvases: every colour Bokeh sets is mapped while the scheme is dark ----

  const scratch = document.createElement("canvas").getContext("2d");
  const mapped = new Map(); // CSS colour string -> its dark counterpart
  let darkCanvases = false;
  let surfaceLuminance = null;

  const proto = CanvasRenderingContext2D.prototype;
  const native = {
    fillStyle: Object.getOwnPropertyDescriptor(proto, "fillStyle"),
    strokeStyle: Object.getOwnPropertyDescriptor(proto, "strokeStyle"),
  };

  // The browser parses any CSS colour; it reads back as "#rrggbb" or "rgba(r, g, b, a)".
  function channels(color) {
    native.fillStyle.set.call(scratch, "#000000");
    native.fillStyle.set.call(scratch, color);
    const text = native.fillStyle.get.call(scratch);
    if (text.startsWith("#")) return [[1, 3, 5].map((i) => parseInt(text.slice(i, i + 2), 16)), 1];
    const parts = text.match(/[\d.]+/g).map(Number);
    return [parts.slice(0, 3), parts[3] ?? 1];
  }

  function surface() {
    if (surfaceLuminance === null) {
      const css = getComputedStyle(root).getPropertyValue("--figure-surface-dark").trim();
      const [rgb] = channels(css || "#1c1c1c");
      surfaceLuminance = luminanceOfLinear(rgb.map((c) => toLinear(c / 255)));
    }
    return surfaceLuminance;
  }

  function darkCss(color) {
    let out = mapped.get(color);
    if (out === undefined) {
      const [rgb, alpha] = channels(color);
      const [r, g, b] = forDark(rgb, surface());
      out = alpha === 1 ? `rgb(${r}, ${g}, ${b})` : `rgba(${r}, ${g}, ${b}, ${alpha})`;
      mapped.set(color, out);
    }
    return out;
  }

  for (const [name, { get, set }] of Object.entries(native)) {
    Object.defineProperty(proto, name, {
      configurable: true,
      enumerable: true,
      get,
      set(value) {
        set.call(this, darkCanvases && typeof value === "string" ? darkCss(value) : value);
      },
    });
  }

  // Every plot on the page draws itself again, now that its colours map differently: at the
  // next frame, or at once (`now`) when the browser is about to print what is on screen.
  function repaintPlots(now = false) {
    const index = window.Bokeh?.index;
    if (!index) return; // nothing drawn yet: the plots will be drawn in the right scheme
    const seen = new Set();
    const walk = (view) => {
      if (!view || seen.has(view)) return;
      seen.add(view);
      if (typeof view.request_paint === "function" && view.model?.type === "Figure") {
        view.request_paint(); // no argument: every renderer
        if (now && typeof view.repaint === "function") view.repaint();
      }
      for (const child of view.child_views ?? []) walk(child);
    };
    for (const view of index.roots) walk(view);
  }

  // ---- Applying the scheme, and the header's toggle ----

  function apply() {
    const now = scheme();
    root.dataset.scheme = now;
    const wasDark = darkCanvases;
    darkCanvases = now === "dark";
    const toggle = document.getElementById("scheme-toggle");
    if (toggle) toggle.setAttribute("aria-pressed", String(darkCanvases));
    if (wasDark !== darkCanvases) repaintPlots();
  }

  function choose(value) {
    choice = value;
    try {
      localStorage.setItem(STORAGE_KEY, value);
    } catch {
      // storage blocked: the choice lasts until the page is left
    }
    apply();
  }

  apply();
  systemDark.addEventListener("change", apply);
  // Paper is white: print the plots in their light colours, then turn them back.
  addEventListener("beforeprint", () => {
    if (!darkCanvases) return;
    darkCanvases = false;
    repaintPlots(true);
  });
  addEventListener("afterprint", () => {
    if (darkCanvases === (scheme() === "dark")) return;
    darkCanvases = !darkCanvases;
    repaintPlots();
  });
  // Another tab of this site changed the choice.
  addEventListener("storage", (event) => {
    if (event.key !== STORAGE_KEY) return;
    choice = storedChoice();
    apply();
  });
  document.addEventListener("DOMContentLoaded", () => {
    const toggle = document.getElementById("scheme-toggle");
    if (!toggle) return;
    toggle.addEventListener("click", () => choose(scheme() === "dark" ? "light" : "dark"));
    apply();
  });

  // For the tests: the mapping alone, channels in and out.
  window.schemeColors = { forDark: (rgb) => forDark(rgb, surface()), darkCss };
})();
