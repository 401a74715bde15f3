// Debian's Firefox ESR, driven over WebDriver BiDi by puppeteer-core, for the Python tests
// (harness/engines.py). One request per line on stdin, one answer per line on stdout, in order:
//   {"op": "open", "url", "script"?}  -> {"page": n}   a new tab; `script` runs before the page's own
//   {"op": "eval", "page", "source", "args"} -> {"value"}  `source` is a function, awaited, in
//                                   the tab brought to the front first, as a reader acts on the
//                                   tab they look at (a background tab is hidden, its timers
//                                   throttled to one a second or less)
//   {"op": "seen", "page"}          -> {"requests": [url], "errors": [text]} since the tab opened
//   {"op": "close", "page"}         -> {}
// A request that fails is answered {"error": text}; the bridge goes on.
import { createInterface } from "node:readline";
import puppeteer from "puppeteer-core";

const [executablePath, profile] = process.argv.slice(2);
const browser = await puppeteer.launch({
  browser: "firefox",
  protocol: "webDriverBiDi",
  executablePath,
  userDataDir: profile,
  headless: true,
  // Off the network but for the local server, as harness/chromium.py keeps Chromium.
  extraPrefsFirefox: {
    "network.proxy.type": 0,
    "network.dns.localDomains": "",
    "app.update.enabled": false,
    "browser.safebrowsing.malware.enabled": false,
    "browser.safebrowsing.phishing.enabled": false,
    "datareporting.policy.dataSubmissionEnabled": false,
  },
});

const pages = [];
const seen = [];
let front = null; // the tab in front, which the reader sees

async function open({ url, script }) {
  const page = await browser.newPage();
  const record = { requests: [], errors: [] };
  page.on("request", (request) => record.requests.push(request.url()));
  page.on("pageerror", (error) => record.errors.push(String(error)));
  page.on("console", (message) => message.type() === "error" && record.errors.push(message.text()));
  if (script) await page.evaluateOnNewDocument(script);
  await page.setViewport({ width: 1280, height: 900 });
  await page.goto(url, { waitUntil: "load" });
  pages.push(page);
  seen.push(record);
  front = pages.length - 1;
  return { page: front };
}

async function inFront(page) {
  if (front !== page) await pages[page].bringToFront();
  front = page;
  return pages[page];
}

const ops = {
  open,
  eval: async ({ page, source, args }) => ({
    value: await (await inFront(page)).evaluate(`(${source})(...${JSON.stringify(args ?? [])})`),
  }),
  seen: async ({ page }) => seen[page],
  close: async ({ page }) => {
    await pages[page].close();
    if (front === page) front = null;
    return {};
  },
};

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const request = JSON.parse(line);
  let answer;
  try {
    answer = await ops[request.op](request);
  } catch (error) {
    answer = { error: String(error?.stack || error) };
  }
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}
await browser.close();
