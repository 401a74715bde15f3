// A browser that asks to save data (boot.js found it so): no byte of Python is fetched until
// the reader uses a figure's control or presses a figure's "Load live figures"; each status
// line says so.

import { showBusy } from "./phases.js";
import { startWorker } from "./python.js";
import { figures, setStatusLines, state } from "./state.js";

export function startWhenAsked() {
  const waiting = figures[0].querySelector(".fig-status").textContent;
  const listening = new AbortController(); // every listener below, removed at the first ask
  state.waitingForReader = true;
  showBusy();
  const asked = () => {
    listening.abort();
    state.waitingForReader = false;
    showBusy();
    setStatusLines("static", waiting);
    startWorker();
  };
  const once = { capture: true, signal: listening.signal };
  for (const fig of figures) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "fig-retry";
    button.textContent = "Load live figures";
    const status = fig.querySelector(".fig-status");
    status.textContent =
      "Pre-rendered: the default numbers as computed when this page was built. Your browser " +
      "asks to save data, so the live figures (several megabytes) load when you use a " +
      "control, or now:";
    status.append(" ", button);
    const slot = document.getElementById(`fig-${fig.dataset.figure}`) ?? fig;
    // A control used by pointer, keyboard or assistive technology (which sets its value).
    for (const type of ["pointerdown", "keydown", "input"]) {
      slot.addEventListener(type, asked, once);
    }
    button.addEventListener("click", asked, once);
  }
}
