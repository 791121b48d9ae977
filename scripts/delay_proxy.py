#!/usr/bin/env python3
"""A TCP proxy on loopback that delivers every byte DELAY ms after it came, each way: a shop at a distance (DELAY twice
is the round trip), for the benchmarks that compare fronts over it. Order is kept; bandwidth is not limited.

    python3 scripts/delay_proxy.py TARGET_PORT DELAY_MS [PORT [HANDSHAKES]]   # prints "listening on PORT"; serves until killed

HANDSHAKES (default 1): the round trips a new connection costs before its first byte goes (TCP's is one; TLS 1.3 adds
one, as a shop behind an https proxy has). The loopback's own handshake is not counted.

Used by scripts/bench-distance. Listens on 127.0.0.1 only.
"""
import asyncio
import sys

TARGET, DELAY = int(sys.argv[1]), float(sys.argv[2]) / 1000
HANDSHAKES = int(sys.argv[4]) if len(sys.argv) > 4 else 1


async def pump(reader, writer):
    """Copies reader to writer, each chunk written DELAY after it was read."""
    loop = asyncio.get_running_loop()
    queue = asyncio.Queue()

    async def deliver():
        while True:
            due, chunk = await queue.get()
            if chunk is None:
                break
            await asyncio.sleep(max(0, due - loop.time()))
            writer.write(chunk)
            await writer.drain()
        writer.close()

    delivering = asyncio.create_task(deliver())
    try:
        while chunk := await reader.read(65536):
            queue.put_nowait((loop.time() + DELAY, chunk))
    except ConnectionError:
        pass
    queue.put_nowait((loop.time() + DELAY, None))
    try:
        await delivering
    except ConnectionError:
        pass


async def connection(client_reader, client_writer):
    # The connection's handshakes: nothing the client sent meanwhile goes before they are over.
    await asyncio.sleep(HANDSHAKES * 2 * DELAY)
    try:
        server_reader, server_writer = await asyncio.open_connection("127.0.0.1", TARGET)
    except OSError:
        client_writer.close()
        return
    await asyncio.gather(pump(client_reader, server_writer), pump(server_reader, client_writer))


async def main():
    server = await asyncio.start_server(connection, "127.0.0.1", int(sys.argv[3]) if len(sys.argv) > 3 else 0)
    print(f"listening on {server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


asyncio.run(main())
