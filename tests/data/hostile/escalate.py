# Tries to become root, to reach the network and to see the host; then does its honest work.
import os
import socket

for attempt in (lambda: os.setuid(0), lambda: os.setgid(0), lambda: os.chroot("/"),
                lambda: socket.create_connection(("1.1.1.1", 53), timeout=1),
                lambda: open("/proc/sysrq-trigger", "w").write("b"), lambda: open("/dev/mem", "rb").read(1)):
    try:
        attempt()
    except Exception:
        pass
