// Each plot's data as a table, for a reader who cannot see the plot: layoutkit/plots.py's
// data_table and data_grid tag a plot with the columns to show and how to print them, and
// a11y.js calls draw(slot, plots, views) after each drawing of a figure.

const DATA_TAG = "data-table:";

// Python's f"{x:.{digits}f}": toFixed rounds an exact tie away from zero, Python to even.
function fixed(x, digits) {
  const text = x.toFixed(digits);
  const exact = x.toFixed(digits + 20); // exact for any double below 1e12 at this length
  if (!/50{19}$/.test(exact)) return text;
  const down = exact.slice(0, -20); // the tie rounded toward zero
  return Number(down.at(-1)) % 2 === 0 ? down.replace(/\.$/, "") : text;
}

const sci = (x, digits) => x.toExponential(digits);

// formatting/__init__.py's num, integer and magnitude_text: a table prints a readout's digits.
function num(x) {
  if (Number.isNaN(x)) return "NaN";
  if (!Number.isFinite(x)) return x > 0 ? "∞" : "−∞";
  if (Math.abs(x) >= 1e12) return sci(x, 3);
  const text = fixed(x, 4);
  return text === "-0.0000" ? "0.0000" : text;
}
const FORMATS = {
  text: (v) => String(v ?? "").trim(),
  num: (v) => num(Number(v)),
  int: (v) => (Number.isFinite(Number(v)) ? Math.trunc(v).toLocaleString("en-US") : num(v)),
  mag: (v) => {
    const x = Number(v);
    if (x === 0) return "0";
    if (Number.isFinite(x) && !(Math.abs(x) >= 1e-3 && Math.abs(x) < 1e4)) return sci(x, 1);
    return num(x);
  },
};

function dataSpec(model) {
  const tag = (model?.tags ?? []).find((t) => typeof t === "string" && t.startsWith(DATA_TAG));
  return tag ? JSON.parse(tag.slice(DATA_TAG.length)) : null;
}

function cell(row, text, scope = "") {
  const el = document.createElement(scope ? "th" : "td");
  if (scope) el.scope = scope;
  el.textContent = text;
  row.append(el);
}

// The table of one plot: caption its name, a header row, a row per data row (or grid row).
function dataTable(name, spec, model) {
  const source = model.renderers[spec.renderer]?.data_source;
  const column = (field) => source?.get_column?.(field) ?? source?.data?.[field] ?? [];
  const table = document.createElement("table");
  table.createCaption().textContent = name;
  const head = table.createTHead().insertRow();
  const body = table.createTBody();
  if (spec.grid) {
    const values = column(spec.grid);
    for (const text of [spec.corner, ...spec.cols]) cell(head, text, "col");
    spec.rows.forEach((rowName, i) => {
      const row = body.insertRow();
      cell(row, rowName, "row");
      spec.cols.forEach((_, j) => {
        const v = values[i * spec.cols.length + j];
        const blank = v === undefined || (typeof v === "number" && Number.isNaN(v));
        cell(row, blank ? "" : FORMATS[spec.format](v)); // blank, as drawn
      });
    });
    return table;
  }
  const named = Array.isArray(spec.rows);
  if (named) cell(head, spec.row_header, "col");
  for (const [, header] of spec.columns) cell(head, header, "col");
  const data = spec.columns.map(([field]) => column(field));
  const length = Math.max(0, ...data.map((values) => values.length));
  for (let i = 0; i < length; i++) {
    const row = body.insertRow();
    if (named) cell(row, spec.rows[i] ?? "", "row");
    spec.columns.forEach(([, , format], k) => {
      cell(row, FORMATS[format](data[k][i]), !named && k === 0 ? "row" : "");
    });
  }
  if (!length && spec.empty) {
    // A measurement not taken yet: one cell across the table says how to take it.
    cell(body.insertRow(), spec.empty);
    body.rows[0].cells[0].colSpan = spec.columns.length + (named ? 1 : 0);
  }
  return table;
}

// The figure's plots' tables, in a "Data" disclosure after its plots: a sighted keyboard
// reader can open it too, and a screen reader meets it right after the plots it reads out.
// The tables are drawn when the disclosure is open (on opening, and on each update while
// open): a closed one costs an update nothing. Tables whose text is unchanged stay in place,
// so a reader inside one keeps their place.
const redraws = new WeakMap(); // disclosure -> the function that draws its tables now

function fill(box, hosts, views) {
  const tables = [];
  for (const host of hosts) {
    const model = views.get(host)?.model;
    const spec = dataSpec(model);
    if (spec) tables.push(dataTable(host.getAttribute("aria-label"), spec, model));
  }
  const old = [...box.querySelectorAll(":scope > table")];
  tables.forEach((table, i) => {
    if (!old[i]) box.append(table);
    else if (old[i].outerHTML !== table.outerHTML) old[i].replaceWith(table);
  });
  for (const extra of old.slice(tables.length)) extra.remove();
}

export function draw(slot, hosts, views) {
  const figure = slot.closest("figure") ?? slot.parentElement;
  const count = hosts.filter((host) => dataSpec(views.get(host)?.model)).length;
  let box = figure.querySelector(":scope > details.fig-data");
  if (!count) return box?.remove();
  if (!box) {
    box = document.createElement("details");
    box.className = "fig-data";
    const summary = document.createElement("summary");
    summary.textContent = count > 1 ? "Data: the plots as tables" : "Data: the plot as a table";
    box.append(summary);
    box.addEventListener("toggle", () => box.open && redraws.get(box)());
    slot.after(box);
  }
  redraws.set(box, () => fill(box, hosts, views));
  if (box.open) fill(box, hosts, views);
}

