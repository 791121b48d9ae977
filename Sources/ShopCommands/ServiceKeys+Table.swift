import PseudoTerminal
import ShopLanguages

extension ServiceKey {
    /// The log levels swift-log knows, least to most severe.
    static let levels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]

    /// The parts of `up` a log level can be set for in `[log]`, over `shop.log-level`.
    public static let components = [
        "ssh", "web", "api", "webhooks", "mail", "mail-worker", "renewals", "admin", "storage", "sessions", "sign-in", "reload",
    ]

    /// Every setting, in the order `config show` prints them: the one description of each, which the commands' flags,
    /// `config check`, `config show` and docs/configuration.md's table all come from.
    public static let all: [ServiceKey] =
        [
            ServiceKey(
                "shop", "catalog", .path, reloadable: true, flag: "catalog", help: "A catalog JSON file to sell from instead of the bundled one."),
            ServiceKey("shop", "data-dir", .path, flag: "data-dir", help: "Where the shop keeps its files. Default: $XDG_DATA_HOME/storefront."),
            ServiceKey("shop", "payments", .choice(["sandbox", "stripe"]), "sandbox", flag: "payments", help: "The payment provider."),
            ServiceKey(
                "shop", "database", .url, secret: true, environment: "STOREFRONT_DATABASE_URL", flag: "database",
                help: "Keep everything in PostgreSQL: postgres://USER@HOST:PORT/DB?sslmode=require. Default: SQLite in the data directory."),
            ServiceKey(
                "shop", "stripe-secret-key-file", .path, flag: "stripe-secret-key-file",
                help: "A file (mode 0600, yours) holding the Stripe secret key, instead of STOREFRONT_STRIPE_SECRET_KEY."),
            ServiceKey("shop", "stripe-api-base", .url, flag: "stripe-api-base", help: "Stripe's API address. Default: https://api.stripe.com."),
            ServiceKey(
                "shop", "stripe-return-url", .url, flag: "stripe-return-url",
                help:
                    "A page of yours Stripe sends the shopper back to after its card page or a card check. Needed with Stripe unless cards are typed in the shop."
            ),
            ServiceKey(
                "shop", "stripe-raw-card-data", .onOff, "off", flag: "stripe-raw-card-data",
                help:
                    "Take cards typed in the shop and send them to Stripe, instead of Stripe's card page. Only for a Stripe account granted raw card data access; it puts this host in PCI DSS scope for card data (SAQ D)."
            ),
            ServiceKey("shop", "one-tap", .text, flag: "one-tap", help: "One-Tap Buy now: on, off, cart, product or cart,product."),
            ServiceKey("shop", "one-tap-cart", .onOff, help: "One-Tap Buy now in the cart (over one-tap; default on)."),
            ServiceKey("shop", "one-tap-product", .onOff, help: "One-Tap Buy now on a product's page (over one-tap; default on)."),
            ServiceKey(
                "shop", "sandbox-test-cards", .onOff, "on", help: "Fill a guest's empty wallet with the sandbox test cards and sample addresses."),
            ServiceKey(
                "shop", "sandbox-latency-ms", .count(0...60_000), flag: "sandbox-latency-ms",
                help: "How long each sandbox payment call takes, to show progress (run's default: 300; a server's sessions take it)."),
            ServiceKey(
                "shop", "theme", .text, flag: "theme",
                help: "auto (asks the terminal for its background), dark, light or mono (NO_COLOR also selects mono)."),
            ServiceKey(
                "shop", "language", .choice(Language.all.map(\.tag)), flag: "lang",
                help:
                    "The shop's language where the shopper's terminal (LANG, LC_ALL, LC_MESSAGES) or browser (Accept-Language) asks for none it speaks; for run, over LANG. en-XA is the test language."
            ),
            ServiceKey(
                "shop", "rates", .path, flag: "rates",
                help:
                    "Exchange rates for the catalog's markets, in the ECB's eurofxref XML (today's file from ecb.europa.eu works as it is). Default: the rates bundled with the shop."
            ),
            ServiceKey(
                "shop", "rates-max-age-days", .count(1...365), "7",
                help: "Rates older than this many days are named as stale by storefront rates."),
            ServiceKey("shop", "mouse", .onOff, "on", flag: "mouse", help: "Clicks and the wheel (off leaves the terminal's own selection)."),
            ServiceKey("shop", "log-level", .choice(levels), "info", reloadable: true, flag: "log-level", help: "The least severe level logged."),

            ServiceKey("ssh", "enabled", .onOff, "off", help: "Run the SSH front."),
            ServiceKey("ssh", "listen", .address, "0.0.0.0:2222", help: "HOST:PORT the SSH front listens on."),
            ServiceKey(
                "ssh", "host-key", .path, flag: "host-key",
                help: "The Ed25519 host key (OpenSSH format), created on first start. Default: DATA-DIR/ssh_host_ed25519_key."),
            ServiceKey(
                "ssh", "max-sessions", .count(1...10_000), "64", reloadable: true, flag: "max-sessions",
                help: "Sessions open at once; more are told the shop is full."),
            ServiceKey(
                "ssh", "max-guests", .count(0...10_000), "16", reloadable: true, flag: "max-guests",
                help: "Guest sessions (no key) open at once on this host, beside key holders'."),
            ServiceKey(
                "ssh", "guests-per-address", .count(1...1_000), "2", reloadable: true, flag: "guests-per-address",
                help: "Guest sessions one address may hold at once."),
        ] + sessionPace("ssh", timeoutsReloadable: true) + [
            ServiceKey(
                "ssh", "admin-keys", .path, reloadable: true, flag: "admin-keys",
                help: "An authorized_keys file: these keys get the merchant console instead of the shop (read again on SIGHUP)."),
            ServiceKey(
                "ssh", "openssh-front", .text, flag: "openssh-front",
                help:
                    "How shoppers reach the shop through the system's OpenSSH (such as \"ssh shop@shop.example\"), told to guests: the way in for RSA keys."
            ),
            ServiceKey(
                "ssh", "join-socket", .path, flag: "join-socket",
                help:
                    "Also take the sessions the system's OpenSSH hands over here (sshd-config --join) into this server's workers: a local socket only this user may use."
            ),
            ServiceKey(
                "ssh", "openid-providers", .path, environment: "STOREFRONT_OPENID_PROVIDERS", flag: "openid-providers",
                help: "A JSON file of OpenID Connect providers shoppers may sign in with (docs/openid-connect.md)."),

            ServiceKey("web", "enabled", .onOff, "off", help: "Run the browser front."),
            ServiceKey("web", "listen", .address, "127.0.0.1:8080", flag: "listen", help: "HOST:PORT the browser front listens on."),
            ServiceKey(
                "web", "origin", .url, environment: "STOREFRONT_WEB_ORIGIN", flag: "web-origin",
                help: "The origin of this shop's browser front (https://shop.example): where sign-in links and subscription mail point."),
            ServiceKey(
                "web", "public-origins", .list, flag: "public-origin",
                help: "The origins visitors' browsers show; only pages from them may open a session (comma-separated; default: origin)."),
            ServiceKey(
                "web", "trust-forwarded-for", .onOff, "off", flag: "trust-forwarded-for",
                help: "Take the visitor's address from the last X-Forwarded-For entry: only behind a proxy that sets it."),
            ServiceKey(
                "web", "max-sessions", .count(1...10_000), "32", reloadable: true, flag: "max-sessions",
                help: "Browser sessions open at once; more are told the shop is full."),
            ServiceKey(
                "web", "sessions-per-address", .count(1...1_000), "2", reloadable: true, flag: "sessions-per-address",
                help: "Sessions one address may hold at once."),
        ] + sessionPace("web", timeoutsReloadable: false) + [
            ServiceKey(
                "web", "connections-per-address", .count(1...10_000), "16", flag: "connections-per-address",
                help: "HTTP connections one address may hold at once; ignored with trust-forwarded-for, where all come from the proxy."),
            ServiceKey(
                "web", "max-session-length", .duration, "2h", flag: "max-session-length", help: "Close a session after this long, however busy."),
            ServiceKey(
                "web", "first-frame-ms", .count(0...10_000), "150", flag: "first-frame-ms",
                help: "How long a returning tab's page waits for the first frame of the session started with it, in ms; 0 starts none with the page."),
            ServiceKey(
                "web", "first-screen-ms", .count(0...10_000), "30", flag: "first-screen-ms",
                help: "After that first frame, how long the page waits for the rest of its first screen (its pictures), in ms."),
            ServiceKey(
                "web", "request-timeout", .duration, "30s", flag: "request-timeout",
                help: "Close a connection that has not sent a whole request after this long, however slowly it sends, or sits idle between requests."),

            ServiceKey("api", "enabled", .onOff, "off", help: "Run the HTTP API."),
            ServiceKey("api", "listen", .address, "127.0.0.1:8081", flag: "listen", help: "HOST:PORT the HTTP API listens on."),
            ServiceKey(
                "api", "rate-limit", .count(1...1_000_000), "120", reloadable: true, flag: "rate-limit",
                help: "Requests one token may make a minute; a burst of half as many may come at once."),
            ServiceKey(
                "api", "request-timeout", .duration, "30s", flag: "request-timeout",
                help: "Close a connection that has not sent a whole request (head and body) after this long."),
            ServiceKey(
                "api", "connections-per-address", .count(1...10_000), "32", flag: "connections-per-address",
                help: "Connections one client address may hold at once."),
            ServiceKey(
                "api", "max-connections", .count(1...100_000), "512", flag: "max-connections", help: "Connections open at once, from everyone."),
            ServiceKey("api", "max-body", .count(1_024...16_777_216), "65536", flag: "max-body", help: "The largest request body, in bytes."),
            ServiceKey(
                "api", "bank-check-window", .duration, "15m", flag: "bank-check-window",
                help: "How long an order waits for its bank's check (3-D Secure) before it is voided and its stock released."),
            ServiceKey(
                "api", "admin-keys", .path, flag: "admin-keys",
                help: "The merchants' authorized_keys file (default: ssh.admin-keys): a merchant token is honoured only while its key is in it."),

            ServiceKey("webhooks", "enabled", .onOff, "off", help: "Listen for Stripe's webhooks (needs payments = stripe)."),
            ServiceKey("webhooks", "listen", .address, "127.0.0.1:8088", flag: "webhook-listen", help: "HOST:PORT Stripe's webhooks come to."),
            ServiceKey(
                "webhooks", "secret-file", .path, flag: "webhook-secret-file",
                help: "A file (mode 0600, yours) holding the endpoint's signing secret (whsec_…), one per line while a secret is rotated."),

            ServiceKey(
                "mail", "command", .text, reloadable: true, flag: "mail-command",
                help: "A sendmail-compatible command that takes a message on stdin, such as \"msmtp -t\". Without one, messages wait in the outbox."),
            ServiceKey(
                "mail", "from", .text, reloadable: true, flag: "mail-from",
                help: "The address the shop's messages come from, under the shop's name. Default: storefront@HOSTNAME."),
            ServiceKey("mail", "reply-to", .text, reloadable: true, flag: "mail-reply-to", help: "Where replies go."),
            ServiceKey(
                "mail", "timeout", .duration, "60s", reloadable: true, flag: "mail-timeout",
                help: "How long the mail command may take for one message before it is killed and the message tried again later."),
            ServiceKey("mail-worker", "enabled", .onOff, "off", help: "Send the outbox's mail in the background."),
            ServiceKey("mail-worker", "interval", .duration, "10s", help: "Time between the mail worker's passes."),
            ServiceKey(
                "mail-worker", "retry-after", .duration, "30s", help: "Before a message that failed is tried again, doubling each time up to an hour."
            ),
            ServiceKey("mail-worker", "give-up-after", .duration, "72h", help: "Stop trying a message this long after it was written."),
            ServiceKey("renewals", "enabled", .onOff, "off", help: "Charge subscriptions' renewals as they fall due."),
            ServiceKey("renewals", "interval", .duration, "60s", help: "Time between the renewal worker's passes."),

            ServiceKey(
                "sessions", "per-worker", .count(1...1_000), String(WorkerPolicy.defaultSessionsPerWorker), flag: "sessions-per-worker",
                help: "Sessions each worker process holds; 1 gives each session a process of its own."),
            ServiceKey(
                "sessions", "worker-recycle-after", .count(1...10_000_000), "1000", flag: "worker-recycle-after",
                help: "A worker takes no new session after this many, and ends after its last."),
            ServiceKey("sessions", "worker-lifetime", .duration, "6h", flag: "worker-lifetime", help: "Nor after this long."),

            ServiceKey("admin", "listen", .address, flag: "admin-listen", help: "HOST:PORT of /healthz, /readyz and /metrics (default: off)."),
            ServiceKey("metrics", "enabled", .onOff, "on", help: "Serve /metrics on the admin listener."),
            ServiceKey("log", "format", .choice(["text", "json"]), "text", flag: "log-format", help: "How each log line is written."),
        ] + components.map { ServiceKey("log", $0, .choice(levels), reloadable: true, help: "The \($0) component's log level (over log-level).") }

    /// How fast one address may open a front's sessions, how long one may idle and how long a stop waits for them: the
    /// same three settings for the SSH front and the browser front; SIGHUP changes the timeouts of the SSH front only.
    static func sessionPace(_ section: String, timeoutsReloadable: Bool) -> [ServiceKey] {
        [
            ServiceKey(
                section, "connections-per-minute", .count(1...1_000_000), "30", reloadable: true, flag: "connections-per-minute",
                help: "Sessions one address may open in any minute."),
            ServiceKey(
                section, "idle-timeout", .duration, "15m", reloadable: timeoutsReloadable, flag: "idle-timeout",
                help: "Close a session after this long without a key."),
            ServiceKey(
                section, "drain-timeout", .duration, "10s", reloadable: timeoutsReloadable, flag: "drain-timeout",
                help: "How long SIGTERM waits for sessions to end before ending them."),
        ]
    }

    /// The sections `up` knows, in order.
    public static var sections: [String] {
        all.map(\.section).reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
    }

    /// Secrets that are only ever read from the environment, so `config show` can say whether each is set.
    public static let environmentSecrets = ["STOREFRONT_STRIPE_SECRET_KEY", "STOREFRONT_STRIPE_WEBHOOK_SECRET", "STOREFRONT_CODE_KEY"]
}
