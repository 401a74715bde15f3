"""What a page's Python worker holds in its JavaScript heap, read through Chromium's DevTools
protocol: the byte sizes of the buffers (ArrayBuffers, WebAssembly memories) alive after a
garbage collection.

Playwright opens no DevTools session on a worker, so this asks the page's session to attach
to its workers the older way, where each message to the worker goes wrapped in
``Target.sendMessageToTarget`` and each answer comes back in ``Target.receivedMessageFromTarget``.
"""

import json

# What a heap snapshot calls the memory behind an ArrayBuffer.
BUFFER = "system / JSArrayBufferData"


class WorkerSession:
    """A DevTools session on the page's worker whose script URL contains ``script``."""

    def __init__(self, page, script: str = "/worker.js"):
        self._page = page
        self._cdp = page.context.new_cdp_session(page)
        self._answers: dict[int, dict] = {}
        self._chunks: list[str] = []
        self._next = 0
        targets: list[tuple[str, str]] = []
        self._cdp.on(
            "Target.attachedToTarget",
            lambda e: targets.append((e["sessionId"], e["targetInfo"]["url"])),
        )
        self._cdp.on("Target.receivedMessageFromTarget", self._received)
        options = {"autoAttach": True, "waitForDebuggerOnStart": False, "flatten": False}
        self._cdp.send("Target.setAutoAttach", options)
        self._wait(lambda: any(script in url for _, url in targets), f"a worker {script}")
        self._session = next(sid for sid, url in targets if script in url)

    def _received(self, event: dict) -> None:
        message = json.loads(event["message"])
        if message.get("method") == "HeapProfiler.addHeapSnapshotChunk":
            self._chunks.append(message["params"]["chunk"])
        elif "id" in message:
            self._answers[message["id"]] = message

    def _wait(self, done, what: str, timeout_ms: int = 60_000) -> None:
        # The protocol's events arrive only while Playwright waits, so poll in short waits.
        waited = 0
        while not done():
            if waited > timeout_ms:
                raise TimeoutError(f"no answer from the DevTools protocol: {what}")
            self._page.wait_for_timeout(50)
            waited += 50

    def send(self, method: str, params: dict | None = None) -> dict:
        self._next += 1
        number = self._next
        message = {"id": number, "method": method, "params": params or {}}
        self._cdp.send(
            "Target.sendMessageToTarget",
            {"sessionId": self._session, "message": json.dumps(message)},
        )
        self._wait(lambda: number in self._answers, method)
        answer = self._answers.pop(number)
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        return answer["result"]

    def heap_snapshot(self) -> dict:
        """The worker's heap after a garbage collection (a snapshot collects first)."""
        self._chunks.clear()
        self.send("HeapProfiler.takeHeapSnapshot", {"reportProgress": False})
        return json.loads("".join(self._chunks))

    def detach(self) -> None:
        self._cdp.detach()


def buffer_sizes(snapshot: dict) -> list[int]:
    """The byte size of every buffer a heap snapshot holds, largest first."""
    meta = snapshot["snapshot"]["meta"]
    fields = meta["node_fields"]
    name, size = fields.index("name"), fields.index("self_size")
    nodes, strings, width = snapshot["nodes"], snapshot["strings"], len(fields)
    sizes = [
        nodes[at + size]
        for at in range(0, len(nodes), width)
        if strings[nodes[at + name]] == BUFFER
    ]
    return sorted(sizes, reverse=True)


def worker_buffers(page) -> list[int]:
    """The byte sizes of the buffers the page's Python worker holds, largest first."""
    session = WorkerSession(page)
    try:
        return buffer_sizes(session.heap_snapshot())
    finally:
        session.detach()
