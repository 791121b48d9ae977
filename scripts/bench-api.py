#!/usr/bin/env python3
"""Requests per second against `storefront api` on loopback: GET /v1/products and POST /v1/orders.

    bench-api.py PORT SECONDS CONNECTIONS TOKEN...   (one token per connection: each buys its own cart)

Each connection is a thread with one keep-alive HTTP/1.1 connection. Product list: back-to-back GET
/v1/products?limit=20. Order create: PUT one cart line (not timed), then POST /v1/orders with a new
Idempotency-Key (timed). Prints one JSON line per measurement: requests, rps, p50/p99 milliseconds, errors.
"""
import http.client
import json
import sys
import threading
import time
import uuid

port, seconds, connections = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
tokens = sys.argv[4:]
assert len(tokens) >= connections, "one token per connection"


def run(name, step):
    latencies, errors, lock = [], [], threading.Lock()
    deadline = time.monotonic() + seconds

    def worker(token):
        conn = http.client.HTTPConnection("127.0.0.1", port)
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        mine, bad = [], []
        while time.monotonic() < deadline:
            elapsed, status = step(conn, headers)
            (mine if status in (200, 201) else bad).append(elapsed if status in (200, 201) else status)
        with lock:
            latencies.extend(mine)
            errors.extend(bad)

    threads = [threading.Thread(target=worker, args=(tokens[i],)) for i in range(connections)]
    start = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.monotonic() - start
    latencies.sort()
    pick = lambda q: round(latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000, 2) if latencies else None
    print(json.dumps({"measure": name, "connections": connections, "seconds": round(wall, 2), "requests": len(latencies),
                      "rps": round(len(latencies) / wall, 1), "p50_ms": pick(0.5), "p99_ms": pick(0.99),
                      "errors": len(errors), "error_statuses": sorted(set(errors))[:5]}), flush=True)


def call(conn, method, path, headers, body=None):
    started = time.monotonic()
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    response.read()
    return time.monotonic() - started, response.status


def list_products(conn, headers):
    return call(conn, "GET", "/v1/products?limit=20", headers)


def create_order(conn, headers):
    call(conn, "PUT", "/v1/cart/lines/widget", headers, json.dumps({"quantity": 1}))
    return call(conn, "POST", "/v1/orders", {**headers, "Idempotency-Key": str(uuid.uuid4())}, "{}")


run("product-list", list_products)
run("order-create", create_order)
