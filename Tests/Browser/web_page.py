"""The web page in a real browser: Debian's chromium, headless, driven by Selenium.

Started by BrowserTests (Tests/ArchiveServerTests/BrowserTests.swift) against the real
archive-server binary, with what it set up in the environment:

  WEB_URL         the server's base URL
  WEB_LINK        a fresh sign-in link for device "phone" of alice
  WEB_USED_LINK   a link used already
  WEB_OLD_LINK    a link past its 10 minutes
  WEB_ZOOM_LINK   a fresh link whose sign-in screen the accessibility scenario checks
  WEB_SERVER_PID  the server's process: stopped (SIGSTOP) for a while, not answering at all
  ARCHIVE         the archive binary; ARCHIVE_DB its database, ARCHIVE_SYNC_TOKEN its token
  WEB_SHOTS       where to write screenshots (optional)
  WEB_SCENARIOS   only these scenarios (comma-separated; the first, signing in, always runs)
  WEB_LIVE_LIMIT  the most seconds a CLI device's push may take to show (default 10: the
                  page hears it at once; the margin is for a busy machine)

Exits 0 when every scenario passed, else prints what failed and exits 1. A missing
browser or driver fails: it never skips.
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback

from axe_selenium_python import Axe
from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, StaleElementReferenceException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

URL = os.environ["WEB_URL"]
SHOTS = os.environ.get("WEB_SHOTS")
LIVE_LIMIT = float(os.environ.get("WEB_LIVE_LIMIT", "10"))
WAIT = 20  # seconds any page state may take on a busy machine
# While working on the page: only these scenarios (comma-separated names) after the first,
# which signs in. BrowserTests runs them all.
ONLY = {name for name in os.environ.get("WEB_SCENARIOS", "").split(",") if name}


def browser(width, height):
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     f"--window-size={width},{height}", "--lang=ja",
                     # No lookups leave the machine: the catalog's photo host fails at once
                     # (the placeholder shows), the server is on loopback.
                     "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"):
        options.add_argument(argument)
    service = Service(executable_path=os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_page_load_timeout(WAIT)
    driver.set_window_size(width, height)
    return driver


def wait(driver, what, condition, state=None):
    # An element read while the page is being replaced (a form's answer arriving, the live
    # stream redrawing) goes stale: that poll counts as "not yet", not as a failure (it once
    # failed the refused-link scenario at once, reading the sign-in page's title as it left).
    try:
        return WebDriverWait(driver, WAIT, poll_frequency=0.05, ignored_exceptions=(StaleElementReferenceException,)).until(
            lambda d: condition(d))
    except Exception as error:  # noqa: BLE001 - said with what was awaited
        seen = ""
        if state:
            try:
                seen = f"; seen: {state(driver)}"
            except Exception as failure:  # noqa: BLE001 - the state is a help, not the failure
                seen = f"; the state could not be read ({type(failure).__name__})"
        raise AssertionError(f"{what}: not within {WAIT} s ({type(error).__name__}); page: {driver.current_url}{seen}") from None


def cards(driver):
    """The dishes the page shows, and whether each is hearted (read in one step: the live
    stream may replace the list at any moment)."""
    return [tuple(card) for card in driver.execute_script(
        "return Array.from(document.querySelectorAll('#results .card')).map(c => "
        "[Number(c.dataset.id), c.querySelector('.heart button').getAttribute('aria-pressed') === 'true'])")]


def click(driver, selector, by=By.CSS_SELECTOR):
    """Clicks the element `selector` names, found again if the live stream replaced it."""
    for _ in range(20):
        try:
            element = driver.find_element(by, selector)
            # In the middle of the screen: not under the sticky bar at the top.
            driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
            element.click()
            return
        except StaleElementReferenceException:
            continue
        except WebDriverException as error:  # a stale element passed to a script is said so
            if "stale element" not in str(error):
                raise
            continue
    raise AssertionError(f"{selector} kept being replaced")


def shot(driver, name):
    if SHOTS:
        driver.save_screenshot(os.path.join(SHOTS, name + ".png"))


def archive(*arguments):
    result = subprocess.run([os.environ["ARCHIVE"], arguments[0], "--database", os.environ["ARCHIVE_DB"], *arguments[1:]],
                            capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        raise AssertionError(f"archive {' '.join(arguments)} failed: {result.stderr}")
    return result.stdout


def sign_in(driver, link):
    driver.get(link)
    # The page says whom the link signs in as before it is used.
    target = driver.find_element(By.CLASS_NAME, "target").text
    assert "It signs in as alice" in target, f"the sign-in page's target: {target}"
    driver.find_element(By.ID, "sign-in").click()
    wait(driver, "the page after signing in", lambda d: d.find_elements(By.ID, "main"))


def scenario_search_heart_sync(driver):
    sign_in(driver, os.environ["WEB_LINK"])
    width = driver.execute_script("return window.innerWidth")
    assert width == 390, f"a phone's width: {width}"
    assert "phone · alice" in driver.find_element(By.ID, "sync").text, "signed in as alice's phone"
    # Search as you pause: type, no submit.
    field = driver.find_element(By.ID, "q")
    field.send_keys("チーズ")
    wait(driver, "results for チーズ", lambda d: "q=" in d.current_url and {17, 21, 33} <= {i for i, _ in cards(d)})
    click(driver, "//nav[@id='chips']/a[normalize-space()='洋食']", by=By.XPATH)
    wait(driver, "the 洋食 chip's results", lambda d: [i for i, _ in cards(d)] == [17, 21, 33])
    marks = [m.text for m in driver.find_elements(By.CSS_SELECTOR, "#results .dish mark")]
    assert marks == ["チーズ", "チーズ"], f"the keyword is highlighted in 17 and 33's names: {marks}"
    # The photos do not load here: each shows its placeholder.
    wait(driver, "the photo placeholders", lambda d: len(d.find_elements(By.CSS_SELECTOR, ".photo.missing")) == 3)
    # Heart 17 and 21, un-heart 21: in place, no reload.
    for dish in (17, 21):
        click(driver, f".card[data-id='{dish}'] .heart button")
        wait(driver, f"dish {dish} hearted", lambda d, dish=dish: (dish, True) in cards(d))
    click(driver, ".card[data-id='21'] .heart button")
    wait(driver, "dish 21 un-hearted", lambda d: (21, False) in cards(d))
    shot(driver, "search-phone")
    # The heart reaches a CLI device at its next sync.
    archive("sync", "--server", URL)
    listed = archive("favorites")
    assert "チーズハンバーグ" in listed and "マカロニグラタン" not in listed, f"the CLI device has 17 and not 21: {listed}"
    # A CLI device's push shows in the open page.
    archive("add", "33")
    archive("sync", "--server", URL)
    pushed = time.monotonic()
    WebDriverWait(driver, LIVE_LIMIT, poll_frequency=0.02).until(lambda d: (33, True) in cards(d))
    print(f"live: the CLI device's push showed in the page {time.monotonic() - pushed:.3f} s after its sync returned")
    state = driver.find_element(By.ID, "sync-state").get_attribute("data-state")
    assert state == "live", f"the page says it is live: {state}"
    # Keyboard: the search field, the chips and the hearts are reachable with Tab.
    driver.execute_script("document.activeElement && document.activeElement.blur()")
    reached = []
    for _ in range(30):
        ActionChains(driver).send_keys(Keys.TAB).perform()
        # Read in one step: the live stream may replace the focused element at any moment.
        reached.append(tuple(driver.execute_script(
            "const e = document.activeElement; return [e.id || '', e.getAttribute('class') || '', e.getAttribute('aria-label') || '']")))
    assert any(id == "q" for id, _, _ in reached), f"the search field is reachable by Tab: {reached}"
    assert any(cls == "chip" for _, cls, _ in reached), f"the chips are reachable by Tab: {reached}"
    assert any(label.startswith("Favorite: ") for _, _, label in reached), f"the hearts are reachable by Tab, labelled: {reached}"


def scenario_favorites_and_hostile_text(driver):
    driver.get(URL + "/favorites")
    wait(driver, "the favorites", lambda d: len(cards(d)) >= 2)
    names = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#results .dish")]
    hostile = "<img src=x onerror=window.__pwned=1>"
    assert hostile in names, f"the hostile name shows as text: {names}"
    assert driver.execute_script("return window.__pwned === undefined"), "no script of a dish name ran"
    assert not driver.find_elements(By.CSS_SELECTOR, "img[src='x']"), "no element was made from a dish name"
    try:
        driver.switch_to.alert
        raise AssertionError("an alert opened")
    except NoAlertPresentException:
        pass
    shot(driver, "favorites-phone")


def scenario_desktop(driver):
    driver.set_window_size(1280, 900)
    driver.get(URL + "/?q=%E3%83%81%E3%83%BC%E3%82%BA&category=%E6%B4%8B%E9%A3%9F")
    wait(driver, "the search at desktop width", lambda d: len(cards(d)) == 3)
    first, second = driver.find_elements(By.CSS_SELECTOR, "#results .card")[:2]
    assert first.location["y"] == second.location["y"], "two columns at desktop width"
    shot(driver, "search-desktop")
    driver.set_window_size(390, 844)
    driver.get(URL + "/?q=%E3%83%81%E3%83%BC%E3%82%BA&category=%E6%B4%8B%E9%A3%9F")
    wait(driver, "the search at phone width", lambda d: len(cards(d)) == 3)
    first, second = driver.find_elements(By.CSS_SELECTOR, "#results .card")[:2]
    assert first.location["y"] < second.location["y"], "one column at phone width"
    width = driver.execute_script("return document.documentElement.scrollWidth")
    assert width <= 390, f"nothing wider than the phone's screen: {width}"


def scenario_installable(driver):
    """Chromium finds the page installable as an app (its manifest, icons, start URL and
    display fetched and checked by the browser itself, through the DevTools protocol)."""
    driver.get(URL + "/")
    wait(driver, "the page's manifest", lambda d: d.execute_cdp_cmd("Page.getAppManifest", {}).get("url", "").endswith("/web/manifest.webmanifest"))
    manifest = driver.execute_cdp_cmd("Page.getAppManifest", {})
    assert not manifest.get("errors"), f"the manifest has errors: {manifest.get('errors')}"
    errors = driver.execute_cdp_cmd("Page.getInstallabilityErrors", {}).get("installabilityErrors", [])
    assert errors == [], f"Chromium finds the page not installable: {errors}"


def luminance(css_color):
    """The relative luminance (0 black, 1 white) of an `rgb(r, g, b)` computed colour."""
    channels = [int(part) / 255 for part in css_color[css_color.index("(") + 1:css_color.index(")")].split(",")[:3]]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def scenario_dark_mode(driver):
    """The page follows the system's dark mode and reduced motion (emulated by the DevTools
    protocol): dark paper, light ink, the cards dark too; no transition runs."""
    features = [{"name": "prefers-color-scheme", "value": "dark"}, {"name": "prefers-reduced-motion", "value": "reduce"}]
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": features})
    try:
        driver.get(URL + "/?q=%E3%83%81%E3%83%BC%E3%82%BA&category=%E6%B4%8B%E9%A3%9F")
        wait(driver, "the search in dark mode", lambda d: len(cards(d)) == 3)
        style = "return getComputedStyle(document.querySelector(arguments[0]))[arguments[1]]"
        paper = luminance(driver.execute_script(style, "body", "backgroundColor"))
        ink = luminance(driver.execute_script(style, "body", "color"))
        card = luminance(driver.execute_script(style, ".card", "backgroundColor"))
        assert paper < 0.05 and card < 0.05 and ink > 0.7, f"dark mode: paper {paper:.3f}, card {card:.3f}, ink {ink:.3f}"
        assert (ink + 0.05) / (paper + 0.05) >= 7, "the text's contrast in dark mode is below 7:1"
        transition = driver.execute_script(style, ".heart button", "transitionDuration")
        assert transition in ("0s", ""), f"a transition runs under reduced motion: {transition}"
        shot(driver, "search-dark-phone")
    finally:
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    driver.get(URL + "/?q=%E3%83%81%E3%83%BC%E3%82%BA&category=%E6%B4%8B%E9%A3%9F")
    wait(driver, "the search in light mode", lambda d: len(cards(d)) == 3)
    light = luminance(driver.execute_script("return getComputedStyle(document.body).backgroundColor"))
    assert light > 0.9, f"light mode again once the emulation ends: {light:.3f}"
    moving = driver.execute_script("return getComputedStyle(document.querySelector('.heart button')).transitionDuration")
    assert moving not in ("0s", ""), f"without reduced motion a heart's press moves: {moving}"


def axe_violations(driver, where):
    """What axe-core finds on the page open, by rule and element, for `where`."""
    axe = Axe(driver)
    axe.inject()
    results = axe.run()
    return [f"{where}: {v['id']} ({v['impact']}) at {', '.join(str(n['target']) for n in v['nodes'][:3])}"
            for v in results["violations"]]


def scenario_accessibility(driver):
    """axe-core finds nothing on the search, the favorites and the sign-in screens, at a
    phone's width and a desktop's, in light and dark mode; and at 200 % zoom (half the
    width in CSS pixels) nothing is wider than the screen."""
    found = []
    for width, height in ((390, 844), (1280, 900)):
        driver.set_window_size(width, height)
        for scheme in ("light", "dark"):
            driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
            for path, ready in (("/?q=%E3%83%81%E3%83%BC%E3%82%BA", lambda d: len(cards(d)) >= 3), ("/favorites", lambda d: len(cards(d)) >= 1)):
                driver.get(URL + path)
                wait(driver, f"{path} at {width} px", ready)
                found += axe_violations(driver, f"{path} at {width} px, {scheme}")
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    # The sign-in screen, as a browser without a session sees it.
    link = os.environ["WEB_ZOOM_LINK"]
    cookies = driver.get_cookies()
    driver.delete_all_cookies()
    for width, height in ((390, 844), (1280, 900)):
        driver.set_window_size(width, height)
        driver.get(link)
        wait(driver, "the sign-in screen", lambda d: d.find_elements(By.ID, "sign-in"))
        found += axe_violations(driver, f"/signin at {width} px")
    for cookie in cookies:
        driver.add_cookie(cookie)
    assert not found, "axe-core found: " + "; ".join(found)
    # 200 % zoom: a layout viewport of half the screen's width in CSS pixels (the phone's
    # 390 px are 195, the desktop's 1280 are 640), each pixel drawn twice as large.
    try:
        for width, height in ((390, 844), (1280, 900)):
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width // 2, "height": height // 2, "deviceScaleFactor": 2, "mobile": False})
            driver.get(URL + "/?q=%E3%83%81%E3%83%BC%E3%82%BA")
            wait(driver, f"the search at 200 % of {width} px", lambda d: len(cards(d)) >= 3)
            overflow = driver.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
            wide = driver.execute_script(
                "return [document.documentElement.clientWidth, window.innerWidth].concat(Array.from(document.querySelectorAll('body *'))"
                ".filter(e => !e.closest('.chips') && e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)"
                ".slice(0, 6).map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right)))")
            assert overflow <= 0, f"at 200 % of {width} px the page is {overflow} CSS px wider than the screen: {wide}"
            click(driver, ".card .heart button")
            wait(driver, f"a heart pressed at 200 % of {width} px", lambda d: d.find_elements(By.CSS_SELECTOR, ".card .heart button[aria-pressed]"))
            if width == 390:
                shot(driver, "search-phone-200-percent")
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def scenario_offline(driver):
    """Once the service worker controls the page, the screens seen are kept: with the network
    cut (the DevTools protocol, the page's and the worker's), the last search and the
    favorites show, marked offline, and a search never made shows the last one; the network
    back, the page is live again. Then the same with the server not answering at all
    (stopped with SIGSTOP: a connection made, no answer), which the worker gives 4 s."""
    search = URL + "/?q=%E3%83%81%E3%83%BC%E3%82%BA&category=%E6%B4%8B%E9%A3%9F"
    driver.set_window_size(390, 844)
    driver.get(search)
    wait(driver, "the service worker in control",
         lambda d: d.execute_script("return !!(navigator.serviceWorker && navigator.serviceWorker.controller)"))
    driver.get(URL + "/favorites")
    wait(driver, "the favorites", lambda d: len(cards(d)) >= 1)
    favorites = cards(driver)
    driver.get(search)
    wait(driver, "the search", lambda d: [i for i, _ in cards(d)] == [17, 21, 33])
    def offline_state(d):
        return d.find_element(By.ID, "sync-state").get_attribute("data-state") == "offline"

    def kept_screens(how):
        driver.get(search)
        wait(driver, f"the kept search, offline ({how})", lambda d: [i for i, _ in cards(d)] == [17, 21, 33] and offline_state(d))
        driver.get(URL + "/favorites")
        wait(driver, f"the kept favorites, offline ({how})", lambda d: cards(d) == favorites and offline_state(d))
        driver.get(URL + "/?q=never-searched-here")
        wait(driver, f"the last search instead of one never made ({how})",
             lambda d: [i for i, _ in cards(d)] == [17, 21, 33] and offline_state(d))

    assert network(driver, online=False) == 1, "the page's service worker, to cut its network too"
    try:
        kept_screens("the network cut")
        driver.get(search)
        wait(driver, "the kept search, offline", lambda d: offline_state(d))
        shot(driver, "search-offline-phone")
    finally:
        network(driver, online=True)
    driver.get(search)
    wait(driver, "live again", lambda d: d.find_element(By.ID, "sync-state").get_attribute("data-state") == "live")
    pid = int(os.environ["WEB_SERVER_PID"])
    os.kill(pid, signal.SIGSTOP)
    try:
        kept_screens("the server not answering")
    finally:
        os.kill(pid, signal.SIGCONT)
    driver.get(search)
    wait(driver, "live again", lambda d: d.find_element(By.ID, "sync-state").get_attribute("data-state") == "live")


WORKER_SESSIONS = {}


def network(driver, online):
    """Cuts or restores the network of the page and of its service worker, through the
    DevTools protocol's emulation: their requests fail at once, and the browser says it is
    offline. The page's emulation does not reach the worker, a target of its own (its
    fetches, and a request the page makes through it, would still reach the server): the
    worker's is set through a session attached to it (`Target.sendMessageToTarget`, all
    Selenium's `execute_cdp_cmd` offers for another target). A browser that no longer has it
    fails this, never skips it."""
    conditions = {"offline": not online, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", conditions)
    workers = [t for t in driver.execute_cdp_cmd("Target.getTargets", {})["targetInfos"]
               if t["type"] == "service_worker" and t["url"].startswith(URL + "/")]
    for worker in workers:
        # One session a worker and tab, kept: the emulation is a session's, so a second
        # session turning it off would leave the first one's on. (A session goes with the
        # tab whose connection attached it, and its emulation with it.)
        key = (driver.current_window_handle, worker["targetId"])
        if key not in WORKER_SESSIONS:
            WORKER_SESSIONS[key] = driver.execute_cdp_cmd("Target.attachToTarget", {"targetId": worker["targetId"], "flatten": False})["sessionId"]
        session = WORKER_SESSIONS[key]
        for number, (method, parameters) in enumerate((("Network.enable", {}), ("Network.emulateNetworkConditions", conditions))):
            message = json.dumps({"id": number + 1, "method": method, "params": parameters})
            driver.execute_cdp_cmd("Target.sendMessageToTarget", {"sessionId": session, "message": message})
    return len(workers)


def waiting_hearts(driver):
    """The dishes whose heart waits to be sent, as the page marks them."""
    return {int(b.get_attribute("data-id")) for b in driver.find_elements(By.CSS_SELECTOR, ".card")
            if b.find_elements(By.CSS_SELECTOR, ".heart button[data-pending='true']")}


def kept_hearts(driver):
    """What the browser keeps in IndexedDB: [id, keep, made, refused] of each kept heart."""
    return driver.execute_async_script("""
        const done = arguments[0];
        const opening = indexedDB.open("favorite-archive", 1);
        opening.onupgradeneeded = function () { opening.result.createObjectStore("hearts", { keyPath: "id" }); };
        opening.onsuccess = function () {
          const reading = opening.result.transaction("hearts").objectStore("hearts").getAll();
          reading.onsuccess = function () { opening.result.close(); done(reading.result.map(h => [h.id, h.keep, h.made, h.refused])); };
        };
        opening.onerror = function () { done("cannot open: " + opening.error); };""")


def shows_kept(driver, ids):
    """Whether the browser keeps un-hearts of `ids` (and nothing else), and the page shows
    each of them waiting, un-hearted."""
    kept = kept_hearts(driver)
    if sorted((h[0], h[1], h[3]) for h in kept) != [(i, False, None) for i in sorted(ids)]:
        return False
    shown = {i: stored for i, stored in cards(driver) if i in ids}
    return set(shown) == set(ids) and not any(shown.values()) and waiting_hearts(driver) == set(ids)


def dish_names(driver, ids):
    return {i: driver.find_element(By.CSS_SELECTOR, f".card[data-id='{i}'] .dish").text for i in ids}


def scenario_offline_hearts(driver):
    """Hearts made with the network cut (the DevTools protocol, the page's and its worker's)
    are kept in the browser, survive
    a reload and a closed tab, and are sent when the network returns, each merging at the time
    it was made: a CLI device's change made after the offline heart wins (41), one made before
    it loses (44), though both reached the server before the hearts did. A heart the server
    refuses (made 40 days ago) is shown refused, kept across a reload, and goes only when the
    user tries it again (then it is made now) or dismisses it."""
    driver.set_window_size(390, 844)
    archive("add", "41")
    archive("add", "44")
    archive("sync", "--server", URL)
    driver.get(URL + "/favorites")
    wait(driver, "41 and 44 among the favorites", lambda d: {(41, True), (44, True)} <= set(cards(d)))
    names = dish_names(driver, (41, 44))
    # The CLI device stores 44 again: a change made before the offline hearts (not sent yet).
    archive("add", "44")
    assert network(driver, online=False) == 1, "the page's service worker, to cut its network too"
    try:
        assert driver.execute_script("return navigator.onLine") is False, "the page knows it is offline"
        click(driver, ".card[data-id='41'] .heart button")
        wait(driver, "41 waiting", lambda d: waiting_hearts(d) == {41})
        click(driver, ".card[data-id='44'] .heart button")
        wait(driver, "both hearts waiting", lambda d: waiting_hearts(d) == {41, 44} and {(41, False), (44, False)} <= set(cards(d)))
        wait(driver, "the page says two wait, offline", lambda d: "2 hearts are kept" in d.find_element(By.ID, "unsent").text
             and d.find_element(By.ID, "sync-state").get_attribute("data-state") == "offline")
        shot(driver, "favorites-hearts-waiting-phone")
        # A reload keeps them (the screen from the worker's store, the hearts from IndexedDB).
        driver.refresh()
        wait(driver, "both still waiting after a reload", lambda d: shows_kept(d, {41, 44}),
             state=lambda d: (waiting_hearts(d), cards(d), kept_hearts(d)))
        # So does closing the tab: a new one shows them waiting.
        old = driver.current_window_handle
        driver.switch_to.new_window("tab")
        # A page of the site first: the emulation holds for the tab's later pages of it.
        driver.get(URL + "/health")
        network(driver, online=False)
        new = driver.current_window_handle
        driver.switch_to.window(old)
        driver.close()
        driver.switch_to.window(new)
        driver.get(URL + "/favorites")
        wait(driver, "both waiting in a new tab", lambda d: shows_kept(d, {41, 44}), state=lambda d: (waiting_hearts(d), cards(d), kept_hearts(d)))
        # The CLI device stores 41 again, after the offline hearts, and syncs first.
        archive("add", "41")
        archive("sync", "--server", URL)
    finally:
        network(driver, online=True)
    # The favorites screen, read again once the kept hearts went out, no longer lists 44.
    wait(driver, "the hearts sent and merged", lambda d: not waiting_hearts(d) and (41, True) in cards(d) and (44, True) not in cards(d),
         state=lambda d: (waiting_hearts(d), cards(d), kept_hearts(d), d.find_element(By.ID, "unsent").text))
    assert kept_hearts(driver) == [], "the sent hearts are no longer kept"
    archive("sync", "--server", URL)
    listed = archive("favorites")
    assert names[41] in listed and names[44] not in listed, f"the CLI device holds 41 (its later change) and not 44 (the later heart): {listed}"
    # Refused: two hearts made 40 days ago (as a tab left open a month would send them).
    driver.execute_async_script("""
        const done = arguments[0];
        const opening = indexedDB.open("favorite-archive", 1);
        opening.onsuccess = function () {
          const transaction = opening.result.transaction("hearts", "readwrite");
          const made = Date.now() - 40 * 86400000;
          transaction.objectStore("hearts").put({ id: 50, keep: true, name: "<b>old</b> 50", made: made, refused: null });
          transaction.objectStore("hearts").put({ id: 51, keep: true, name: "old 51", made: made, refused: null });
          transaction.oncomplete = function () { opening.result.close(); done(); };
        };""")
    driver.get(URL + "/favorites")
    wait(driver, "both shown refused", lambda d: len(d.find_elements(By.CSS_SELECTOR, "#unsent li.refused")) == 2)
    text = driver.find_element(By.ID, "unsent").text
    assert "Not saved" in text and "more than 30" in text and "<b>old</b> 50" in text, f"the refusal, its reason, the name as text: {text}"
    shot(driver, "favorites-heart-refused-phone")
    found = axe_violations(driver, "/favorites with refused hearts")
    assert not found, "axe-core found: " + "; ".join(found)
    driver.refresh()
    wait(driver, "still refused after a reload", lambda d: len(d.find_elements(By.CSS_SELECTOR, "#unsent li.refused")) == 2)
    click(driver, "#unsent li.refused[data-id='51'] button.dismiss")
    click(driver, "#unsent li.refused[data-id='50'] button.again")
    wait(driver, "nothing kept", lambda d: kept_hearts(d) == [] and d.find_element(By.ID, "unsent").get_attribute("hidden") is not None)
    driver.get(URL + "/favorites")
    wait(driver, "50, tried again, is a favorite; 51, dismissed, is not", lambda d: (50, True) in cards(d) and 51 not in {i for i, _ in cards(d)})


def scenario_sign_out_clears(driver):
    """Signing out clears what the browser kept: the screens, the shell, the worker, the
    hearts' store."""
    driver.get(URL + "/")
    wait(driver, "the page", lambda d: d.find_elements(By.CSS_SELECTOR, "form.signout button"))
    kept = driver.execute_async_script("const done = arguments[0]; caches.keys().then(done)")
    assert kept, "the service worker kept nothing before signing out"
    stores = driver.execute_async_script("const done = arguments[0]; indexedDB.databases().then(d => done(d.map(x => x.name)))")
    assert "favorite-archive" in stores, f"the hearts' store before signing out: {stores}"
    driver.find_element(By.CSS_SELECTOR, "form.signout button").click()
    wait(driver, "signed out", lambda d: "Not signed in" in d.find_element(By.TAG_NAME, "h1").text)
    wait(driver, "nothing kept", lambda d: d.execute_async_script("const done = arguments[0]; caches.keys().then(done)") == [])
    wait(driver, "no worker", lambda d: d.execute_async_script(
        "const done = arguments[0]; navigator.serviceWorker.getRegistrations().then(function (r) { done(r.length); })") == 0)
    wait(driver, "no hearts' store", lambda d: d.execute_async_script(
        "const done = arguments[0]; indexedDB.databases().then(d => done(d.map(x => x.name)))") == [])


def scenario_refused_links(driver):
    for name in ("WEB_USED_LINK", "WEB_OLD_LINK"):
        driver.delete_all_cookies()
        # Refused as the page opens (its target is looked up), with no button to press.
        driver.get(os.environ[name])
        wait(driver, f"{name} refused", lambda d: "This link does not sign in" in d.find_element(By.TAG_NAME, "h1").text)
        assert not driver.find_elements(By.ID, "sign-in"), f"{name}: a refused link still offers to sign in"
        assert not driver.get_cookie("fa_session"), f"{name} gave no session"
        driver.get(URL + "/")
        assert "Not signed in" in driver.find_element(By.TAG_NAME, "h1").text


def open_stream(cookie):
    """An event stream of the page's session on a socket of its own, once answered 200."""
    address = URL.split("://", 1)[1]
    host, port = address.rsplit(":", 1)
    connection = socket.create_connection((host.strip("[]"), int(port)), timeout=WAIT)
    connection.sendall(f"GET /web/events HTTP/1.1\r\nHost: {address}\r\nCookie: fa_session={cookie}\r\n\r\n".encode())
    head = connection.recv(4096).decode(errors="replace")
    assert head.startswith("HTTP/1.1 200"), f"a stream of the session: {head[:200]}"
    return connection


def scenario_stream_refused_then_reopened(driver):
    """A page that finds the user's 8 streams taken (429) tries again by itself, with
    backoff, and is live once one is freed: Chromium's EventSource does not retry after an
    error status on its own. What a device pushed meanwhile shows once it is."""
    driver.get(URL + "/favorites")
    wait(driver, "the Favorites screen", lambda d: d.find_elements(By.ID, "main"))
    cookie = driver.get_cookie("fa_session")["value"]
    driver.get("about:blank")  # its stream closes, and frees its slot at once
    streams = [open_stream(cookie) for _ in range(8)]
    try:
        driver.get(URL + "/favorites")
        wait(driver, "the page refused its stream", lambda d: d.find_element(By.ID, "sync-state").get_attribute("data-state") == "offline")
        # A push while the page hears nothing: shown once its stream opens (the page reads
        # itself again after a gap), with no event about it.
        archive("add", "5")
        archive("sync", "--server", URL)
        assert (5, True) not in cards(driver), "the page showed 5 without a stream"
        streams.pop().close()
        wait(driver, "the page live again by itself", lambda d: d.find_element(By.ID, "sync-state").get_attribute("data-state") == "live")
        wait(driver, "the push made during the gap", lambda d: (5, True) in cards(d))
    finally:
        for stream in streams:
            stream.close()


def chromium_leftovers():
    """The folders chromium makes in the temporary directory (it leaves its singleton
    socket's behind after it quits)."""
    directory = tempfile.gettempdir()
    return {os.path.join(directory, name) for name in os.listdir(directory) if name.startswith("org.chromium.Chromium.")}


def main():
    failures = []
    before = chromium_leftovers()
    driver = browser(390, 844)
    try:
        for scenario in (scenario_search_heart_sync, scenario_favorites_and_hostile_text, scenario_installable, scenario_dark_mode,
                         scenario_desktop, scenario_accessibility, scenario_stream_refused_then_reopened, scenario_offline,
                         scenario_offline_hearts, scenario_sign_out_clears, scenario_refused_links):
            if ONLY and scenario.__name__ not in ONLY and scenario is not scenario_search_heart_sync:
                continue
            try:
                scenario(driver)
                print(f"passed: {scenario.__name__}")
            except Exception as error:  # noqa: BLE001 - every scenario is reported
                # Where in this file it failed (a driver's message does not say).
                lines = [f"line {frame.lineno}" for frame in traceback.extract_tb(error.__traceback__) if frame.filename == __file__]
                failures.append(f"{scenario.__name__} ({', '.join(lines)}): {error}")
                shot(driver, "failed-" + scenario.__name__)
    finally:
        driver.quit()
        for folder in chromium_leftovers() - before:
            shutil.rmtree(folder, ignore_errors=True)
    for failure in failures:
        print("FAILED " + failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
