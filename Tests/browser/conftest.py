"""Fixtures for the browser tests: the real server on a free loopback port and
one headless Chromium driven by Selenium. Run through scripts/browser-tests.sh."""

import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "artifacts" / "screenshots"


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """The remvvm-server binary, restartable on the same port (for the reconnect test)."""

    def __init__(self, binary, port):
        self.binary, self.port = binary, port
        self.url = f"http://127.0.0.1:{port}"
        self.log = open(ROOT / "artifacts" / "browser-server.log", "wb")  # one log per run, across restarts
        # Durable sessions live in a data folder of this run only, kept across the restart test.
        self.data = tempfile.mkdtemp(prefix="remvvm-browser-")
        self.process = None

    def start(self):
        command = [str(self.binary), "--port", str(self.port), "--public-dir", str(ROOT / "public"),
                   "--data-dir", self.data]
        self.process = subprocess.Popen(command, cwd=ROOT, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited with {self.process.returncode}; see artifacts/browser-server.log")
            try:
                with urllib.request.urlopen(self.url + "/", timeout=1) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("server did not answer GET / within 20 s")

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)


@pytest.fixture(scope="session")
def server():
    (ROOT / "artifacts").mkdir(exist_ok=True)
    if os.environ.get("REMVVM_BASE_URL"):  # a server someone else runs
        yield type("External", (), {"url": os.environ["REMVVM_BASE_URL"].rstrip("/"), "external": True})()
        return
    binary = Path(os.environ.get("REMVVM_SERVER_BIN", ROOT / ".build" / "debug" / "remvvm-server"))
    if not binary.exists():
        pytest.fail(f"{binary} not found: build the server first (swift build) or set REMVVM_SERVER_BIN")
    server = Server(binary, free_port())
    server.external = False
    server.start()
    yield server
    server.stop()
    server.log.close()
    shutil.rmtree(server.data, ignore_errors=True)


@pytest.fixture(scope="session")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("CHROMIUM_BIN") or shutil.which("chromium") or "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,900"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # An explicit driver path keeps Selenium Manager from trying to download one.
    service = Service(executable_path=os.environ.get("CHROMEDRIVER") or shutil.which("chromedriver") or "/usr/bin/chromedriver")
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_page_load_timeout(15)
    driver.set_script_timeout(10)
    yield driver
    driver.quit()


@pytest.fixture
def app(browser, server):
    """The app in a fresh session: no saved session, no cookie, one window, desktop size."""
    for handle in browser.window_handles[1:]:
        browser.switch_to.window(handle)
        browser.close()
    browser.switch_to.window(browser.window_handles[0])
    browser.set_window_size(1280, 900)
    browser.get(server.url + "/css/app.css")  # same origin, no script: clear storage before the app runs
    browser.execute_script("localStorage.clear()")
    browser.delete_all_cookies()
    browser.get(server.url + "/")
    browser.get_log("browser")  # start each test with an empty console
    yield browser
    # Console errors include CSP violations: any is a bug in the client or the server's headers.
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE" and "favicon" not in entry["message"]]
    assert not errors, f"browser console errors: {errors}"


@pytest.fixture
def shot(browser):
    SHOTS.mkdir(parents=True, exist_ok=True)

    def save(name):
        browser.save_screenshot(str(SHOTS / f"{name}.png"))

    return save
