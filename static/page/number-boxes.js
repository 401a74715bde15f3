// Number and text boxes that say what they expect. a11y.js calls guard(root, model, slot) for
// each box's shadow root as it labels a figure, then sayWarning(slot, warning) with the
// figure's warning.
//
// Bokeh's number box drops a character it does not expect without a word, sends an emptied
// box to Python as no value, and puts the last value back when the box loses focus. Here a
// box keeps what the reader typed; an entry that is not a number of the box's kind and range
// says so next to the box (a live region the box names as its description, the box marked
// invalid) and never reaches the model, so the figure stays at its last good state.

const NUMBER_BOX = /(^|\s)bk-(Spinner|NumericInput)(\s|$)/;
const MESSAGE_ID = "fig-input-message"; // one per shadow root, so one id serves every box

function expectation(model) {
  const whole = model.mode === "int";
  const kind = whole ? "a whole number" : "a number";
  const { low, high } = model;
  const show = (x) => (whole ? Math.trunc(x).toLocaleString("en-US") : String(x));
  if (low != null && high != null) return `Type ${kind} from ${show(low)} to ${show(high)}.`;
  if (low != null) return `Type ${kind} of at least ${show(low)}.`;
  if (high != null) return `Type ${kind} of at most ${show(high)}.`;
  return `Type ${kind}.`;
}

// Whether `text` is a number the box takes: of its kind (whole or not), finite, in range.
function acceptable(text, model) {
  const form =
    model.mode === "int" ? /^\s*[-+]?\d+\s*$/ : /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;
  if (!form.test(text)) return false;
  const x = Number(text);
  const { low, high } = model;
  return Number.isFinite(x) && !(low != null && x < low) && !(high != null && x > high);
}

// A message under a box, in the box's shadow root: a live region that the box names as its
// description while the box is marked invalid. Returns the function that sets its text.
function boxMessage(input) {
  const message = document.createElement("p");
  message.id = MESSAGE_ID;
  message.className = MESSAGE_ID;
  message.setAttribute("aria-live", "polite");
  (input.closest(".bk-input-group") ?? input).after(message);
  return (text) => {
    if (text) {
      input.setAttribute("aria-invalid", "true");
      input.setAttribute("aria-describedby", MESSAGE_ID);
    } else {
      input.removeAttribute("aria-invalid");
      input.removeAttribute("aria-describedby");
    }
    if (message.textContent !== text) message.textContent = text;
  };
}

// The boxes guarded so far: a box's shadow root -> {problem: what is wrong with its text as
// the page sees it ("" when nothing), say: sets its message}.
const boxes = new WeakMap();
const lastBox = new WeakMap(); // figure slot -> the box the reader changed last

// Python reads a box's entry too, and may refuse it in the figure's warning (keeping the
// figure at its last good state): that warning is repeated under the box the reader changed
// last, until the figure has none or the box has a problem of its own to say.
export function sayWarning(slot, warning) {
  const box = boxes.get(lastBox.get(slot));
  if (box) box.say(box.problem() || warning);
}

function guardNumberBox(root, model, slot) {
  const input = root.querySelector("input");
  if (!input || !model || boxes.has(root)) return;
  const say = boxMessage(input);
  const problem = () => (acceptable(input.value, model) ? "" : expectation(model));
  boxes.set(root, { problem, say });
  // Capture on the shadow root runs before Bokeh's own listeners on the box: stopping the
  // event there keeps the reader's text, and keeps a bad entry from the model.
  root.addEventListener(
    "input",
    (event) => {
      if (event.target !== input) return;
      event.stopPropagation();
      if (input.hasAttribute("aria-invalid") && !problem()) say("");
    },
    true,
  );
  for (const type of ["change", "focusout"]) {
    root.addEventListener(
      type,
      (event) => {
        if (event.target !== input) return;
        if (type === "change") lastBox.set(slot, root);
        say(problem());
        if (problem()) event.stopPropagation();
      },
      true,
    );
  }
  // A value set by a spin button, an arrow key, Reset or a link is a good entry.
  model.properties.value.change.connect(() => say(problem()));
}

// A text box's entry only Python reads: what it says is the figure's warning.
const TEXT_BOX = /(^|\s)bk-(panel-models-widgets-)?TextInput(\s|$)/;

function guardTextBox(root, slot) {
  const input = root.querySelector("input");
  if (!input || boxes.has(root)) return;
  boxes.set(root, { problem: () => "", say: boxMessage(input) });
  input.addEventListener("change", () => lastBox.set(slot, root));
}

// A box's shadow root, guarded once whatever the number of calls.
export function guard(root, model, slot) {
  const kind = root.host?.className ?? "";
  if (NUMBER_BOX.test(kind)) guardNumberBox(root, model, slot);
  else if (TEXT_BOX.test(kind)) guardTextBox(root, slot);
}

