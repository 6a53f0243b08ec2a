"""Opens roundup's savings page in a real browser and says what it found.

    python3 savings_page.py BROWSER FILE.html SCREENSHOT.png

BROWSER is Debian's chromium-headless-shell, driven through the DevTools protocol over
--remote-debugging-pipe (no network port, no websocket; the standard library only). The
page is opened at a phone's width, 390 CSS pixels, and this prints one JSON object:
  drawn        how much of the screenshot is not the page's background, and its colours
  errors       console errors, uncaught exceptions and the browser's own error log entries
  requests     every URL the page asked for beyond the file itself
  overflow     how much wider than the viewport the page is (0: no sideways scrolling)
  tables       the captions or first header cells of the page's tables
SaverViewTests judges them.
"""

import base64
import json
import os
import struct
import subprocess
import sys
import tempfile
import time
import zlib

WIDTH, HEIGHT = 390, 844


class Browser:
    def __init__(self, executable):
        self.to_browser_read, self.to_browser = os.pipe()
        self.from_browser, self.from_browser_write = os.pipe()
        self.profile = tempfile.mkdtemp(prefix="roundup-browser-")
        arguments = [
            executable, "--headless", "--remote-debugging-pipe", "--disable-gpu", "--no-first-run",
            "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
            f"--user-data-dir={self.profile}", f"--window-size={WIDTH},{HEIGHT}", "about:blank",
        ]
        if os.geteuid() == 0:
            arguments.insert(1, "--no-sandbox")  # Chromium refuses root with its sandbox
        # The browser reads commands on fd 3 and writes answers on fd 4.
        # (Copied out of the way first: the pipes may themselves be fds 3 and 4, and a dup2
        # onto itself would leave them closed on exec.)
        def fds():
            reading, writing = os.dup(self.to_browser_read), os.dup(self.from_browser_write)
            os.dup2(reading, 3)
            os.dup2(writing, 4)
        self.process = subprocess.Popen(
            arguments, preexec_fn=fds, close_fds=False,
            stdout=subprocess.DEVNULL, stderr=None if os.environ.get("ROUNDUP_BROWSER_LOG") else subprocess.DEVNULL)
        os.close(self.to_browser_read)
        os.close(self.from_browser_write)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        return self.wait(lambda m: m.get("id") == self.next_id)

    def wait(self, matches, timeout=30):
        deadline = time.monotonic() + timeout
        for event in list(self.events):
            if matches(event):
                self.events.remove(event)
                return event
        while time.monotonic() < deadline:
            while b"\0" in self.buffer:
                raw, self.buffer = self.buffer.split(b"\0", 1)
                message = json.loads(raw)
                if matches(message):
                    if "error" in message:
                        raise RuntimeError(f"the browser refused: {message['error']}")
                    return message
                self.events.append(message)
            chunk = os.read(self.from_browser, 1 << 20)
            if not chunk:
                raise RuntimeError("the browser closed its pipe")
            self.buffer += chunk
        raise TimeoutError("the browser did not answer in time")

    def close(self):
        try:
            self.send("Browser.close")
        except Exception:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def pixels(png):
    """The RGBA pixels of an 8-bit RGB or RGBA PNG, as (width, height, rows of tuples)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    position, data = 8, b""
    while position < len(png):
        length, kind = struct.unpack(">I4s", png[position:position + 8])
        body = png[position + 8:position + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), f"a PNG of depth {depth}, colour type {colour}"
            channels = 4 if colour == 6 else 3
        elif kind == b"IDAT":
            data += body
        position += 12 + length
    raw = zlib.decompress(data)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up = previous[x]
            corner = previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + left) & 255
            elif kind == 2:
                line[x] = (line[x] + up) & 255
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 255
            elif kind == 4:
                guess = left + up - corner
                a, b, c = abs(guess - left), abs(guess - up), abs(guess - corner)
                line[x] = (line[x] + (left if a <= b and a <= c else up if b <= c else corner)) & 255
        rows.append([tuple(line[x:x + 3]) for x in range(0, stride, channels)])
        previous = line
    return width, height, rows


def main(executable, page, screenshot):
    browser = Browser(executable)
    try:
        target = browser.send("Target.createTarget", {"url": "about:blank"})["result"]["targetId"]
        session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["result"]["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            browser.send(f"{domain}.enable", session=session)
        browser.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False}, session=session)
        url = "file://" + os.path.abspath(page)
        browser.send("Page.navigate", {"url": url}, session=session)
        browser.wait(lambda m: m.get("method") == "Page.loadEventFired")
        time.sleep(0.5)  # anything late to fail or to ask the network says so now

        def evaluate(expression):
            answer = browser.send("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=session)
            return answer["result"]["result"].get("value")

        overflow = evaluate("Math.max(document.documentElement.scrollWidth, document.body.scrollWidth) - document.documentElement.clientWidth")
        tables = evaluate(
            "[...document.querySelectorAll('table')].map(t => (t.caption ? t.caption.textContent : "
            "(t.querySelector('th') || {}).textContent || '').trim())")
        shot = browser.send("Page.captureScreenshot", {"format": "png"}, session=session)["result"]["data"]
        png = base64.b64decode(shot)
        with open(screenshot, "wb") as file:
            file.write(png)
        width, height, rows = pixels(png)
        background = rows[0][0]
        counted = [pixel for row in rows for pixel in row]
        drawn = sum(1 for pixel in counted if max(abs(a - b) for a, b in zip(pixel, background)) > 24)
        errors, requests = [], []
        for event in browser.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                errors.append("console: " + " ".join(str(a.get("value", a.get("description", ""))) for a in params["args"]))
            elif method == "Runtime.exceptionThrown":
                errors.append("exception: " + params["exceptionDetails"].get("text", ""))
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                errors.append("log: " + params["entry"].get("text", "") + " " + params["entry"].get("url", ""))
            elif method == "Network.requestWillBeSent" and params["request"]["url"] != url:
                requests.append(params["request"]["url"])
        print(json.dumps({
            "drawn": {"share": drawn / len(counted), "colours": len(set(counted)), "width": width, "height": height},
            "errors": errors, "requests": requests, "overflow": overflow, "tables": tables,
        }))
    finally:
        browser.close()


if __name__ == "__main__":
    main(*sys.argv[1:4])
