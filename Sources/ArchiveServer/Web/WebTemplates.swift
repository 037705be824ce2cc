public import Mustache

/// The web page's HTML, as Mustache templates compiled into the binary (no files to ship
/// or find at run time). `{{name}}` escapes HTML (`< > & " '`): every text a device or the
/// catalog wrote goes through it; no template uses the unescaped `{{{name}}}`.
public enum WebTemplates {
    /// The templates, parsed: `archive` (search), `favorites`, `signin`, `message`, and the
    /// partials they share: `head`, `foot`, `cards` (a list of `card`s, each with its `heart`).
    public static func library() throws -> MustacheLibrary {
        var library = MustacheLibrary()
        try library.register(head, named: "head")
        try library.register(foot, named: "foot")
        try library.register(heart, named: "heart")
        try library.register(card, named: "card")
        try library.register(cards, named: "cards")
        try library.register(archive, named: "archive")
        try library.register(favorites, named: "favorites")
        try library.register(signIn, named: "signin")
        try library.register(message, named: "message")
        return library
    }

    static let head = #"""
        <!doctype html>
        <html lang="ja">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="referrer" content="no-referrer">
        <title>{{title}} · FavoriteArchive</title>
        <meta name="theme-color" content="#d2335c">
        <link rel="manifest" href="\#(WebAssets.manifestPath)">
        <link rel="icon" type="image/png" sizes="192x192" href="\#(AppIcon.path(size: 192))">
        <link rel="apple-touch-icon" href="\#(AppIcon.path(size: 192))">
        <link rel="stylesheet" href="\#(WebAssets.stylesheetPath)">
        <script src="\#(WebAssets.scriptPath)" defer></script>
        </head>
        <body{{#session}} data-csrf="{{csrf}}" data-live="/web/events"{{/session}}>
        <a class="skip" href="#main">Skip to content</a>
        <header class="bar">
        <p class="brand">FavoriteArchive</p>
        {{#session}}
        <nav class="tabs" aria-label="Screens">
        <a href="/"{{#onSearch}} aria-current="page"{{/onSearch}}>Search</a>
        <a href="/favorites"{{#onFavorites}} aria-current="page"{{/onFavorites}}>Favorites</a>
        </nav>
        {{! The service worker marks a screen it kept as offline by rewriting id="sync-state" data-state="page" (WebAssets.serviceWorker). }}
        <p class="sync" id="sync" role="status" aria-live="polite"><span class="who">{{device}} · {{user}}</span> <span id="sync-state" data-state="page">{{#lastSync}}last sync <time datetime="{{iso}}">{{shown}}</time>{{/lastSync}}{{^lastSync}}no sync yet{{/lastSync}}</span></p>
        <form class="signout" method="post" action="/web/signout"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit">Sign out</button></form>
        {{/session}}
        </header>
        {{! Filled by the script: hearts kept on this device, waiting or refused (WebAssets.script). }}
        {{#session}}<section id="unsent" class="unsent" aria-label="Hearts not sent yet" hidden></section>{{/session}}
        """#

    static let foot = #"""
        </body>
        </html>
        """#

    static let heart = #"""
        <form class="heart" method="post" action="/web/heart">
        <input type="hidden" name="csrf" value="{{session.csrf}}">
        <input type="hidden" name="id" value="{{id}}">
        <input type="hidden" name="keep" value="{{#stored}}0{{/stored}}{{^stored}}1{{/stored}}">
        <input type="hidden" name="back" value="{{back}}">
        <button type="submit" aria-pressed="{{#stored}}true{{/stored}}{{^stored}}false{{/stored}}" aria-label="Favorite: {{dishName}}" title="Favorite">♥</button>
        </form>
        """#

    static let card = #"""
        <li class="card" data-id="{{id}}">
        <div class="photo" aria-hidden="true">{{#photoUrl}}<img src="{{photoUrl}}" alt="" width="88" height="88" loading="lazy">{{/photoUrl}}</div>
        <div class="text">
        <h2 class="dish">{{#dish}}{{#hit}}<mark>{{text}}</mark>{{/hit}}{{^hit}}{{text}}{{/hit}}{{/dish}}</h2>
        <p class="shop">{{shopName}}</p>
        <p class="category">{{category}}</p>
        </div>
        {{> heart}}
        </li>
        """#

    static let cards = #"""
        <p class="count">{{count}}</p>
        <ul class="cards">
        {{#results}}
        {{> card}}
        {{/results}}
        </ul>
        """#

    static let archive = #"""
        {{> head}}
        <main id="main">
        <form class="search" id="search" method="get" action="/" role="search" autocomplete="off">
        <h1><label for="q">Search dishes</label></h1>
        <div class="field"><input id="q" name="q" type="search" value="{{keyword}}" maxlength="200" placeholder="チーズ, ramen…">
        {{#category}}<input type="hidden" name="category" value="{{category}}">{{/category}}
        <button type="submit">Search</button></div>
        </form>
        <nav class="chips" id="chips" aria-label="Categories">
        {{#chips}}<a class="chip" href="{{href}}"{{#selected}} aria-current="true"{{/selected}}>{{name}}</a>{{/chips}}
        </nav>
        <section id="results" aria-label="Results" aria-live="polite">
        {{> cards}}
        </section>
        </main>
        {{> foot}}
        """#

    static let favorites = #"""
        {{> head}}
        <main id="main">
        <form class="search" id="search" method="get" action="/favorites" role="search" autocomplete="off">
        <h1><label for="q">Search your favorites</label></h1>
        <div class="field"><input id="q" name="q" type="search" value="{{keyword}}" maxlength="200">
        <button type="submit">Search</button></div>
        </form>
        <section id="results" aria-label="Favorites, newest first" aria-live="polite">
        {{> cards}}
        {{#more}}<p class="more"><a href="{{more}}" rel="next">{{moreLabel}}</a></p>{{/more}}
        </section>
        </main>
        {{> foot}}
        """#

    static let signIn = #"""
        {{> head}}
        <main id="main" class="narrow">
        <h1>Sign in</h1>
        <p>This link signs this browser in as a new device of your archive. It works once, for 10 minutes.</p>
        {{#target}}<p class="target">It signs in as <strong>{{user}}</strong>, the new device labelled <strong>{{label}}</strong>: if that is not you, do not sign in.</p>{{/target}}
        <form method="post" action="/signin">
        <input type="hidden" name="link" value="{{link}}">
        <button type="submit" id="sign-in">Sign in on this browser</button>
        </form>
        </main>
        {{> foot}}
        """#

    static let message = #"""
        {{> head}}
        <main id="main" class="narrow">
        <h1>{{title}}</h1>
        <p class="message">{{text}}</p>
        {{#back}}<p><a href="{{back}}">Back</a></p>{{/back}}
        </main>
        {{> foot}}
        """#
}
