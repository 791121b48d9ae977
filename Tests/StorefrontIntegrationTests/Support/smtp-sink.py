#!/usr/bin/python3
"""A loopback SMTP server for the tests (Debian's python3-aiosmtpd): every message it accepts is written whole to
DIRECTORY as <n>.eml, and nothing is ever relayed.

usage: smtp-sink.py DIRECTORY [PORT]
Listens on 127.0.0.1 (PORT, or one the kernel picks) and prints "listening PORT" once it accepts connections.
"""
import asyncio
import os
import socket
import sys

try:
    from aiosmtpd.controller import Controller
except ImportError as error:
    sys.stderr.write(f"aiosmtpd is missing ({error}); install Debian's python3-aiosmtpd\n")
    sys.exit(3)

directory = sys.argv[1]
port = int(sys.argv[2]) if len(sys.argv) > 2 else 0
if port == 0:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()


class Keep:
    async def handle_DATA(self, server, session, envelope):
        count = len([name for name in os.listdir(directory) if name.endswith(".eml")])
        path = os.path.join(directory, f"{count + 1:04d}.eml")
        with open(path + ".part", "wb") as file:
            file.write(envelope.original_content or envelope.content)
        os.rename(path + ".part", path)
        return "250 OK kept"


controller = Controller(Keep(), hostname="127.0.0.1", port=port)
controller.start()
print(f"listening {port}", flush=True)
try:
    asyncio.get_event_loop().run_forever()
except KeyboardInterrupt:
    pass
finally:
    controller.stop()
