#!/usr/bin/python3
"""The web page on a slow phone: largest contentful paint and a heart's tap, in Chromium.

    /usr/bin/python3 Benchmarks/web/page_timings.py SERVER [--into BENCHMARKS.md] [--smoke]

SERVER is an archive-server binary (a release build for figures). Debian's chromium and
python3-selenium (what BrowserTests uses) run the page headless, its network and CPU
emulated through the DevTools protocol at a slow phone's: 150 ms round trip, 1.6 Mbit/s down,
750 kbit/s up, the CPU 4x slower (Lighthouse's mobile profile). Two configurations in the
same run, each in a browser of its own (an empty cache at its start):

  as served     the page as archive-server serves it: gzip when asked, the script and the
                stylesheet at fingerprinted addresses kept a year (immutable);
  plain         the same server, the browser asking for no compression (Accept-Encoding:
                identity) and keeping nothing (the DevTools protocol's cache disabled).

The service worker is bypassed in both: the DevTools protocol's emulation does not slow the
worker's own requests, and the worker would answer from what it kept at once (docs/WEB.md).
Each configuration opens the search screen (/?q=チーズ, signed in) ROUNDS times: the first
open is a first visit, the later ones a return; for each, the largest contentful paint
(PerformanceObserver) and the bytes that crossed the network (Resource Timing's
transferSize); then it taps a heart and times the tap to its new state on screen (the page
shows it at once, kept in the browser) and to the server's answer (the button no longer
waiting). Medians of the rounds.

--into replaces the page's section of BENCHMARKS.md; without it the section is printed.
--smoke: one round each (CI: that it runs).
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import urllib.parse

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

BEGIN, END = "<!-- web: begin (Benchmarks/web/page_timings.py) -->", "<!-- web: end -->"
PROFILE = {"offline": False, "latency": 150, "downloadThroughput": 1_600_000 / 8, "uploadThroughput": 750_000 / 8}
CPU_SLOWDOWN = 4
SEARCH = "/?q=" + urllib.parse.quote("チーズ")


def chromium_leftovers():
    """The folders chromium makes in the temporary directory and leaves after it quits."""
    directory = tempfile.gettempdir()
    return {os.path.join(directory, name) for name in os.listdir(directory) if name.startswith("org.chromium.Chromium.")}


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=390,844",
                     "--lang=ja", "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(executable_path=os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")), options=options)
    driver.set_page_load_timeout(120)
    driver.set_script_timeout(90)
    return driver


def sign_in(driver, server, database, url, label):
    link = subprocess.run([server, "devices", "link", "alice", label, "--public-url", url, "--database", database],
                          capture_output=True, text=True, check=True).stdout.strip()
    driver.get(link)
    driver.find_element(By.ID, "sign-in").click()
    WebDriverWait(driver, 60).until(lambda d: d.find_elements(By.ID, "main"))


def measure(driver, url, plain, rounds):
    """[(lcp ms, bytes on the wire, tap-to-shown ms, tap-to-answered ms)] of `rounds` opens."""
    driver.execute_cdp_cmd("Network.enable", {})
    # Signing in opened a page: its script and stylesheet leave, so that the first open is a
    # first visit's.
    driver.execute_cdp_cmd("Network.clearBrowserCache", {})
    driver.execute_cdp_cmd("Network.setBypassServiceWorker", {"bypass": True})
    if plain:
        driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
        driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"Accept-Encoding": "identity"}})
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", PROFILE)
    driver.execute_cdp_cmd("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN})
    results = []
    for _ in range(rounds):
        driver.get("about:blank")
        driver.get(url + SEARCH)
        WebDriverWait(driver, 120).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#results .card")) >= 3)
        lcp = driver.execute_async_script("""
            const done = arguments[0];
            new PerformanceObserver(function (list) { const all = list.getEntries(); done(all[all.length - 1].startTime); })
              .observe({ type: "largest-contentful-paint", buffered: true });""")
        wire = driver.execute_script("""
            return performance.getEntriesByType("navigation").concat(performance.getEntriesByType("resource"))
              .reduce(function (sum, entry) { return sum + (entry.transferSize || 0); }, 0);""")
        encodings = driver.execute_script("""
            const page = performance.getEntriesByType("navigation")[0];
            return [page.encodedBodySize, page.decodedBodySize];""")
        if plain and encodings[0] < encodings[1]:
            sys.exit("the plain configuration still received a compressed page: %s" % encodings)
        if not plain and encodings[0] >= encodings[1]:
            sys.exit("the page as served was not compressed: %s" % encodings)
        tap = driver.execute_async_script("""
            const done = arguments[0];
            // Found again at each change: the event stream's news of the heart itself may
            // redraw the results.
            const id = document.querySelector("#results .card").dataset.id;
            const button = function () { return document.querySelector('#results .card[data-id="' + id + '"] .heart button'); };
            const before = button().getAttribute("aria-pressed");
            const start = performance.now();
            let shown = null;
            const watch = new MutationObserver(function () {
              const now = button();
              if (!now) return;
              if (shown === null && now.getAttribute("aria-pressed") !== before) shown = performance.now() - start;
              if (shown !== null && now.dataset.pending !== "true") { watch.disconnect(); done([shown, performance.now() - start]); }
            });
            watch.observe(document.getElementById("main"), { attributes: true, childList: true, subtree: true });
            button().click();
            setTimeout(function () { watch.disconnect(); done(null); }, 50000);""")
        if tap is None:
            sys.exit("a heart's tap did not reach its new state within a minute")
        results.append((lcp, wire, tap[0], tap[1]))
    return results


def median(rows, index):
    return statistics.median(row[index] for row in rows)


def section(measured, rounds):
    out = [BEGIN, "", "## The web page on a slow phone", "",
           "`archive-server` (release) serving the search screen (`/?q=チーズ`, 3 dishes of the 66) to headless Chromium with a "
           "slow phone's network and CPU emulated through the DevTools protocol (150 ms round trip, 1.6 Mbit/s down, "
           "750 kbit/s up, CPU 4× slower), the service worker bypassed (the emulation does not slow its requests). "
           "*As served*: gzip and immutable fingerprinted assets; *plain*: no compression asked, nothing cached. "
           "Each configuration opens it %d times: the first open of a fresh browser, then returns (their medians); "
           "the taps are the medians of all (`Benchmarks/web/page_timings.py`)." % rounds, "",
           "| configuration | first visit: LCP | bytes on the wire | return: LCP | bytes on the wire | tap → shown | tap → answered |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    for name, rows in measured:
        first, later = rows[:1], rows[1:] or rows[:1]
        out.append("| %s | %.0f ms | %s | %.0f ms | %s | %.0f ms | %.0f ms |" % (
            name, median(first, 0), "{:,}".format(int(median(first, 1))), median(later, 0), "{:,}".format(int(median(later, 1))),
            median(rows, 2), median(rows, 3)))
    served, plain = measured[0][1], measured[1][1]
    out += ["", "As served ÷ plain: first-visit LCP %.2f×, return LCP %.2f×, bytes on a return %.2f×. A tap shows at once "
            "(the heart is kept in the browser before it is sent); the answer takes a round trip and the server's merge." % (
                median(served[:1], 0) / median(plain[:1], 0), median(served[1:] or served, 0) / median(plain[1:] or plain, 0),
                median(served[1:] or served, 1) / median(plain[1:] or plain, 1)), "", END]
    return "\n".join(out)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    smoke = "--smoke" in sys.argv
    into = sys.argv[sys.argv.index("--into") + 1] if "--into" in sys.argv else None
    if into in args:
        args.remove(into)
    if len(args) != 1:
        sys.exit(__doc__)
    server = args[0]
    rounds = 1 if smoke else 7
    directory = tempfile.mkdtemp(prefix="page-timings-")
    database = os.path.join(directory, "server.sqlite3")
    subprocess.run([server, "users", "add", "alice", "--database", database], capture_output=True, text=True, check=True)
    process = subprocess.Popen([server, "--database", database, "--port", "0", "--log-level", "warning"], stdout=subprocess.PIPE, text=True)
    measured = []
    before = chromium_leftovers()
    try:
        url = process.stdout.readline().strip()
        for name, plain in (("as served", False), ("plain", True)):
            driver = browser()
            try:
                sign_in(driver, server, database, url, "phone-" + ("plain" if plain else "served"))
                measured.append((name, measure(driver, url, plain, rounds)))
            finally:
                driver.quit()
    finally:
        process.terminate()
        process.wait()
        shutil.rmtree(directory, ignore_errors=True)
        for folder in chromium_leftovers() - before:
            shutil.rmtree(folder, ignore_errors=True)
    text = section(measured, rounds)
    if smoke or into is None:
        print(text)
        return
    with open(into) as file:
        document = file.read()
    if BEGIN in document and END in document:
        document = document[:document.index(BEGIN)] + text + document[document.index(END) + len(END):]
    else:
        document = document.rstrip("\n") + "\n\n" + text + "\n"
    with open(into, "w") as file:
        file.write(document)
    print("web: wrote the page's section of %s" % into)


if __name__ == "__main__":
    main()
