"""Browser tests of the web client against the real server: every wait is an
explicit WebDriverWait with a timeout; screenshots go to artifacts/screenshots/."""

import json

import pytest

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

TIMEOUT = 10


def wait(driver, condition, timeout=TIMEOUT, message=""):
    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(lambda d: condition(d), message)


def el(driver, element_id):
    return driver.find_element(By.ID, element_id)


def text(driver, element_id):
    # textContent, not .text: it works for hidden elements (e.g. a collapsed inspector) too.
    return driver.execute_script("return document.getElementById(arguments[0])?.textContent ?? null", element_id)


def wait_text(driver, element_id, expected, timeout=TIMEOUT):
    wait(driver, lambda d: text(d, element_id) == expected, timeout, f"#{element_id} never read {expected!r}")


def wait_ready(driver):
    wait(driver, lambda d: el(d, "connection-status").get_attribute("data-state") in ("live", "long-poll")
         and text(d, "version") not in ("–", ""), message="client never got live")


def stack_names(driver):
    # One script call: the list is rebuilt on every change, so element handles go stale.
    return driver.execute_script("return [...document.querySelectorAll('#nav-stack li')].map((li) => li.dataset.screen)")


def modal_open(driver):
    return driver.execute_script("return document.getElementById('modal').open")


def session_id(driver):
    return json.loads(driver.execute_script("return localStorage.getItem('remvvm.session')"))["id"]


def test_increase_three_times_shows_three(app, shot):
    wait_ready(app)
    wait_text(app, "counter-value", "0")
    for _ in range(3):
        el(app, "btn-increase").click()
    wait_text(app, "counter-value", "3")
    wait(app, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#inspector-actions .badge.applied")) == 3)
    shot("counter")

    el(app, "btn-decrease").click()
    wait_text(app, "counter-value", "2")
    box = el(app, "counter-input")
    box.clear()
    box.send_keys("42", Keys.ENTER)
    wait_text(app, "counter-value", "42")


def test_second_window_follows_the_first(app, shot):
    wait_ready(app)
    first, url, session = app.current_window_handle, app.current_url, session_id(app)
    app.switch_to.new_window("window")
    app.get(url)  # same profile, so the same saved session
    second = app.current_window_handle
    wait_ready(app)
    app.switch_to.window(first)
    el(app, "btn-increase").click()
    el(app, "btn-increase").click()
    wait_text(app, "counter-value", "2")
    app.switch_to.window(second)
    wait_text(app, "counter-value", "2")
    el(app, "btn-push-details").click()
    wait(app, lambda d: stack_names(d) == ["home", "details"])
    shot("second-window")
    app.switch_to.window(first)
    wait(app, lambda d: stack_names(d) == ["home", "details"], message="first window missed the push")
    app.switch_to.window(second)
    assert session_id(app) == session


def test_login_shows_greeting_and_logout_clears_it(app, shot):
    wait_ready(app)
    el(app, "login-first").send_keys("Ada")
    el(app, "login-last").send_keys("Lovelace")
    el(app, "login-submit").click()
    wait_text(app, "greeting-text", "Hello Ada Lovelace")
    assert el(app, "btn-logout").is_displayed()
    assert not el(app, "login-form").is_displayed()
    shot("logged-in")
    el(app, "btn-logout").click()
    wait_text(app, "greeting-text", "")
    assert el(app, "login-form").is_displayed()


def test_empty_name_login_shows_blocked_reason(app, shot):
    wait_ready(app)
    el(app, "login-first").send_keys("Ada")
    el(app, "login-submit").click()
    wait(app, lambda d: (text(d, "login-message") or "") != "", message="no blocked reason shown")
    assert "required" in text(app, "login-message").lower()
    assert el(app, "login-message").is_displayed()
    wait(app, lambda d: d.find_elements(By.CSS_SELECTOR, "#inspector-actions .badge.blocked"))
    assert text(app, "greeting-text") == ""
    shot("login-blocked")


def test_quote_shows_loading_then_text_or_error(app, shot):
    wait_ready(app)
    # Record every state #quote-status passes through: loading lasts only ~300 ms.
    app.execute_script("""
        window.__quoteStates = [];
        const status = document.getElementById('quote-status');
        new MutationObserver(() => window.__quoteStates.push(status.dataset.state))
            .observe(status, {attributes: true, attributeFilter: ['data-state']});
    """)
    Select(el(app, "quote-category")).select_by_value("wisdom")
    el(app, "btn-quote-load").click()
    wait(app, lambda d: d.execute_script("return window.__quoteStates.includes('loading')"), message="no loading state")
    if el(app, "quote-status").get_attribute("data-state") == "loading":
        shot("quote-loading")
    wait(app, lambda d: el(d, "quote-status").get_attribute("data-state") == "text", message="no quote text")
    assert (text(app, "quote-text") or "").strip()
    assert app.execute_script("return window.__quoteStates")[:2] == ["loading", "text"]
    shot("quote-text")

    Select(el(app, "quote-category")).select_by_value("nonsense")
    el(app, "btn-quote-load").click()
    wait(app, lambda d: el(d, "quote-status").get_attribute("data-state") == "error", message="no quote error")
    assert text(app, "quote-error")
    shot("quote-error")


def test_navigation_push_tabs_profile_and_modal(app, shot):
    wait_ready(app)
    wait(app, lambda d: stack_names(d) == ["home"])
    assert el(app, "tab-home").get_attribute("aria-current") == "page"
    assert not el(app, "btn-back").is_enabled()

    el(app, "btn-push-details").click()
    wait(app, lambda d: stack_names(d) == ["home", "details"])
    assert el(app, "screen").get_attribute("data-screen") == "details"
    assert el(app, "btn-back").is_enabled()
    shot("nav-details")
    el(app, "btn-back").click()
    wait(app, lambda d: stack_names(d) == ["home"])

    el(app, "tab-settings").click()
    wait(app, lambda d: el(d, "tab-settings").get_attribute("aria-current") == "page")
    wait(app, lambda d: stack_names(d) == ["settings"])
    el(app, "btn-push-details").click()
    wait(app, lambda d: stack_names(d) == ["settings", "details"])
    shot("nav-settings-details")
    el(app, "tab-home").click()
    wait(app, lambda d: stack_names(d) == ["home"], message="home tab lost its own stack")
    el(app, "tab-settings").click()
    wait(app, lambda d: stack_names(d) == ["settings", "details"], message="settings tab lost its stack")
    el(app, "btn-pop-root").click()
    wait(app, lambda d: stack_names(d) == ["settings"])
    el(app, "tab-home").click()
    wait(app, lambda d: stack_names(d) == ["home"])

    # Logged out: profile/show presents the login screen modally; Escape dismisses it.
    el(app, "btn-show-profile").click()
    wait(app, modal_open, message="profile/show did not present a modal")
    wait(app, lambda d: el(d, "modal").get_attribute("data-screen") == "login")
    shot("modal-login")
    app.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait(app, lambda d: not modal_open(d), message="Escape did not close the modal")

    # A generic modal closes with its Close button.
    el(app, "btn-show-modal").click()
    wait(app, modal_open)
    el(app, "modal-push-details").click()  # grows the modal's stack, not the tab's
    wait(app, lambda d: el(d, "btn-modal-back").is_displayed())
    assert stack_names(app) == ["home"]
    shot("modal-generic")
    el(app, "btn-modal-back").click()
    wait(app, lambda d: not el(d, "btn-modal-back").is_displayed())
    el(app, "btn-modal-close").click()
    wait(app, lambda d: not modal_open(d))

    # Log in through the modal, then profile/show pushes the profile screen.
    el(app, "btn-show-profile").click()
    wait(app, modal_open)
    el(app, "modal-login-first").send_keys("Ada")
    el(app, "modal-login-last").send_keys("Lovelace")
    el(app, "modal-login-submit").click()
    wait_text(app, "greeting-text", "Hello Ada Lovelace")
    if modal_open(app):  # the server may leave the modal up after a login
        el(app, "btn-modal-close").click()
        wait(app, lambda d: not modal_open(d))
    el(app, "btn-show-profile").click()
    wait(app, lambda d: stack_names(d) == ["home", "profile"])
    wait(app, lambda d: "Ada Lovelace" in (text(d, "screen-profile-name") or ""))
    shot("nav-profile")


def test_reload_resumes_the_session(app):
    wait_ready(app)
    el(app, "btn-increase").click()
    wait_text(app, "counter-value", "1")
    before = session_id(app)
    app.refresh()
    wait_ready(app)
    wait_text(app, "counter-value", "1")
    assert session_id(app) == before


def test_long_poll_transport_follows_changes(app, shot):
    wait_ready(app)
    url = app.current_url
    first = app.current_window_handle
    app.switch_to.new_window("window")
    app.get(url.split("?")[0] + "?transport=poll")
    poller = app.current_window_handle
    wait(app, lambda d: el(d, "connection-status").get_attribute("data-state") == "long-poll")
    app.switch_to.window(first)
    el(app, "btn-increase").click()
    wait_text(app, "counter-value", "1")
    app.switch_to.window(poller)
    wait_text(app, "counter-value", "1")
    shot("long-poll")


def test_phone_width_has_no_horizontal_scroll(app, shot):
    app.set_window_size(390, 844)
    app.refresh()  # the inspector starts collapsed on a narrow screen
    wait_ready(app)
    assert not el(app, "inspector").is_displayed()
    width = app.execute_script("return document.documentElement.clientWidth")
    scroll = app.execute_script("return document.documentElement.scrollWidth")
    assert scroll <= width, f"page is {scroll}px wide in a {width}px viewport"
    shot("phone")
    el(app, "btn-inspector").click()
    wait(app, lambda d: el(d, "inspector").is_displayed())
    app.execute_script("document.getElementById('inspector').scrollIntoView()")
    shot("phone-inspector")


def test_server_restart_shows_reconnecting_then_recovers(app, server, shot):
    if server.external:
        pytest.skip("cannot restart a server this run did not start")
    wait_ready(app)
    el(app, "btn-increase").click()
    wait_text(app, "counter-value", "1")
    server.stop()
    wait(app, lambda d: el(d, "connection-status").get_attribute("data-state") == "reconnecting",
         message="no reconnecting state while the server is down")
    shot("reconnecting")
    server.start()
    wait(
        app, lambda d: el(d, "connection-status").get_attribute("data-state") in ("live", "long-poll"), timeout=30,
        message="never recovered after the restart")
    # Whether the session survived the restart or a new one was made, actions work again.
    value = int(text(app, "counter-value"))
    el(app, "btn-increase").click()
    wait_text(app, "counter-value", str(value + 1))
    app.get_log("browser")  # the outage logged network errors on purpose


FLAKY_EVENT_SOURCE = """
// An EventSource whose connection keeps failing, as behind a proxy that drops streams.
window.EventSource = class {
  static CONNECTING = 0; static OPEN = 1; static CLOSED = 2;
  constructor(url) {
    this.url = url; this.readyState = 0; this.closed = false;
    const fail = (left) => setTimeout(() => {
      if (this.closed) return;
      this.onerror?.(new Event('error'));
      if (left > 1) fail(left - 1);
    }, 50);
    fail(5);
  }
  addEventListener() {}
  close() { this.closed = true; this.readyState = 2; }
};
"""


def test_failing_event_source_falls_back_to_long_poll(app, server, shot):
    wait_ready(app)
    url = app.current_url
    first = app.current_window_handle
    app.switch_to.new_window("window")
    script = app.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": FLAKY_EVENT_SOURCE})
    try:
        app.get(url)
        flaky = app.current_window_handle
        wait(app, lambda d: el(d, "connection-status").get_attribute("data-state") == "long-poll",
             message="no fallback to long-poll")
        app.switch_to.window(first)
        el(app, "btn-increase").click()
        wait_text(app, "counter-value", "1")
        app.switch_to.window(flaky)
        wait_text(app, "counter-value", "1")
        el(app, "btn-increase").click()
        wait_text(app, "counter-value", "2")
        app.switch_to.window(first)
        wait_text(app, "counter-value", "2")
    finally:
        app.switch_to.window(app.window_handles[-1])
        app.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]})


def chat_lines(driver):
    return driver.execute_script("return [...document.querySelectorAll('#chat-messages li')].map((li) => li.textContent)")


def test_two_sessions_chat_with_each_other(app, server, shot):
    if "127.0.0.1" not in server.url:
        pytest.skip("the second session needs a second origin (localhost) of the same server")
    wait_ready(app)
    first, ada = app.current_window_handle, session_id(app)
    el(app, "btn-chat-join").click()  # no name: blocked, and the reason is shown
    wait(app, lambda d: "name is required" in (text(d, "chat-message") or ""), message="no blocked reason shown")
    el(app, "chat-name").send_keys("Ada")
    el(app, "btn-chat-join").click()  # the room field says lobby
    wait_text(app, "chat-room-name", "lobby")
    el(app, "chat-text").send_keys("anyone here?", Keys.ENTER)
    wait(app, lambda d: chat_lines(d) == ["Ada: anyone here?"])

    # Another origin of the same server has storage of its own, so this window makes a second session.
    app.switch_to.new_window("window")
    app.get(server.url.replace("127.0.0.1", "localhost") + "/")
    second = app.current_window_handle
    wait_ready(app)
    assert session_id(app) != ada
    el(app, "chat-name").send_keys("Bob")
    el(app, "btn-chat-join").click()
    # Joining shows the room's recent messages first.
    wait(app, lambda d: chat_lines(d) == ["Ada: anyone here?"], message="Bob never saw the room's history")
    el(app, "chat-text").send_keys("hi Ada", Keys.ENTER)
    wait(app, lambda d: chat_lines(d)[-1:] == ["Bob: hi Ada"])

    app.switch_to.window(first)
    wait(app, lambda d: chat_lines(d) == ["Ada: anyone here?", "Bob: hi Ada"], message="Ada never heard Bob")
    el(app, "chat-text").send_keys("hello Bob", Keys.ENTER)
    wait(app, lambda d: chat_lines(d)[-1:] == ["Ada: hello Bob"])
    shot("chat-ada")
    app.switch_to.window(second)
    wait(app, lambda d: chat_lines(d) == ["Ada: anyone here?", "Bob: hi Ada", "Ada: hello Bob"],
         message="Bob never heard Ada")
    shot("chat-bob")
    el(app, "btn-chat-leave").click()
    wait(app, lambda d: el(d, "chat-join-form").is_displayed() and chat_lines(d) == [])
