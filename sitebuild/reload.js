// The watch mode's live reload (`./dev serve`): sitebuild/serve.py adds this script to the
// HTML it sends, never to the built files, so the deployed site has none of it.
// It polls the server for the id of the newest build and reloads the page when that is not
// the one the page was served with; while the last rebuild failed, it shows the error over
// the page, which still shows the build before.
(() => {
  const script = new URL(document.currentScript.src);
  const served = script.searchParams.get("build");
  const stateUrl = new URL("state", script);
  const POLL_MS = 200;
  let banner = null;

  function show(error) {
    if (!banner) {
      banner = document.createElement("pre");
      banner.dataset.liveError = "";
      banner.setAttribute("role", "alert");
      Object.assign(banner.style, {
        position: "fixed", top: "0", left: "0", right: "0", zIndex: "2147483647",
        margin: "0", padding: "0.8em 1em", maxHeight: "50vh", overflow: "auto",
        background: "#fff0f0", color: "#7a0000", borderBottom: "3px solid #c00",
        font: "13px/1.4 ui-monospace, monospace", whiteSpace: "pre-wrap",
      });
      document.body.append(banner);
    }
    banner.textContent = "Build failed; this page shows the last good build.\n\n" + error;
  }

  function hide() {
    banner?.remove();
    banner = null;
  }

  async function poll() {
    try {
      const response = await fetch(stateUrl, { cache: "no-store" });
      const state = await response.json();
      if (state.build !== served) {
        location.reload();
        return;
      }
      if (state.error) show(state.error);
      else hide();
    } catch {
      // The server is rebuilding its answer or was restarted: ask again.
    }
    setTimeout(poll, POLL_MS);
  }

  poll();
})();
