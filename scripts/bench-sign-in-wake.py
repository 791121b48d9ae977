"""Times a terminal's sign-in with a provider through the shop's link, from the provider's callback to the terminal.

Usage: bench-sign-in-wake.py BIN WORKDIR SIGN-INS OUT.jsonl
oidc-provider-mock (scripts/oidc-test-provider) is the provider; `storefront web` and a local `storefront run` (in a
pty at 120x40, read with pyte) share the data directory (or STOREFRONT_DATABASE_URL). Each round: Account, i, the link
read off the screen, the link's page and its Continue, the provider's consent as Ada, then the timed part: the callback
sent to `web`; `answered` is when its answer came, `signed_in` when the terminal's screen said "Signed in". Then `i`
signs out for the next round.
"""
import http.client
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(__file__))
from shop_in_pty import start_shop  # noqa: E402

binary, work, rounds, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
database = os.environ.get("STOREFRONT_DATABASE_URL")
data = os.path.join(work, "data")
key = "KioqKioqKioqKioqKioqKioqKioqKioqKioqKioqKio="
env = dict(os.environ, HOME=work, XDG_CONFIG_HOME=os.path.join(work, "config"), STOREFRONT_CODE_KEY=key)

provider = subprocess.Popen(
    [os.path.join(os.path.dirname(__file__), "oidc-test-provider"), "--user-claims",
     json.dumps({"sub": "ada-1", "email": "ada@example.com", "email_verified": True, "name": "Ada"})],
    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
provider_port = int(provider.stdout.readline().split()[1])
with open(os.path.join(work, "mock.secret"), "w") as f:
    f.write("s3cret\n")
providers = os.path.join(work, "providers.json")
with open(providers, "w") as f:
    json.dump({"providers": [{"id": "mock", "name": "Mock ID", "issuer": f"http://127.0.0.1:{provider_port}",
                              "client_id": "shop", "client_secret_file": "mock.secret"}]}, f)

listener = socket.socket()
listener.bind(("127.0.0.1", 0))
web_port = listener.getsockname()[1]
listener.close()
web = subprocess.Popen([binary, "web", "--listen", f"127.0.0.1:{web_port}", "--data-dir", data, "--openid-providers", providers],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True)
for line in web.stdout:
    if "listening on" in line:
        break
origin = f"http://127.0.0.1:{web_port}"
shop = start_shop(binary, database, data=data, size=(120, 40), extra_env={
    "STOREFRONT_OPENID_PROVIDERS": providers, "STOREFRONT_WEB_ORIGIN": origin, "STOREFRONT_CODE_KEY": key, "HOME": work})
shop.pump_until(lambda text: "Canvas Tote" in text)


def request(port, method, path, body=None, headers=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request(method, path, body, headers or {})
    answer = connection.getresponse()
    text = answer.read().decode()
    connection.close()
    return answer, text


results = []
shop.pump_until(lambda text: "Your account" in text, writing=b"u")
for round in range(rounds):
    shop.pump_until(lambda text: "Waiting for Mock ID" in text, writing=b"i")
    link = re.search(origin.replace(".", r"\.") + r"(/sign-in/terminal/[A-Za-z0-9_-]{22})", shop.text()).group(1)
    answer, _ = request(web_port, "POST", link, "", {"Origin": origin, "Content-Length": "0"})
    binding = re.search(r"storefront_oidc=([A-Za-z0-9_-]+)", answer.getheader("Set-Cookie")).group(0)
    authorize = urllib.parse.urlsplit(answer.getheader("Location"))
    consent, _ = request(provider_port, "POST", authorize.path + "?" + authorize.query, "sub=ada-1&action=allow",
                         {"Content-Type": "application/x-www-form-urlencoded"})
    callback = urllib.parse.urlsplit(consent.getheader("Location"))
    sent = time.perf_counter()
    done, page = request(web_port, "GET", callback.path + "?" + callback.query, None, {"Cookie": binding})
    answered = time.perf_counter()
    assert done.status == 200 and "Your terminal is signed in now" in page, (done.status, page[:400])
    signed_in = shop.pump_until(lambda text: "Signed in as" in text)
    results.append({"round": round, "answeredMs": (answered - sent) * 1000, "signedInMs": (signed_in - sent) * 1000})
    shop.pump_until(lambda text: "Signed out" in text, writing=b"i")

with open(out, "w") as f:
    for result in results:
        f.write(json.dumps(result) + "\n")
for name in ["answeredMs", "signedInMs"]:
    values = sorted(r[name] for r in results)
    print(f"{name}: n={len(values)} median={statistics.median(values):.1f} p10={values[len(values) // 10]:.1f} "
          f"p90={values[len(values) * 9 // 10]:.1f} max={values[-1]:.1f}")
for process in (web, provider):
    process.terminate()
os.kill(shop.pid, 15)
