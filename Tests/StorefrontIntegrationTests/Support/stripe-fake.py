#!/usr/bin/env python3
"""A fake of the Stripe API endpoints the shop calls, holding the contract localstripe does not.

usage: stripe-fake.py [--raw-card-data]
Listens on 127.0.0.1 on a port the kernel picks and prints "listening PORT". Answers are shaped as Stripe's
OpenAPI document describes its objects (customer, payment_method, setup_intent, checkout.session, payment_intent,
error). What localstripe lacks and this fake holds:
- Idempotency-Key on every POST: the same key and body answer the first answer again (Idempotent-Replayed: true);
  the same key with another body is a 400 idempotency_error, as Stripe answers.
- Checkout Sessions in setup mode, completed or expired on command, each with its SetupIntent.
- 3-D Secure: test card 4000 0025 0000 3155 confirms to requires_action with a redirect_to_url, and the challenge
  is passed or failed on command; off-session (off_session=true, as renewals confirm) it succeeds only once it was set
  up for later use (a SetupIntent with usage=off_session that succeeded, a Checkout Session in setup mode, or a payment
  with setup_future_usage=off_session that succeeded), and is declined with authentication_required before, as Stripe
  declines it. A SetupIntent confirmed with 3155 asks for the check (requires_action). Test card 4000 0027 6000 3184
  asks for the check on every payment: on-session as 3155 does, off-session it is declined with
  authentication_required (402, the PaymentIntent back to requires_payment_method).
- Raw card numbers refused as an ordinary Stripe account refuses them (402), unless started with --raw-card-data.
- A 401 quoting the secret key, on command.
Commands (not Stripe's; under /_fake):
  POST /_fake/checkout/sessions/{id}/complete  card=<test card number>   the shopper saved a card on the page
  POST /_fake/checkout/sessions/{id}/fill  card=<number>    the SetupIntent names a card, the session still open
  POST /_fake/checkout/sessions/{id}/expire
  POST /_fake/payment_intents/{id}/authenticate  result=succeed|fail     the 3-D Secure challenge
  POST /_fake/unauthorized                                              every later request answers 401
  GET  /_fake/log      {"requests": [{"method", "path", "status", "idempotency_key", "stripe_version"}]}
  GET  /_fake/wait?method=POST&path_suffix=/expire&timeout=30
                       answers once such a request has been answered (200 with it), or 408 at the timeout
  GET  /_fake/state    {"payment_intents": [...], "customers": [...], "checkout_sessions": [...], "payment_methods": [...]}
"""
import asyncio
import itertools
import json
import socket
import sys
import time
from urllib.parse import parse_qsl

try:
    from aiohttp import web
except ImportError as error:
    sys.stderr.write(f"aiohttp (installed with localstripe) is missing ({error}); install it with: python3 -m pip install localstripe\n")
    sys.exit(3)

RAW_CARD_DATA = "--raw-card-data" in sys.argv[1:]
RAW_CARD_REFUSAL = (
    "Sending credit card numbers directly to the Stripe API is generally unsafe. We suggest you use test tokens that "
    "map to the test card you are using, see https://stripe.com/docs/testing. To enable testing raw card data APIs, "
    "see https://support.stripe.com/questions/enabling-access-to-raw-card-data-apis."
)
# What each test card does, as Stripe's testing page says.
CARDS = {
    "4242424242424242": ("visa", "succeeds"),
    "5555555555554444": ("mastercard", "succeeds"),
    "4000002500003155": ("visa", "three_d_secure"),
    "4000002760003184": ("visa", "three_d_secure_always"),
    "4000000000000002": ("visa", "card_declined"),
    "4000000000009995": ("visa", "insufficient_funds"),
}

serial = itertools.count(1)
objects = {"cus": {}, "pm": {}, "seti": {}, "cs": {}, "pi": {}}
kept = {}
seen = []
state = {"unauthorized": False, "port": 0}


def new_id(prefix):
    return f"{prefix}_fake{next(serial):06d}"


def error(status, kind, message, **extra):
    body = {"error": {"type": kind, "message": message, **extra}}
    return status, body


def form_of(body):
    return dict(parse_qsl(body.decode(), keep_blank_values=True))


def metadata(form):
    return {key[len("metadata["):-1]: value for key, value in form.items() if key.startswith("metadata[")}


def payment_method(number, month, year):
    brand, behaviour = CARDS.get(number, ("visa", "succeeds"))
    pm = {
        "id": new_id("pm"), "object": "payment_method", "type": "card", "customer": None,
        "card": {"brand": brand, "last4": number[-4:], "exp_month": int(month), "exp_year": int(year)},
        "_behaviour": behaviour, "_off_session_ready": False,
    }
    objects["pm"][pm["id"]] = pm
    return pm


def public(obj):
    return {key: value for key, value in obj.items() if not key.startswith("_")}


def inspected(obj):
    """An object as the fake's state shows it: what Stripe would answer, and whether a card was set up off-session."""
    shown = public(obj)
    if "_off_session_ready" in obj:
        shown["set_up_off_session"] = obj["_off_session_ready"]
    return shown


def create_customer(form):
    customer = {"id": new_id("cus"), "object": "customer", "metadata": metadata(form)}
    objects["cus"][customer["id"]] = customer
    return 200, customer


def create_payment_method(form):
    if "card[number]" in form and not RAW_CARD_DATA:
        return error(402, "invalid_request_error", RAW_CARD_REFUSAL)
    if "card[number]" not in form:
        return error(400, "invalid_request_error", "Missing required param: card.")
    return 200, public(payment_method(form["card[number]"], form.get("card[exp_month]", "12"), form.get("card[exp_year]", "2030")))


def attach(pm_id, form):
    pm = objects["pm"].get(pm_id)
    if pm is None:
        return error(404, "invalid_request_error", f"No such PaymentMethod: '{pm_id}'", code="resource_missing")
    pm["customer"] = form.get("customer")
    return 200, public(pm)


def create_checkout_session(form):
    if form.get("mode") != "setup":
        return error(400, "invalid_request_error", "This fake takes Checkout Sessions in setup mode only.")
    for required in ("customer", "currency", "success_url", "cancel_url"):
        if not form.get(required):
            return error(400, "invalid_request_error", f"Missing required param: {required}.")
    if form["customer"] not in objects["cus"]:
        return error(400, "invalid_request_error", f"No such customer: '{form['customer']}'", code="resource_missing")
    setup = {"id": new_id("seti"), "object": "setup_intent", "status": "requires_payment_method", "payment_method": None, "customer": form["customer"]}
    objects["seti"][setup["id"]] = setup
    expires_at = int(form.get("expires_at") or int(time.time()) + 86400)
    if not 1800 <= expires_at - int(time.time()) <= 86400:
        return error(400, "invalid_request_error", "The `expires_at` timestamp must be between 30 minutes and 24 hours from Checkout Session creation.")
    session_id = new_id("cs_test")
    session = {
        "id": session_id, "object": "checkout.session", "mode": "setup", "status": "open", "currency": form["currency"],
        "customer": form["customer"], "setup_intent": setup["id"], "success_url": form["success_url"],
        "cancel_url": form["cancel_url"], "expires_at": expires_at,
        "url": f"http://127.0.0.1:{state['port']}/c/pay/{session_id}", "metadata": metadata(form),
    }
    objects["cs"][session_id] = session
    return 200, session


def card_on_session(session_id, form, setup_status, session_status):
    """The shopper's card lands on an open session's SetupIntent, which then has `setup_status`, the session
    `session_status`."""
    session = objects["cs"].get(session_id)
    if session is None or session["status"] != "open":
        return 400, {"error": f"no open session {session_id}"}
    pm = payment_method(form.get("card", "4242424242424242"), form.get("exp_month", "12"), form.get("exp_year", "2030"))
    pm["customer"] = session["customer"]
    pm["_off_session_ready"] = setup_status == "succeeded"
    objects["seti"][session["setup_intent"]].update(status=setup_status, payment_method=pm["id"])
    session["status"] = session_status
    return 200, session


def expire_checkout_session(session_id):
    session = objects["cs"].get(session_id)
    if session is None:
        return error(404, "invalid_request_error", f"No such checkout.session: '{session_id}'", code="resource_missing")
    if session["status"] != "open":
        return error(400, "invalid_request_error", f"Only Checkout Sessions with a status in [\"open\"] can be expired. This Checkout Session has a status of \"{session['status']}\".")
    session["status"] = "expired"
    return 200, session


def create_setup_intent(form):
    if form.get("customer") and form["customer"] not in objects["cus"]:
        return error(400, "invalid_request_error", f"No such customer: '{form['customer']}'", code="resource_missing")
    if form.get("usage", "off_session") not in ("off_session", "on_session"):
        return error(400, "invalid_request_error", "Invalid usage: must be one of on_session or off_session")
    setup = {"id": new_id("seti"), "object": "setup_intent", "status": "requires_payment_method", "payment_method": None,
             "customer": form.get("customer"), "usage": form.get("usage", "off_session"), "next_action": None,
             "last_setup_error": None}
    objects["seti"][setup["id"]] = setup
    return 200, setup


def confirmable(kind, object_id, form):
    """A SetupIntent or PaymentIntent to confirm with its card, as (object, card, None), or (None, None, Stripe's error)
    for one that is not there, is past confirming, or has no card."""
    noun = {"seti": ("SetupIntent", "setupintent", "setup_intent"), "pi": ("PaymentIntent", "payment_intent", "payment_intent")}[kind]
    obj = objects[kind].get(object_id)
    if obj is None:
        return None, None, error(404, "invalid_request_error", f"No such {noun[1]}: '{object_id}'", code="resource_missing")
    if obj["status"] not in ("requires_payment_method", "requires_confirmation"):
        return None, None, error(400, "invalid_request_error", f"This {noun[0]}'s status is {obj['status']}, and it cannot be confirmed.", code=f"{noun[2]}_unexpected_state")
    pm = objects["pm"].get(form.get("payment_method") or obj["payment_method"])
    if pm is None:
        return None, None, error(400, "invalid_request_error", f"You cannot confirm this {noun[0]} because it's missing a payment method.", code=f"{noun[2]}_unexpected_state")
    obj["payment_method"] = pm["id"]
    return obj, pm, None


def confirm_setup_intent(setup_id, form):
    setup, pm, refusal = confirmable("seti", setup_id, form)
    if refusal:
        return refusal
    if pm["_behaviour"] in ("card_declined", "insufficient_funds"):
        setup["last_setup_error"] = {"type": "card_error", "code": "card_declined", "decline_code": "generic_decline", "message": "Your card was declined."}
        return error(402, "card_error", "Your card was declined.", code="card_declined", decline_code="generic_decline", setup_intent=setup)
    if pm["_behaviour"] in ("three_d_secure", "three_d_secure_always"):
        setup["status"] = "requires_action"
        setup["next_action"] = {"type": "use_stripe_sdk", "use_stripe_sdk": {}}
        return 200, setup
    setup["status"] = "succeeded"
    pm["customer"] = setup["customer"] or pm["customer"]
    pm["_off_session_ready"] = setup["usage"] == "off_session"
    return 200, setup


def create_payment_intent(form):
    for required in ("amount", "currency"):
        if not form.get(required):
            return error(400, "invalid_request_error", f"Missing required param: {required}.")
    intent = {
        "id": new_id("pi"), "object": "payment_intent", "amount": int(form["amount"]), "currency": form["currency"],
        "customer": form.get("customer"), "payment_method": form.get("payment_method"), "metadata": metadata(form),
        "status": "requires_confirmation" if form.get("payment_method") else "requires_payment_method",
        "last_payment_error": None, "next_action": None,
        # off_session for the first order of a subscription: Stripe keeps the card for the renewals' off-session charges.
        "setup_future_usage": form.get("setup_future_usage"),
    }
    if intent["setup_future_usage"] not in (None, "off_session", "on_session"):
        return error(400, "invalid_request_error", "Invalid setup_future_usage: must be one of on_session or off_session")
    objects["pi"][intent["id"]] = intent
    return 200, intent


def decline(intent, code, message):
    intent["status"] = "requires_payment_method"
    intent["last_payment_error"] = {"type": "card_error", "code": code, "decline_code": code, "message": message}
    # Stripe's error code is card_declined for a bank's refusal, and authentication_required itself off-session.
    return error(402, "card_error", message, code="authentication_required" if code == "authentication_required" else "card_declined", decline_code=code, payment_intent=intent)


def confirm(intent_id, form):
    intent, pm, refusal = confirmable("pi", intent_id, form)
    if refusal:
        return refusal
    behaviour = pm["_behaviour"]
    off_session = form.get("off_session") == "true"
    intent["off_session"] = off_session
    if off_session and behaviour == "three_d_secure_always":
        return decline(intent, "authentication_required", "Your card was declined. This transaction requires authentication.")
    if off_session and behaviour == "three_d_secure":
        if not pm["_off_session_ready"]:
            return decline(intent, "authentication_required", "Your card was declined. This transaction requires authentication.")
        behaviour = "succeeds"
    if behaviour == "three_d_secure_always":
        behaviour = "three_d_secure"
    if behaviour == "card_declined":
        return decline(intent, "generic_decline", "Your card was declined.")
    if behaviour == "insufficient_funds":
        return decline(intent, "insufficient_funds", "Your card has insufficient funds.")
    if behaviour == "three_d_secure":
        if not form.get("return_url"):
            intent["status"] = "requires_action"
            intent["next_action"] = {"type": "use_stripe_sdk", "use_stripe_sdk": {}}
            return 200, intent
        intent["status"] = "requires_action"
        intent["next_action"] = {"type": "redirect_to_url", "redirect_to_url": {
            "url": f"http://127.0.0.1:{state['port']}/3ds/{intent_id}", "return_url": form["return_url"]}}
        return 200, intent
    intent["status"] = "succeeded"
    settle_setup_future_usage(intent)
    return 200, intent


def settle_setup_future_usage(intent):
    """A payment that succeeded with setup_future_usage=off_session sets its card up for later off-session charges."""
    pm = objects["pm"].get(intent["payment_method"])
    if pm is not None and intent.get("setup_future_usage") == "off_session":
        pm["_off_session_ready"] = True


def cancel(intent_id):
    intent = objects["pi"].get(intent_id)
    if intent is None:
        return error(404, "invalid_request_error", f"No such payment_intent: '{intent_id}'", code="resource_missing")
    if intent["status"] in ("succeeded", "canceled"):
        return error(400, "invalid_request_error", f"You cannot cancel this PaymentIntent because it has a status of {intent['status']}.", code="payment_intent_unexpected_state")
    intent["status"] = "canceled"
    intent["next_action"] = None
    return 200, intent


def get(kind, object_id):
    found = objects[kind].get(object_id)
    if found is None:
        return error(404, "invalid_request_error", f"No such object: '{object_id}'", code="resource_missing")
    return 200, public(found)


def stripe_route(method, parts, form):
    """The answer to one Stripe API request, as (status, body)."""
    match (method, parts):
        case ("GET", ["v1", "balance"]):
            return 200, {"object": "balance", "available": [], "pending": []}
        case ("POST", ["v1", "customers"]):
            return create_customer(form)
        case ("GET", ["v1", "customers", object_id]):
            return get("cus", object_id)
        case ("POST", ["v1", "payment_methods"]):
            return create_payment_method(form)
        case ("GET", ["v1", "payment_methods", object_id]):
            return get("pm", object_id)
        case ("POST", ["v1", "payment_methods", object_id, "attach"]):
            return attach(object_id, form)
        case ("POST", ["v1", "payment_methods", object_id, "detach"]):
            pm = objects["pm"].get(object_id)
            if pm is None:
                return error(404, "invalid_request_error", f"No such PaymentMethod: '{object_id}'", code="resource_missing")
            if pm["customer"] is None:
                return error(400, "invalid_request_error", "The payment method you provided is not attached to a customer so detachment is impossible.")
            pm["customer"] = None
            return 200, pm
        case ("POST", ["v1", "checkout", "sessions"]):
            return create_checkout_session(form)
        case ("GET", ["v1", "checkout", "sessions", object_id]):
            return get("cs", object_id)
        case ("POST", ["v1", "checkout", "sessions", object_id, "expire"]):
            return expire_checkout_session(object_id)
        case ("GET", ["v1", "setup_intents", object_id]):
            return get("seti", object_id)
        case ("POST", ["v1", "setup_intents"]):
            return create_setup_intent(form)
        case ("POST", ["v1", "setup_intents", object_id, "confirm"]):
            return confirm_setup_intent(object_id, form)
        case ("POST", ["v1", "payment_intents"]):
            return create_payment_intent(form)
        case ("GET", ["v1", "payment_intents", object_id]):
            return get("pi", object_id)
        case ("POST", ["v1", "payment_intents", object_id, "confirm"]):
            return confirm(object_id, form)
        case ("POST", ["v1", "payment_intents", object_id, "cancel"]):
            return cancel(object_id)
    return error(404, "invalid_request_error", f"Unrecognized request URL ({method}: /{'/'.join(parts)}).")


def command(method, parts, form):
    """A test's command to the fake, as (status, body)."""
    match (method, parts):
        case ("GET", ["log"]):
            return 200, {"requests": seen}
        case ("GET", ["state"]):
            return 200, {kind: [inspected(value) for value in values.values()] for kind, values in
                         (("payment_intents", objects["pi"]), ("customers", objects["cus"]), ("checkout_sessions", objects["cs"]),
                          ("payment_methods", objects["pm"]))}
        case ("POST", ["unauthorized"]):
            state["unauthorized"] = True
            return 200, {}
        case ("POST", ["checkout", "sessions", session_id, "complete"]):
            return card_on_session(session_id, form, "succeeded", "complete")
        case ("POST", ["checkout", "sessions", session_id, "fill"]):
            return card_on_session(session_id, form, "processing", "open")
        case ("POST", ["checkout", "sessions", session_id, "expire"]):
            return expire_checkout_session(session_id)
        case ("POST", ["payment_intents", intent_id, "authenticate"]):
            intent = objects["pi"].get(intent_id)
            if intent is None or intent["status"] != "requires_action":
                return 400, {"error": f"no payment intent waiting for authentication: {intent_id}"}
            intent["next_action"] = None
            if form.get("result", "succeed") == "succeed":
                intent["status"] = "succeeded"
                settle_setup_future_usage(intent)
            else:
                intent["status"] = "requires_payment_method"
                intent["last_payment_error"] = {"type": "card_error", "code": "payment_intent_authentication_failure",
                                                "message": "The provided PaymentMethod has failed authentication."}
            return 200, intent
    return 404, {"error": "unknown command"}


answered = asyncio.Condition()


async def wait_for_request(query):
    """The first answered request whose method and path end match the query; None at its timeout."""
    def match():
        return next((entry for entry in seen if "status" in entry and entry["method"] == query.get("method", entry["method"])
                     and entry["path"].endswith(query.get("path_suffix", ""))), None)
    try:
        async with answered:
            await asyncio.wait_for(answered.wait_for(match), timeout=min(float(query.get("timeout", "30")), 300))
            return match()
    except asyncio.TimeoutError:
        return None


async def handle(request):
    try:
        return await answer(request)
    finally:
        async with answered:
            answered.notify_all()


async def answer(request):
    parts = [part for part in request.path.split("/") if part]
    body = await request.read()
    form = form_of(body)
    if parts == ["_fake", "wait"]:
        found = await wait_for_request(request.query)
        return web.json_response(found or {"error": "no such request in time"}, status=200 if found else 408)
    if parts[:1] == ["_fake"]:
        status, answer = command(request.method, parts[1:], form)
        return web.json_response(answer, status=status)
    key = request.headers.get("Idempotency-Key") if request.method == "POST" else None
    entry = {"method": request.method, "path": request.path, "idempotency_key": key,
             "stripe_version": request.headers.get("Stripe-Version")}
    seen.append(entry)
    if state["unauthorized"]:
        secret = request.headers.get("Authorization", "").removeprefix("Bearer ")
        entry["status"] = 401
        return web.json_response({"error": {"type": "invalid_request_error", "message": f"Invalid API Key provided: {secret}"}}, status=401)
    if key is not None and key in kept:
        kept_body, kept_status, kept_answer = kept[key]
        if kept_body != body:
            entry["status"] = 400
            return web.json_response({"error": {"type": "idempotency_error", "message": "Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '" + key + "' if you meant to execute a different request."}}, status=400)
        entry["status"] = kept_status
        return web.Response(text=kept_answer, status=kept_status, content_type="application/json", headers={"Idempotent-Replayed": "true"})
    status, answer = stripe_route(request.method, parts, form)
    text = json.dumps(public(answer) if isinstance(answer, dict) else answer)
    if key is not None and status != 409:
        kept[key] = (body, status, text)
    entry["status"] = status
    return web.Response(text=text, status=status, content_type="application/json")


app = web.Application()
app.router.add_route("*", "/{tail:.*}", handle)
listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
listener.bind(("127.0.0.1", 0))
listener.listen(128)
state["port"] = listener.getsockname()[1]


async def announce(_app):
    print(f"listening {state['port']}", flush=True)


app.on_startup.append(announce)
web.run_app(app, sock=listener, print=None, access_log=None)
