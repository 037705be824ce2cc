import ArchiveSyncModel
import Crypto

/// The page's stylesheet and its one script, compiled into the binary and served from
/// `/web/` (the Content-Security-Policy allows scripts and styles from the page's own origin
/// only: no inline script runs, whatever a dish's name holds).
///
/// The script is written by hand, with no build step (this project's machines reach
/// Debian's packages and PyPI only, no npm): it searches as the user pauses, toggles hearts
/// without reloading (each kept in IndexedDB until the server took it, docs/WEB.md "Hearts
/// made offline"), replaces photos that do not load, and listens to the event stream.
/// Without it the page still works: the search form submits, each heart is a form.
enum WebAssets {
    /// The stylesheet's address: `/web/app.FINGERPRINT.css`, its text's fingerprint in the
    /// name, so that a changed stylesheet has a new address and browsers may keep each one
    /// for ever (``immutable``). `/web/app.css` still answers, never kept, for pages of older
    /// servers still open.
    static let stylesheetPath = "/web/app.\(fingerprint(of: stylesheet)).css"
    /// The script's address, `/web/app.FINGERPRINT.js`, as ``stylesheetPath``'s.
    static let scriptPath = "/web/app.\(fingerprint(of: script)).js"
    /// How long a browser keeps an asset at a fingerprinted address: a year, without asking
    /// again (the address changes with the text).
    static let immutable = "public, max-age=31536000, immutable"

    /// The web app manifest's address (`application/manifest+json`).
    static let manifestPath = "/web/manifest.webmanifest"
    /// The web app manifest: what a phone needs to put the page on its home screen as an
    /// app of its own (name, icons, colours, a window without the browser's bars).
    static let manifest = """
        {"name":"FavoriteArchive","short_name":"Archive","description":"Search dishes and keep your favorites.",\
        "start_url":"/","scope":"/","display":"standalone","background_color":"#fffdfb","theme_color":"#d2335c","lang":"ja",\
        "icons":[\(AppIcon.sizes.map { #"{"src":"\#(AppIcon.path(size: $0))","sizes":"\#($0)x\#($0)","type":"image/png","purpose":"any maskable"}"# }.joined(separator: ","))]}
        """

    /// The service worker's address: at the root, so that its scope is the whole page.
    static let serviceWorkerPath = "/sw.js"
    /// The service worker (hand-written, no build step): the page's shell (stylesheet, script,
    /// manifest, icons) kept at install; each screen the browser opens kept as it arrives, the
    /// last search besides, and shown, marked offline, when the network does not answer within
    /// 4 s. Changes (hearts, sign-in, sign-out), the event stream and other origins pass by.
    /// Signing out clears all of it (`Clear-Site-Data`). Its text names the fingerprinted
    /// assets, so a new stylesheet or script is a new worker, which drops the old shell.
    static let serviceWorker = """
        "use strict";
        const SHELL = "fa-shell-\(fingerprint(of: stylesheetPath + scriptPath))";
        const PAGES = "fa-pages";
        const ASSETS = [\([stylesheetPath, scriptPath, manifestPath] .map { "\"\($0)\"" }.joined(separator: ", ")), \(AppIcon.sizes.map { "\"\(AppIcon.path(size: $0))\"" }.joined(separator: ", "))];
        const LAST_SEARCH = "/?last-search";
        self.addEventListener("install", function (event) {
          event.waitUntil(caches.open(SHELL).then(function (cache) { return cache.addAll(ASSETS); }).then(function () { return self.skipWaiting(); }));
        });
        self.addEventListener("activate", function (event) {
          event.waitUntil(caches.keys().then(function (keys) {
            return Promise.all(keys.filter(function (key) { return key.indexOf("fa-shell-") === 0 && key !== SHELL; }).map(function (key) { return caches.delete(key); }));
          }).then(function () { return self.clients.claim(); }));
        });
        function within(milliseconds, promise) {
          return Promise.race([promise, new Promise(function (_, reject) { setTimeout(function () { reject(new Error("no answer")); }, milliseconds); })]);
        }
        async function offline(request, url) {
          const pages = await caches.open(PAGES);
          const kept = await pages.match(request) || (url.pathname === "/" ? await pages.match(LAST_SEARCH) : undefined);
          if (!kept) {
            return new Response("<!doctype html><html lang=\\"ja\\"><meta charset=\\"utf-8\\"><title>Offline · FavoriteArchive</title><h1>Offline</h1><p>This page was not kept on this device. It opens again once the network is back.</p>",
              { status: 503, headers: { "Content-Type": "text/html; charset=utf-8" } });
          }
          const html = (await kept.text()).replace('id="sync-state" data-state="page"', 'id="sync-state" data-state="offline"');
          return new Response(html, { status: 200, headers: { "Content-Type": "text/html; charset=utf-8" } });
        }
        async function page(request, url) {
          try {
            const answer = await within(4000, fetch(request));
            if (answer.ok && (answer.headers.get("Content-Type") || "").indexOf("text/html") === 0) {
              const pages = await caches.open(PAGES);
              await pages.put(request, answer.clone());
              if (url.pathname === "/") await pages.put(LAST_SEARCH, answer.clone());
            }
            return answer;
          } catch (error) {
            return offline(request, url);
          }
        }
        self.addEventListener("fetch", function (event) {
          const request = event.request, url = new URL(request.url);
          if (request.method !== "GET" || url.origin !== self.location.origin) return;
          if (request.mode === "navigate" && (url.pathname === "/" || url.pathname === "/favorites")) {
            event.respondWith(page(request, url));
          } else if (ASSETS.indexOf(url.pathname) >= 0) {
            event.respondWith(caches.match(request).then(function (kept) { return kept || fetch(request); }));
          }
        });
        """

    /// The first 12 hexadecimal digits of `text`'s SHA-256.
    static func fingerprint(of text: String) -> String {
        Hex.encode(Array(SHA256.hash(data: Array(text.utf8)).prefix(6)))
    }

    static let stylesheet = #"""
        :root { color-scheme: light dark; --ink: #1d1b19; --muted: #6b645d; --line: #e6e0da; --accent: #d2335c; --on-accent: #fff; --paper: #fffdfb; --chip: #f3eee9;
          --card: #fff; --field: #bdb4ab; --mark: #ffe08a; --heart: #c9bfb6; --pressed: #fff0f3; --focus: #2f6fde; --live: #1a7f43; --idle: #8a8077; }
        @media (prefers-color-scheme: dark) {
          :root { --ink: #f2ede8; --muted: #b8afa6; --line: #3d3834; --accent: #ff7096; --on-accent: #240a12; --paper: #171513; --chip: #2b2724;
                  --card: #211e1b; --field: #6a615a; --mark: #6e5500; --heart: #7a7068; --pressed: #3d1d27; --focus: #86adff; --live: #63d391; --idle: #a39a91; }
        }
        @media (prefers-reduced-motion: reduce) {
          *, *::before, *::after { animation: none !important; transition: none !important; scroll-behavior: auto !important; }
        }
        * { box-sizing: border-box; }
        body { margin: 0; font: 16px/1.45 system-ui, "Noto Sans CJK JP", "Hiragino Sans", "Yu Gothic", sans-serif; color: var(--ink); background: var(--paper); }
        .skip { position: absolute; left: -999px; } .skip:focus { left: 8px; top: 8px; background: var(--card); padding: 4px 8px; z-index: 2; }
        .bar { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 14px; padding: 10px 14px; border-bottom: 1px solid var(--line); position: sticky; top: 0; background: var(--paper); z-index: 1; }
        .brand { margin: 0; font-weight: 700; }
        .tabs { display: flex; gap: 4px; }
        .tabs a { padding: 6px 12px; border-radius: 999px; color: var(--ink); text-decoration: none; }
        .tabs a[aria-current="page"] { background: var(--ink); color: var(--paper); }
        .sync { margin: 0; font-size: 13px; color: var(--muted); flex: 1 1 12em; }
        #sync-state[data-state="live"]::before { content: "● live · "; color: var(--live); }
        #sync-state[data-state="offline"]::before { content: "○ offline · "; color: var(--idle); }
        .signout button { font-size: 13px; }
        main { padding: 12px 14px 40px; max-width: 920px; margin: 0 auto; }
        main.narrow { max-width: 520px; }
        .search h1 { font-size: inherit; margin: 0; }
        .search label { display: block; font-weight: 600; margin-bottom: 4px; }
        .field { display: flex; gap: 8px; }
        input[type=search] { flex: 1; min-width: 0; font: inherit; padding: 8px 10px; border: 1px solid var(--field); border-radius: 8px; background: var(--card); color: var(--ink); }
        button { font: inherit; padding: 8px 12px; border: 1px solid var(--field); border-radius: 8px; background: var(--card); color: var(--ink); cursor: pointer; }
        :focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
        .chips { display: flex; gap: 6px; overflow-x: auto; padding: 10px 0; scrollbar-width: none; }
        .chip { white-space: nowrap; padding: 5px 12px; border-radius: 999px; background: var(--chip); color: var(--ink); text-decoration: none; }
        .chip[aria-current="true"] { background: var(--accent); color: var(--on-accent); }
        .count { color: var(--muted); font-size: 14px; margin: 4px 0 8px; }
        .cards { list-style: none; margin: 0; padding: 0; display: grid; gap: 10px; grid-template-columns: 1fr; }
        @media (min-width: 720px) { .cards { grid-template-columns: 1fr 1fr; } }
        .card { display: grid; grid-template-columns: 88px 1fr auto; gap: 12px; align-items: center; padding: 10px; border: 1px solid var(--line); border-radius: 12px; background: var(--card); }
        .photo { width: 88px; height: 88px; border-radius: 10px; overflow: hidden; background: var(--chip) center / 40px no-repeat url("data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 24 24'%3E%3Cpath fill='%23b8aea4' d='M4 5h16v14H4zm2 2v8l4-4 3 3 2-2 3 3V7z'/%3E%3C/svg%3E"); }
        .photo img { width: 100%; height: 100%; object-fit: cover; display: block; }
        .photo.missing img { display: none; }
        .dish { font-size: 17px; margin: 0 0 2px; overflow-wrap: anywhere; line-break: strict; }
        .shop, .category { margin: 0; color: var(--muted); font-size: 14px; overflow-wrap: anywhere; }
        mark { background: var(--mark); color: inherit; border-radius: 3px; padding: 0 1px; }
        .heart button { width: 48px; height: 48px; border-radius: 50%; font-size: 22px; color: var(--heart); border-color: var(--line); }
        .heart button[aria-pressed="true"] { color: var(--accent); border-color: var(--accent); background: var(--pressed); }
        .heart button { transition: transform .15s ease, background-color .15s ease; }
        .heart button:active { transform: scale(.9); }
        .heart button:disabled { opacity: .5; }
        .heart button[data-pending="true"] { border-style: dashed; border-color: var(--accent); }
        .unsent { max-width: 920px; margin: 10px auto 0; padding: 0 14px; }
        .unsent h2 { font-size: 16px; margin: 6px 0 2px; }
        .unsent ul { list-style: none; margin: 0; padding: 0; }
        .unsent li { display: flex; flex-wrap: wrap; gap: 6px 10px; align-items: center; padding: 6px 0; border-top: 1px solid var(--line); }
        .unsent li p { margin: 0; flex: 1 1 14em; overflow-wrap: anywhere; }
        .waiting { margin: 0; color: var(--muted); font-size: 14px; }
        .more { text-align: center; }
        @media (max-width: 300px) {
          main, .bar { padding-left: 8px; padding-right: 8px; }
          .bar { position: static; }
          .card { grid-template-columns: 1fr auto; gap: 8px; padding: 8px; }
          .photo { grid-column: 1 / -1; width: 100%; height: 96px; }
          .heart button { width: 44px; height: 44px; }
          .tabs a { padding: 6px 10px; }
        }
        .message { overflow-wrap: anywhere; }
        """#

    static let script = #"""
        "use strict";
        (function () {
          const body = document.body;
          const csrf = body.dataset.csrf || "";

          function markMissingPhotos(root) {
            root.querySelectorAll(".photo img").forEach(function (img) {
              const missing = function () { img.parentElement.classList.add("missing"); };
              if (img.complete && img.naturalWidth === 0) missing();
              img.addEventListener("error", missing);
            });
          }

          async function refresh(url) {
            const answer = await fetch(url, { credentials: "same-origin", headers: { "Accept": "text/html" } });
            if (!answer.ok) return;
            const page = new DOMParser().parseFromString(await answer.text(), "text/html");
            for (const id of ["results", "chips"]) {
              const now = document.getElementById(id), next = page.getElementById(id);
              if (now && next) now.replaceWith(next);
            }
            const state = document.getElementById("sync-state"), nextState = page.getElementById("sync-state");
            if (state && nextState) { state.innerHTML = nextState.innerHTML; }
            markMissingPhotos(document);
            showKept();
          }

          // Search as the user pauses (300 ms after the last key).
          const form = document.getElementById("search");
          const field = document.getElementById("q");
          if (form && field) {
            let timer = null;
            field.addEventListener("input", function () {
              clearTimeout(timer);
              timer = setTimeout(function () {
                const url = form.getAttribute("action") + "?" + new URLSearchParams(new FormData(form)).toString();
                history.replaceState(null, "", url);
                refresh(url);
              }, 300);
            });
          }

          // Hearts (docs/WEB.md, "Offline"). Each tap is kept in the browser (IndexedDB) before
          // it is sent, with the time it was made, so that a reload, a closed tab or a network
          // gone loses none; it is sent with that time and the time of sending (their
          // difference is its age, whatever the device's clock says), and merges on the server
          // by the one rule at the time it was made. Sent, it is dropped and the button shows
          // the state that holds; refused, it stays, shown as refused, until the user tries it
          // again or dismisses it. One kept heart per dish: a later tap replaces an earlier one.
          const HEARTS = "hearts";
          const loaded = Date.now();
          let database = null;
          function hearts() {
            if (!database) {
              database = new Promise(function (resolve, reject) {
                if (!window.indexedDB) { reject(new Error("no IndexedDB")); return; }
                const opening = indexedDB.open("favorite-archive", 1);
                opening.onupgradeneeded = function () { opening.result.createObjectStore(HEARTS, { keyPath: "id" }); };
                opening.onsuccess = function () { resolve(opening.result); };
                opening.onerror = function () { reject(opening.error); };
              });
              database.catch(function () { database = null; });
            }
            return database;
          }
          // Runs `work` on the store in one transaction; resolves once it committed (writes:
          // durably, as far as the browser offers) with what `work` returned, read at the end.
          async function kept(mode, work) {
            const db = await hearts();
            return new Promise(function (resolve, reject) {
              const transaction = db.transaction(HEARTS, mode, mode === "readwrite" ? { durability: "strict" } : undefined);
              const request = work(transaction.objectStore(HEARTS));
              transaction.oncomplete = function () { resolve(request ? request.result : undefined); };
              transaction.onerror = transaction.onabort = function () { reject(transaction.error); };
            });
          }
          const keptHearts = function () { return kept("readonly", function (store) { return store.getAll(); }).then(function (all) { return all || []; }); };
          // Replaces or drops the kept heart of `entry.id`, only if it is still `entry` (a tap made
          // meanwhile is newer, and stays).
          function settle(entry, replacement) {
            return kept("readwrite", function (store) {
              const reading = store.get(entry.id);
              reading.onsuccess = function () {
                if (!reading.result || reading.result.made !== entry.made) return;
                if (replacement) store.put(replacement); else store.delete(entry.id);
              };
            });
          }

          // Every heart button of dish `id` on the page shows `stored`, and whether it waits.
          function show(id, stored, waiting) {
            document.querySelectorAll("form.heart").forEach(function (form) {
              if (form.querySelector("input[name=id]").value !== String(id)) return;
              const button = form.querySelector("button");
              button.setAttribute("aria-pressed", stored ? "true" : "false");
              form.querySelector("input[name=keep]").value = stored ? "0" : "1";
              if (waiting) { button.dataset.pending = "true"; button.title = "Kept on this device, not sent yet"; }
              else { delete button.dataset.pending; button.title = "Favorite"; }
            });
          }

          // The kept hearts on the page: each waiting one on its button; the refused ones, and
          // how many wait, in the #unsent region (texts as text: a dish name may hold markup).
          async function showKept() {
            const region = document.getElementById("unsent");
            let entries;
            try { entries = await keptHearts(); } catch (error) { return; }
            entries.forEach(function (entry) { if (!entry.refused) show(entry.id, entry.keep, true); });
            if (!region) return;
            region.replaceChildren();
            const waiting = entries.filter(function (entry) { return !entry.refused; }).length;
            const refused = entries.filter(function (entry) { return entry.refused; });
            region.hidden = waiting === 0 && refused.length === 0;
            if (waiting > 0) {
              const line = document.createElement("p");
              line.className = "waiting";
              line.textContent = waiting === 1 ? "1 heart is kept on this device until the network is back." : waiting + " hearts are kept on this device until the network is back.";
              region.append(line);
            }
            if (refused.length === 0) return;
            const title = document.createElement("h2");
            title.textContent = "Not saved";
            const list = document.createElement("ul");
            refused.forEach(function (entry) {
              const item = document.createElement("li");
              item.className = "refused";
              item.dataset.id = String(entry.id);
              const text = document.createElement("p");
              text.textContent = (entry.keep ? "Heart " : "Un-heart ") + (entry.name || "dish " + entry.id) + ": " + entry.refused;
              const again = document.createElement("button");
              again.type = "button";
              again.className = "again";
              again.textContent = "Try again";
              // Tried again, it is a heart made now: the user still wants it.
              again.addEventListener("click", async function () {
                await settle(entry, { id: entry.id, keep: entry.keep, name: entry.name, made: Date.now(), refused: null });
                await showKept();
                send();
              });
              const dismiss = document.createElement("button");
              dismiss.type = "button";
              dismiss.className = "dismiss";
              dismiss.textContent = "Dismiss";
              dismiss.addEventListener("click", async function () { await settle(entry, null); await showKept(); });
              item.append(text, again, dismiss);
              list.append(item);
            });
            region.append(title, list);
          }

          // What a refusal's page says (its message), or its status.
          async function reason(answer) {
            try {
              const page = new DOMParser().parseFromString(await answer.text(), "text/html");
              const message = page.querySelector(".message");
              if (message && message.textContent.trim()) return message.textContent.trim();
            } catch (error) { /* said by its status below */ }
            return "refused by the server (" + answer.status + ")";
          }

          // Sends one kept heart: "sent", "refused" (kept, marked), or "wait" (no answer, or
          // the server cannot take it now: tried again later).
          async function sendOne(entry) {
            const abort = new AbortController();
            const timer = setTimeout(function () { abort.abort(); }, 8000);
            let answer;
            try {
              answer = await fetch("/web/heart", {
                method: "POST", credentials: "same-origin", signal: abort.signal,
                headers: { "Accept": "application/json", "X-CSRF-Token": csrf, "Content-Type": "application/x-www-form-urlencoded" },
                body: new URLSearchParams({ csrf: csrf, id: String(entry.id), keep: entry.keep ? "1" : "0", made: String(entry.made), sent: String(Date.now()) }).toString()
              });
            } catch (error) {
              return "wait";
            } finally {
              clearTimeout(timer);
            }
            if (answer.ok) {
              const state = await answer.json();
              await settle(entry, null);
              const newer = (await keptHearts()).some(function (other) { return other.id === entry.id; });
              if (!newer) show(entry.id, state.stored, false);
              return "sent";
            }
            if (answer.status >= 500 || answer.status === 429 || answer.status === 408) return "wait";
            await settle(entry, Object.assign({}, entry, { refused: await reason(answer) }));
            show(entry.id, !entry.keep, false);
            return "refused";
          }

          // Sends every waiting heart, oldest first; without an answer, tries again after 2 s,
          // then twice as long each time, up to a minute (and at once when the browser says
          // it is online again, or the event stream opens). Offline, nothing is tried.
          let sending = false, sendAgain = false, retry = null, retryWait = 2000, waited = false;
          async function send() {
            // A browser that knows it is offline is not asked: its "online" event sends them.
            if (navigator.onLine === false) { showKept(); return; }
            if (sending) { sendAgain = true; return; }
            sending = true;
            clearTimeout(retry);
            try {
              do {
                sendAgain = false;
                let entries;
                try { entries = await keptHearts(); } catch (error) { return; }
                entries = entries.filter(function (entry) { return !entry.refused; }).sort(function (a, b) { return a.made - b.made; });
                let sent = 0;
                for (const entry of entries) {
                  const outcome = await sendOne(entry);
                  if (outcome === "sent") sent += 1;
                  if (outcome === "wait") {
                    waited = true;
                    retry = setTimeout(send, retryWait);
                    retryWait = Math.min(retryWait * 2, 60000);
                    return;
                  }
                }
                retryWait = 2000;
                // Hearts that waited went out: the page, drawn before, is read again (a dish
                // whose heart lost to a later change shows it; one it did not list appears).
                if (sent > 0 && (waited || entries.some(function (entry) { return entry.made < loaded; }))) {
                  waited = false;
                  refresh(location.pathname + location.search);
                }
              } while (sendAgain);
            } finally {
              sending = false;
              showKept();
            }
          }
          window.addEventListener("online", function () { retryWait = 2000; send(); });

          document.addEventListener("submit", async function (event) {
            const heart = event.target.closest("form.heart");
            if (!heart) return;
            event.preventDefault();
            const id = Number(heart.querySelector("input[name=id]").value);
            const keep = heart.querySelector("input[name=keep]").value === "1";
            const dish = heart.closest(".card") && heart.closest(".card").querySelector(".dish");
            const entry = { id: id, keep: keep, name: dish ? dish.textContent.trim() : "", made: Date.now(), refused: null };
            try {
              await kept("readwrite", function (store) { store.put(entry); });
            } catch (error) {
              // No IndexedDB here (a private window that refuses it): the form as it is.
              heart.submit();
              return;
            }
            show(id, keep, true);
            send();
          });

          // Live: another device's push moves the feed; read the page again.
          const live = body.dataset.live;
          const state = document.getElementById("sync-state");
          // A drop is retried by the browser itself (the stream's retry: 2000); a refusal
          // (429: too many pages open, 503) closes an EventSource for good, so the page
          // opens a new one itself, waiting 2 s, then twice as long each time, up to a minute.
          if (live && window.EventSource) {
            let wait = 2000, gap = false;
            let current = null;
            const listen = function () {
              const events = new EventSource(live);
              current = events;
              // Open after a gap (the network gone, the server restarted, a refusal): what
              // moved meanwhile was not heard, so the page is read again.
              events.addEventListener("open", function () {
                wait = 2000;
                if (state) state.dataset.state = "live";
                if (gap) refresh(location.pathname + location.search);
                gap = false;
                send();
              });
              events.addEventListener("error", function () {
                gap = true;
                if (state) state.dataset.state = "offline";
                if (events.readyState === EventSource.CLOSED) {
                  setTimeout(listen, wait);
                  wait = Math.min(wait * 2, 60000);
                }
              });
              events.addEventListener("feed", function () { refresh(location.pathname + location.search); });
            };
            listen();
            // The browser's own word on the network: offline at once (an open stream may not
            // notice for a while), live again with the stream.
            window.addEventListener("offline", function () { if (state) state.dataset.state = "offline"; });
            window.addEventListener("online", function () { if (state && current && current.readyState === EventSource.OPEN) state.dataset.state = "live"; });
          }

          markMissingPhotos(document);
          if (csrf) showKept().then(send);

          // The service worker: the screens seen stay readable offline (docs/WEB.md, "Offline").
          if (body.dataset.csrf && navigator.serviceWorker) navigator.serviceWorker.register("/sw.js");
        })();
        """#
}
